/**
 * An Avro schema's JSON resolved into a tree: names looked up by Avro's namespace rules, each
 * named type one object wherever it is used (so a recursive schema is seen as one).
 */
import { DataError } from 'serverless-connect/connect';

export interface ResolvedField {
  readonly name: string;
  readonly schema: ResolvedSchema;
  readonly doc: string | null;
  /** The field's default as JSON; `undefined` when it has none. */
  readonly default: unknown;
  /** The field's other attributes (`connect.parameters`). */
  readonly props: Readonly<Record<string, unknown>>;
}

export interface ResolvedSchema {
  /** A primitive's name, or record, enum, fixed, array, map, union. */
  readonly type: string;
  /** Attributes beyond Avro's own (`connect.*`, `logicalType`, `precision`, `scale`). */
  readonly props: Readonly<Record<string, unknown>>;
  readonly doc: string | null;
  /** Simple name and full name of a record, enum or fixed. */
  readonly name?: string;
  readonly fullName?: string;
  readonly fields?: ResolvedField[];
  readonly symbols?: readonly string[];
  readonly enumDefault?: string;
  readonly size?: number;
  /** An array's items, a map's values. */
  readonly items?: ResolvedSchema;
  readonly branches?: readonly ResolvedSchema[];
}

const PRIMITIVES = new Set([
  'null',
  'boolean',
  'int',
  'long',
  'float',
  'double',
  'bytes',
  'string',
]);
const OWN_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  record: ['type', 'name', 'namespace', 'doc', 'fields', 'aliases'],
  error: ['type', 'name', 'namespace', 'doc', 'fields', 'aliases'],
  enum: ['type', 'name', 'namespace', 'doc', 'symbols', 'aliases', 'default'],
  fixed: ['type', 'name', 'namespace', 'doc', 'size', 'aliases'],
  array: ['type', 'items'],
  map: ['type', 'values'],
};
const FIELD_ATTRIBUTES = ['name', 'type', 'doc', 'default', 'order', 'aliases'];

function invalid(message: string): DataError {
  return new DataError(`Invalid Avro schema: ${message}`);
}

function propsOf(json: Record<string, unknown>, own: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(json).filter(([key]) => !own.includes(key)));
}

/** Resolves one schema; named types are looked up in the order they are defined. */
export class AvroNames {
  readonly #named = new Map<string, ResolvedSchema>();

  resolve(json: unknown, space: string | null = null): ResolvedSchema {
    if (typeof json === 'string') {
      if (PRIMITIVES.has(json)) return { type: json, props: {}, doc: null };
      const found =
        this.#named.get(json.includes('.') || space === null ? json : `${space}.${json}`) ??
        this.#named.get(json);
      if (found === undefined) throw invalid(`undefined name: ${json}`);
      return found;
    }
    if (Array.isArray(json)) {
      return {
        type: 'union',
        props: {},
        doc: null,
        branches: json.map((b) => this.resolve(b, space)),
      };
    }
    if (typeof json !== 'object' || json === null) throw invalid(`not a schema: ${String(json)}`);
    const object = json as Record<string, unknown>;
    const type = object.type;
    if (typeof type !== 'string') throw invalid('no type');
    const doc = typeof object.doc === 'string' ? object.doc : null;
    if (PRIMITIVES.has(type)) return { type, props: propsOf(object, ['type']), doc: null };
    const own = OWN_ATTRIBUTES[type];
    if (own === undefined) throw invalid(`unknown type: ${type}`);
    const props = propsOf(object, own);
    switch (type) {
      case 'array':
        return { type, props, doc: null, items: this.resolve(object.items, space) };
      case 'map':
        return { type, props, doc: null, items: this.resolve(object.values, space) };
    }
    const [namespace, name] = this.#nameOf(object, space);
    const fullName = namespace === null ? name : `${namespace}.${name}`;
    if (this.#named.has(fullName)) throw invalid(`Can't redefine: ${fullName}`);
    if (type === 'fixed') {
      const resolved = { type, props, doc, name, fullName, size: Number(object.size) };
      this.#named.set(fullName, resolved);
      return resolved;
    }
    if (type === 'enum') {
      const symbols = object.symbols;
      if (!Array.isArray(symbols)) throw invalid(`enum ${fullName} has no symbols`);
      const resolved: ResolvedSchema = {
        type,
        props,
        doc,
        name,
        fullName,
        symbols: symbols.map(String),
        ...(typeof object.default === 'string' ? { enumDefault: object.default } : {}),
      };
      this.#named.set(fullName, resolved);
      return resolved;
    }
    const fields: ResolvedField[] = [];
    const record: ResolvedSchema = { type: 'record', props, doc, name, fullName, fields };
    this.#named.set(fullName, record);
    if (!Array.isArray(object.fields)) throw invalid(`record ${fullName} has no fields`);
    for (const field of object.fields as Record<string, unknown>[]) {
      if (typeof field?.name !== 'string') throw invalid(`a field of ${fullName} has no name`);
      fields.push({
        name: field.name,
        schema: this.resolve(field.type, namespace),
        doc: typeof field.doc === 'string' ? field.doc : null,
        default: field.default,
        props: propsOf(field, FIELD_ATTRIBUTES),
      });
    }
    return record;
  }

  #nameOf(object: Record<string, unknown>, space: string | null): [string | null, string] {
    const name = object.name;
    if (typeof name !== 'string' || name === '') throw invalid('a named type without a name');
    const dot = name.lastIndexOf('.');
    if (dot >= 0) return [name.slice(0, dot), name.slice(dot + 1)];
    const namespace = object.namespace;
    if (typeof namespace === 'string') return [namespace === '' ? null : namespace, name];
    return [space, name];
  }
}
