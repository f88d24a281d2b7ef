/**
 * Whether a JSON Schema can read what another one validated, as Confluent's
 * `JsonSchema.isBackwardCompatible` decides it (`io.confluent.kafka.schemaregistry.json.diff`:
 * `SchemaDiff.compare(previous, this)`, keeping the differences outside `COMPATIBLE_CHANGES`).
 * The JsonSchemaConverter asks it with `use.latest.version` and `latest.compatibility.strict`:
 * the latest version (the update) must be backward compatible with the record's schema (the
 * original).
 *
 * Schemas are classified as everit's loader classifies them (`json-schema-kinds.ts`). Only the
 * incompatible differences are kept, named as Confluent names them (`#/properties/age:
 * TYPE_CHANGED`). Not compared (Confluent compares them): `unevaluatedItems`,
 * `minContains`/`maxContains`, the reserved-properties metadata; `not` and `const` are compared
 * for equality only (any change is incompatible here).
 */

import { maximumMatching } from '../bipartite-matching.js';
import { type JsonNode, JsonNumber } from '../json-text.js';
import { classify, type JsonObject, type Kind, type Node } from './json-schema-kinds.js';
import { jsonNodeText } from './json-tree.js';

/** The incompatible differences found, as `path: TYPE`. */
class Context {
  readonly differences: string[] = [];
  constructor(
    readonly root: {
      readonly original: JsonNode;
      readonly update: JsonNode;
      /** The pairs being compared (a recursive `$ref` is compared once, as everit's scope). */
      readonly inProgress: Map<JsonObject, Set<JsonObject>>;
    },
  ) {}
  add(path: string, type: string): void {
    this.differences.push(`${path === '' ? '#' : `#${path}`}: ${type}`);
  }
  sub(): Context {
    return new Context(this.root);
  }
  /** Whether `u` is `{}`, `true` or another schema without a type (everit's EmptySchema). */
  isEmpty(u: JsonNode): boolean {
    return classify(u, this.root.update).kind === 'empty';
  }
  get compatible(): boolean {
    return this.differences.length === 0;
  }
}

const num = (node: JsonNode | undefined): number | undefined =>
  node instanceof JsonNumber ? Number(node.text) : undefined;

const text = (node: JsonNode | undefined): string | undefined =>
  node === undefined ? undefined : jsonNodeText(node);

/** Differences of a bound (`maxLength`, `minimum`, …): `looser` is the compatible direction. */
function compareBound(
  ctx: Context,
  path: string,
  key: string,
  original: JsonObject,
  update: JsonObject,
  looser: 'up' | 'down',
): void {
  const o = num(original.get(key));
  const u = num(update.get(key));
  if (o === u) return;
  const name = key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();
  if (o === undefined) ctx.add(`${path}/${key}`, `${name}_ADDED`);
  else if (u === undefined) return;
  else if (looser === 'up' ? u < o : u > o) {
    ctx.add(`${path}/${key}`, `${name}_${looser === 'up' ? 'DECREASED' : 'INCREASED'}`);
  }
}

function compare(
  ctx: Context,
  path: string,
  original: JsonNode | undefined,
  update: JsonNode | undefined,
): void {
  if (original === undefined && update === undefined) return;
  if (original === undefined) {
    ctx.add(path, 'SCHEMA_ADDED');
    return;
  }
  if (update === undefined) return;
  const o = classify(original, ctx.root.original);
  const u = classify(update, ctx.root.update);
  const { inProgress } = ctx.root;
  const pairs = inProgress.get(o.schema) ?? new Set();
  if (pairs.has(u.schema)) return;
  inProgress.set(o.schema, pairs.add(u.schema));
  try {
    compareClassified(ctx, path, o, u, original, update);
  } finally {
    pairs.delete(u.schema);
  }
}

function compareClassified(
  ctx: Context,
  path: string,
  o: Node,
  u: Node,
  original: JsonNode,
  update: JsonNode,
): void {
  if (o.kind !== 'combined' && u.kind === 'combined') {
    const subs = u.subschemas ?? [];
    if (subs.length === 1 || u.criterion !== 'allOf') {
      for (const sub of subs) {
        const subctx = ctx.sub();
        compare(subctx, path, original, sub);
        if (subctx.compatible) return;
      }
    }
  } else if (o.kind === 'combined' && u.kind !== 'combined' && o.subschemas?.length === 1) {
    const subctx = ctx.sub();
    compare(subctx, path, o.subschemas[0], update);
    if (subctx.compatible) return;
  }
  if (o.kind !== u.kind) {
    if (o.kind === 'false' || u.kind === 'empty') return;
    ctx.add(path, 'TYPE_CHANGED');
    return;
  }
  const a = o.schema;
  const b = u.schema;
  switch (o.kind) {
    case 'string':
      compareBound(ctx, path, 'maxLength', a, b, 'up');
      compareBound(ctx, path, 'minLength', a, b, 'down');
      if (b.has('pattern') && text(a.get('pattern')) !== text(b.get('pattern'))) {
        ctx.add(`${path}/pattern`, a.has('pattern') ? 'PATTERN_CHANGED' : 'PATTERN_ADDED');
      }
      return;
    case 'number':
      compareNumbers(ctx, path, a, b);
      return;
    case 'enum':
    case 'const':
    case 'not':
      compareValues(ctx, path, o.kind, a, b);
      return;
    case 'combined':
      compareCombined(ctx, path, o, u);
      return;
    case 'object':
      compareObjects(ctx, path, a, b);
      return;
    case 'array':
      compareArrays(ctx, path, a, b);
      return;
    default:
      return;
  }
}

function compareNumbers(ctx: Context, path: string, a: JsonObject, b: JsonObject): void {
  compareBound(ctx, path, 'maximum', a, b, 'up');
  compareBound(ctx, path, 'minimum', a, b, 'down');
  compareBound(ctx, path, 'exclusiveMaximum', a, b, 'up');
  compareBound(ctx, path, 'exclusiveMinimum', a, b, 'down');
  const o = num(a.get('multipleOf'));
  const u = num(b.get('multipleOf'));
  if (u !== undefined && o !== u) {
    if (o === undefined) ctx.add(`${path}/multipleOf`, 'MULTIPLE_OF_ADDED');
    else if (Math.trunc(o) % Math.trunc(u) !== 0 || Math.trunc(u) % Math.trunc(o) === 0) {
      ctx.add(`${path}/multipleOf`, 'MULTIPLE_OF_CHANGED');
    }
  }
  if (a.get('type') !== 'integer' && b.get('type') === 'integer') ctx.add(path, 'TYPE_NARROWED');
}

function compareValues(ctx: Context, path: string, kind: Kind, a: JsonObject, b: JsonObject): void {
  const key = kind as 'enum' | 'const' | 'not';
  if (text(a.get(key)) === text(b.get(key))) return;
  const values = (s: JsonObject) => {
    const v = s.get('enum');
    return Array.isArray(v) ? v.map((x) => jsonNodeText(x)) : [];
  };
  const missing = values(a).filter((x) => !values(b).includes(x));
  if (key === 'enum' && missing.length === 0) return; // ENUM_ARRAY_EXTENDED
  ctx.add(`${path}/${key}`, `${key.toUpperCase()}_${key === 'enum' ? 'ARRAY_' : ''}CHANGED`);
}

function compareCombined(ctx: Context, path: string, o: Node, u: Node): void {
  const single = (n: Node) => (n.subschemas ?? []).length === 1;
  if (o.criterion !== u.criterion) {
    const extended =
      u.criterion === 'anyOf' ||
      (u.criterion === 'oneOf' && single(o)) ||
      (u.criterion === 'allOf' && single(o) && single(u));
    if (!extended) {
      ctx.add(path, 'COMBINED_TYPE_CHANGED');
      return;
    }
  }
  const dedupe = (n: Node) => [
    ...new Map((n.subschemas ?? []).map((s) => [jsonNodeText(s), s])).values(),
  ];
  const originals = dedupe(o);
  const updates = dedupe(u);
  if (originals.length < updates.length && u.criterion === 'allOf')
    ctx.add(path, 'PRODUCT_TYPE_EXTENDED');
  if (originals.length > updates.length && u.criterion !== 'allOf')
    ctx.add(path, 'SUM_TYPE_NARROWED');
  const edges = originals.map((os) =>
    updates.map((us) => {
      const subctx = ctx.sub();
      compare(subctx, path, os, us);
      return subctx.compatible;
    }),
  );
  if (maximumMatching(edges, updates.length) < Math.min(originals.length, updates.length)) {
    ctx.add(path, 'COMBINED_TYPE_SUBSCHEMAS_CHANGED');
  }
}

const objectOf = (node: JsonNode | undefined): JsonObject =>
  node instanceof Map ? node : new Map();
const stringsOf = (node: JsonNode | undefined): string[] =>
  Array.isArray(node) ? node.filter((x): x is string => typeof x === 'string') : [];
const hasDefault = (node: JsonNode | undefined): boolean =>
  node instanceof Map && node.has('default');

/** `additionalProperties` (or `additionalItems`): whether it permits more, and its schema. */
function additional(
  s: JsonObject,
  key: string,
): { permits: boolean; schema: JsonNode | undefined } {
  const value = s.get(key);
  return { permits: value !== false, schema: value instanceof Map ? value : undefined };
}

/** The schema the pattern properties or additional properties give an undeclared `key`. */
function partialSchema(s: JsonObject, key: string): JsonNode | undefined {
  for (const [pattern, schema] of objectOf(s.get('patternProperties'))) {
    try {
      if (new RegExp(pattern, 'u').test(key)) return schema;
    } catch {
      // a pattern JavaScript cannot read matches nothing here
    }
  }
  return additional(s, 'additionalProperties').schema;
}

function isOpenObject(s: JsonObject): boolean {
  const extra = additional(s, 'additionalProperties');
  return (
    objectOf(s.get('patternProperties')).size === 0 && extra.permits && extra.schema === undefined
  );
}

function coveredBy(ctx: Context, path: string, from: JsonNode, to: JsonNode, what: string): void {
  const subctx = ctx.sub();
  compare(subctx, path, from, to);
  ctx.differences.push(...subctx.differences);
  if (!subctx.compatible) ctx.add(path, `${what}_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL`);
}

function compareObjects(ctx: Context, path: string, a: JsonObject, b: JsonObject): void {
  const ap = objectOf(a.get('properties'));
  const bp = objectOf(b.get('properties'));
  const aRequired = stringsOf(a.get('required'));
  const bRequired = stringsOf(b.get('required'));
  for (const key of ap.keys()) {
    if (
      bp.has(key) &&
      !aRequired.includes(key) &&
      bRequired.includes(key) &&
      !hasDefault(bp.get(key))
    ) {
      ctx.add(`${path}/required/${key}`, 'REQUIRED_ATTRIBUTE_ADDED');
    }
  }
  for (const key of new Set([...ap.keys(), ...bp.keys()])) {
    const at = `${path}/properties/${key}`;
    const o = ap.get(key);
    const u = bp.get(key);
    if (u === undefined) {
      if (isOpenObject(b)) continue;
      const partial = partialSchema(b, key);
      if (partial !== undefined) coveredBy(ctx, at, o as JsonNode, partial, 'PROPERTY_REMOVED');
      else if (o !== false) ctx.add(at, 'PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL');
    } else if (o === undefined) {
      if (isOpenObject(a)) {
        if (!ctx.isEmpty(u)) ctx.add(at, 'PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL');
        continue;
      }
      const partial = partialSchema(a, key);
      if (partial !== undefined) coveredBy(ctx, at, partial, u, 'PROPERTY_ADDED');
      if (bRequired.includes(key) && !hasDefault(u)) {
        ctx.add(at, 'REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL');
      }
    } else {
      compare(ctx, at, o, u);
    }
  }
  const ad = objectOf(a.get('dependencies'));
  const bd = objectOf(b.get('dependencies'));
  for (const [key, dependency] of bd) {
    const before = ad.get(key);
    const at = `${path}/dependencies/${key}`;
    if (Array.isArray(dependency)) {
      const wider = stringsOf(dependency).some((d) => !stringsOf(before).includes(d));
      if (before === undefined || wider) ctx.add(at, 'DEPENDENCY_ARRAY_CHANGED');
    } else if (before === undefined) ctx.add(at, 'DEPENDENCY_SCHEMA_ADDED');
    else compare(ctx, at, before, dependency);
  }
  compareAdditional(ctx, path, a, b, 'additionalProperties', 'ADDITIONAL_PROPERTIES');
  compareBound(ctx, path, 'maxProperties', a, b, 'up');
  compareBound(ctx, path, 'minProperties', a, b, 'down');
}

function compareAdditional(
  ctx: Context,
  path: string,
  a: JsonObject,
  b: JsonObject,
  key: string,
  name: string,
): void {
  const o = additional(a, key);
  const u = additional(b, key);
  const at = `${path}/${key}`;
  if (o.permits !== u.permits) {
    if (!u.permits) ctx.add(at, `${name}_REMOVED`);
  } else if (o.schema === undefined && u.schema !== undefined) {
    ctx.add(at, `${name}_NARROWED`);
  } else if (o.schema !== undefined && u.schema !== undefined) {
    compare(ctx, at, o.schema, u.schema);
  }
}

function compareArrays(ctx: Context, path: string, a: JsonObject, b: JsonObject): void {
  const ai = a.get('items');
  const bi = b.get('items');
  compare(
    ctx,
    `${path}/items`,
    Array.isArray(ai) ? undefined : ai,
    Array.isArray(bi) ? undefined : bi,
  );
  const at = Array.isArray(ai) ? ai : [];
  const bt = Array.isArray(bi) ? bi : [];
  const open = (s: JsonObject) => {
    const extra = additional(s, 'additionalItems');
    return extra.permits && extra.schema === undefined;
  };
  for (let i = 0; i < Math.max(at.length, bt.length); i++) {
    const where = `${path}/items/${i}`;
    const o = at[i];
    const u = bt[i];
    if (o !== undefined && u !== undefined) compare(ctx, where, o, u);
    else if (o !== undefined) {
      if (open(b)) continue;
      const partial = additional(b, 'additionalItems').schema;
      if (partial !== undefined) coveredBy(ctx, where, o, partial, 'ITEM_REMOVED');
      else if (o !== false) ctx.add(where, 'ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL');
    } else if (u !== undefined) {
      const partial = additional(a, 'additionalItems').schema;
      if (open(a)) {
        if (!ctx.isEmpty(u)) ctx.add(where, 'ITEM_ADDED_TO_OPEN_CONTENT_MODEL');
      } else if (partial !== undefined) coveredBy(ctx, where, partial, u, 'ITEM_ADDED');
    }
  }
  compareAdditional(ctx, path, a, b, 'additionalItems', 'ADDITIONAL_ITEMS');
  compareBound(ctx, path, 'maxItems', a, b, 'up');
  compareBound(ctx, path, 'minItems', a, b, 'down');
  if (a.get('uniqueItems') !== true && b.get('uniqueItems') === true)
    ctx.add(`${path}/uniqueItems`, 'UNIQUE_ITEMS_ADDED');
}

/**
 * The differences that keep `update` from reading what `original` validated (Confluent's
 * `update.isBackwardCompatible(original)` is true when there are none), as `path: TYPE`.
 */
export function backwardIncompatibilities(original: JsonNode, update: JsonNode): string[] {
  const ctx = new Context({ original, update, inProgress: new Map() });
  compare(ctx, '', original, update);
  return ctx.differences;
}
