/**
 * Field paths of KIP-821 (Connect's `FieldSyntaxVersion` and `SingleFieldPath`): with
 * `field.syntax.version=V1` a path is one top-level field name; with `V2` dots separate nested
 * steps, and a step containing dots is wrapped in backticks (`` `a.b`.c ``), a backtick before a
 * dot being escaped with a backslash.
 */

import {
  CaseInsensitiveValidString,
  type ConfigDef,
  ConfigError,
  type Field,
  type Schema,
  type Struct,
} from 'serverless-connect/connect';
import { mapGet } from './map-values.js';
import { type MapValue, requireMapOrNull, requireStructOrNull } from './requirements.js';

export type FieldSyntaxVersion = 'V1' | 'V2';

export const FIELD_SYNTAX_VERSION_CONFIG = 'field.syntax.version';

/** Adds `field.syntax.version` (default `V1`, case-insensitive `V1`/`V2`) to `def`. */
export function withFieldSyntaxVersion(def: ConfigDef): ConfigDef {
  return def.define({
    name: FIELD_SYNTAX_VERSION_CONFIG,
    type: 'STRING',
    defaultValue: 'V1',
    validator: CaseInsensitiveValidString.in('V1', 'V2'),
    importance: 'HIGH',
    documentation:
      'Defines the version of the syntax to access fields. If set to `V1`, then the field paths are limited to access the elements at the root level of the struct or map. If set to `V2`, the syntax will support accessing nested elements. To access nested elements, dotted notation is used. If dots are already included in the field name, then backtick pairs can be used to wrap field names containing dots. E.g. to access the subfield `baz` from a field named "foo.bar" in a struct/map the following format can be used to access its elements: "`foo.bar`.baz".',
  });
}

/** The parsed `field.syntax.version`. */
export function fieldSyntaxVersion(values: Record<string, unknown>): FieldSyntaxVersion {
  return String(values[FIELD_SYNTAX_VERSION_CONFIG] ?? 'V1').toUpperCase() === 'V2' ? 'V2' : 'V1';
}

const BACKTICK = '`';
const DOT = '.';
const BACKSLASH = '\\';

function incompleteBacktick(path: string, at: number): never {
  throw new ConfigError(
    `Incomplete backtick pair in path: [${path}], consider adding a backslash before backtick at position ${at} to escape it`,
  );
}

function parseV2(path: string): string[] {
  const steps: string[] = [];
  let idx = 0;
  while (idx < path.length && idx >= 0) {
    if (path[idx] !== BACKTICK) {
      const start = idx;
      idx = path.indexOf(DOT, idx);
      if (idx >= 0) {
        steps.push(path.slice(start, idx));
        idx++;
      } else {
        steps.push(path.slice(start));
      }
      continue;
    }
    const backtickAt = idx;
    idx++;
    let field = '';
    let start = idx;
    for (;;) {
      idx = path.indexOf(BACKTICK, idx);
      if (idx === -1) incompleteBacktick(path, backtickAt);
      const escaped = path[idx - 1] === BACKSLASH;
      if (idx >= path.length - 1) {
        if (escaped) incompleteBacktick(path, backtickAt);
        steps.push(field + path.slice(start, idx));
        idx++;
        break;
      }
      if (path[idx + 1] !== DOT) {
        idx++;
        continue;
      }
      if (escaped) {
        field += `${path.slice(start, idx - 1)}${BACKTICK}`;
        idx++;
        start = idx;
        continue;
      }
      steps.push(field + path.slice(start, idx));
      idx += 2;
      break;
    }
  }
  if (path.endsWith(DOT)) steps.push('');
  return steps;
}

/** A path to one field, possibly nested (V2). Lookups return `null` when a step is missing. */
export class SingleFieldPath {
  readonly steps: readonly string[];

  /** Throws ConfigError for an unbalanced backtick (V2). */
  constructor(
    readonly text: string,
    readonly version: FieldSyntaxVersion,
  ) {
    this.steps = Object.freeze(version === 'V1' ? [text] : parseV2(text));
  }

  get #last(): string {
    return this.steps[this.steps.length - 1] ?? '';
  }

  get #parents(): readonly string[] {
    return this.steps.slice(0, -1);
  }

  /** The field at this path in `schema`, or `null`. DataError when a parent is not a struct. */
  fieldFrom(schema: Schema): Field | null {
    let current = schema;
    for (const step of this.#parents) {
      const field = current.field(step);
      if (field === null) return null;
      current = field.schema;
    }
    return current.field(this.#last);
  }

  /** The value at this path in `struct` (defaults applied unless told otherwise), or `null`. */
  valueFromStruct(struct: Struct, replaceNullWithDefault = true): unknown {
    let current: Struct | null = struct;
    for (const step of this.#parents) {
      if (current.schema.field(step) === null) return null;
      current = requireStructOrNull(current.get(step), 'nested field access');
      if (current === null) return null;
    }
    if (current.schema.field(this.#last) === null) return null;
    return replaceNullWithDefault ? current.get(this.#last) : current.getWithoutDefault(this.#last);
  }

  /** The value at this path in a schemaless map, or `null`. DataError when a parent is not a map. */
  valueFromMap(map: MapValue): unknown {
    let current: MapValue | null = map;
    for (const step of this.#parents) {
      current = requireMapOrNull(mapGet(current, step), 'nested field access');
      if (current === null) return null;
    }
    return mapGet(current, this.#last);
  }

  toString(): string {
    return this.text;
  }
}
