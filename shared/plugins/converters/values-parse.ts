/**
 * Kafka Connect's `Values.parseString`: infers a schema and value from a string, as the
 * SimpleHeaderConverter reads header values.
 *
 * - `true` / `false` → boolean; `null` → no schema, no value; empty or blank → the string.
 * - Integers → the smallest of int8, int16, int32, int64 that holds them; beyond int64 a
 *   Decimal of scale 0. Numbers with a fraction or exponent → float32 when finite as a
 *   float, else float64, else a Decimal (Connect's rules, e.g. `3.14` is a float32).
 * - `2024-01-31` → Date, `12:34:56.789Z` → Time, `2024-01-31T12:34:56.789Z` → Timestamp (UTC).
 * - `[1,2,3]` → an array, `{"a":1}` → a map (a `Map`); element, key and value schemas are
 *   the common schema of the parsed items (numbers widen: `[1,2.5]` is an array of float32),
 *   or `null` when they differ. Inside, strings are quoted (`\"` and `\\` escapes) and other
 *   items are literals; anything else makes the whole input a plain string.
 * - Everything else is a string, unchanged.
 *
 * Deviations from Connect, chosen for round trips with `convertToString`: null items make the
 * item schema optional (Connect falls back to a string), escapes in quoted strings are
 * undone, input with content after a closing `]` or `}` is a string, and dates must be valid
 * (Connect's parser is lenient: `2024-13-01` rolls over to January 2025).
 */
import {
  BigDecimal,
  ConnectSchema,
  DataError,
  javaTrim,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
  NULL_SCHEMA_AND_VALUE,
  type Schema,
  type SchemaAndValue,
  SchemaBuilder,
  Schemas,
  schemaEquals,
  type Type,
} from 'serverless-connect/connect';
import { exactInt64, INT_RANGES, int64Value } from './int64.js';

const TRUE: SchemaAndValue = Object.freeze({ schema: Schemas.BOOLEAN, value: true });
const FALSE: SchemaAndValue = Object.freeze({ schema: Schemas.BOOLEAN, value: false });
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z$/;
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z$/;
const EMBEDDED_TEMPORAL = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z|\d{2}:\d{2}:\d{2}\.\d{3}Z/y;
const DELIMITERS = ',:[]{}"';
const NUMERIC_ORDER: readonly Type[] = ['int8', 'int16', 'int32', 'int64', 'float32', 'float64'];

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function utcDate(
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
  millis = 0,
): Date | null {
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return date.getUTCDate() === day && date.getUTCMonth() === month - 1 ? date : null;
}

/** A Date, Time or Timestamp for an ISO-8601 token (`\:` counts as `:`); else `null`. */
function parseTemporal(token: string): SchemaAndValue | null {
  const text = token.replace(/\\:/g, ':');
  const n = (s: string | undefined) => Number(s);
  let m = TIMESTAMP.exec(text);
  if (m !== null) {
    const date = utcDate(n(m[1]), n(m[2]), n(m[3]), n(m[4]), n(m[5]), n(m[6]), n(m[7]));
    return date === null ? null : { schema: LogicalTimestamp.schema(), value: date };
  }
  m = TIME.exec(text);
  if (m !== null) {
    const date = utcDate(1970, 1, 1, n(m[1]), n(m[2]), n(m[3]), n(m[4]));
    return date === null ? null : { schema: LogicalTime.schema(), value: date };
  }
  m = DATE.exec(text);
  if (m !== null) {
    const date = utcDate(n(m[1]), n(m[2]), n(m[3]));
    return date === null ? null : { schema: LogicalDate.schema(), value: date };
  }
  return null;
}

/** A number token as Connect types it (see the module comment); `null` if not a number. */
function parseNumber(token: string): SchemaAndValue | null {
  if (!NUMBER.test(token)) return null;
  const decimal = BigDecimal.parse(token);
  const integer = exactInt64(decimal);
  if (integer !== null) {
    const n = Number(integer);
    for (const type of ['int8', 'int16', 'int32'] as const) {
      const [min, max] = INT_RANGES[type];
      if (n >= min && n <= max) return { schema: Schemas[INT_SCHEMA_KEYS[type]], value: n };
    }
    return { schema: Schemas.INT64, value: int64Value(integer) };
  }
  if (decimal.scale !== 0) {
    const x = Number(token);
    const f = Math.fround(x);
    if (Number.isFinite(f)) return { schema: Schemas.FLOAT32, value: f };
    if (Number.isFinite(x)) return { schema: Schemas.FLOAT64, value: x };
  }
  return { schema: LogicalDecimal.schema(decimal.scale), value: decimal };
}

const INT_SCHEMA_KEYS = { int8: 'INT8', int16: 'INT16', int32: 'INT32' } as const;

/** An integer of at most nine digits: always within int32. */
const SMALL_INTEGER = /^-?\d{1,9}$/;

/** `n` (an int32, never -0) with the narrowest integer schema, as {@link parseNumber}. */
function smallInteger(n: number): SchemaAndValue {
  const [min8, max8] = INT_RANGES.int8;
  if (n >= min8 && n <= max8) return { schema: Schemas.INT8, value: n };
  const [min16, max16] = INT_RANGES.int16;
  if (n >= min16 && n <= max16) return { schema: Schemas.INT16, value: n };
  return { schema: Schemas.INT32, value: n };
}

function optional(schema: Schema): Schema {
  return schema.optional ? schema : new ConnectSchema({ ...schema, optional: true });
}

/** The common schema of a list of items (Connect's `commonSchemaFor`, applied in turn). */
class SchemaMerger {
  #common: Schema | null = null;
  #compatible = true;
  #sawNull = false;

  add(item: SchemaAndValue | null): void {
    if (item === null || item.schema === null) {
      this.#sawNull = true;
      return;
    }
    if (!this.#compatible) return;
    const next = this.#common === null ? item.schema : merge(this.#common, item.schema);
    if (next === null) this.#compatible = false;
    this.#common = next;
  }

  /** The common schema (optional when an item was null), or `null` when there is none. */
  schema(): Schema | null {
    if (!this.#compatible || this.#common === null) return null;
    return this.#sawNull ? optional(this.#common) : this.#common;
  }
}

function merge(a: Schema, b: Schema): Schema | null {
  if (schemaEquals(a, b)) return a;
  const ra = NUMERIC_ORDER.indexOf(a.type);
  const rb = NUMERIC_ORDER.indexOf(b.type);
  if (ra < 0 || rb < 0 || a.name !== null || b.name !== null) return null;
  return ra >= rb ? a : b;
}

/** Converts a parsed number to the (wider) type of its common schema. */
function align(schema: Schema | null, value: unknown): unknown {
  if (schema === null || value === null) return value;
  if (schema.type === 'float32') return Math.fround(Number(value));
  if (schema.type === 'float64') return Number(value);
  return value;
}

class Parser {
  pos = 0;

  constructor(readonly text: string) {}

  skipWhitespace(): void {
    while (this.pos < this.text.length && (this.text.charCodeAt(this.pos) ?? 33) <= 32) this.pos++;
  }

  fail(message: string): never {
    throw new DataError(`${message}: ${this.text}`);
  }

  /** One embedded item; `null` for the literal `null`. */
  item(): SchemaAndValue | null {
    this.skipWhitespace();
    const c = this.text.charAt(this.pos);
    if (c === '"') return this.quoted();
    if (c === '[') return this.array();
    if (c === '{') return this.map();
    EMBEDDED_TEMPORAL.lastIndex = this.pos;
    const temporal = EMBEDDED_TEMPORAL.exec(this.text);
    if (temporal !== null) {
      const end = this.pos + temporal[0].length;
      const after = this.text.charAt(end);
      const parsed = parseTemporal(temporal[0]);
      if (parsed !== null && (after === '' || after <= ' ' || DELIMITERS.includes(after))) {
        this.pos = end;
        return parsed;
      }
    }
    const start = this.pos;
    while (this.pos < this.text.length && !DELIMITERS.includes(this.text.charAt(this.pos))) {
      this.pos++;
    }
    const token = javaTrim(this.text.slice(start, this.pos));
    if (token === 'true') return TRUE;
    if (token === 'false') return FALSE;
    if (token === 'null') return null;
    const parsed = (isDigit(token[0]) ? parseTemporal(token) : null) ?? parseNumber(token);
    if (parsed === null) this.fail('Failed to parse embedded value');
    return parsed;
  }

  quoted(): SchemaAndValue {
    let content = '';
    let p = this.pos + 1;
    for (;;) {
      const c = this.text.charAt(p);
      if (c === '') this.fail('Unterminated string');
      if (c === '"') break;
      const next = this.text.charAt(p + 1);
      if (c === '\\' && (next === '"' || next === '\\')) {
        content += next;
        p += 2;
      } else {
        content += c;
        p++;
      }
    }
    this.pos = p + 1;
    return parseTemporal(content) ?? { schema: Schemas.STRING, value: content };
  }

  array(): SchemaAndValue {
    this.pos++;
    const values: unknown[] = [];
    const merger = new SchemaMerger();
    for (;;) {
      this.skipWhitespace();
      const c = this.text.charAt(this.pos);
      if (c === '') this.fail("Array is missing terminating ']'");
      if (c === ']') {
        this.pos++;
        break;
      }
      if (c === ',') this.fail('Unable to parse an empty array element');
      const element = this.item();
      merger.add(element);
      values.push(element === null ? null : element.value);
      this.skipWhitespace();
      const after = this.text.charAt(this.pos);
      if (after === ',') this.pos++;
      else if (after !== ']') this.fail("Array elements missing ',' delimiter");
    }
    const element = merger.schema();
    return {
      schema: new SchemaBuilder('array', null, element).build(),
      value: values.map((v) => align(element, v)),
    };
  }

  map(): SchemaAndValue {
    this.pos++;
    const entries: [unknown, unknown][] = [];
    const keys = new SchemaMerger();
    const values = new SchemaMerger();
    for (;;) {
      this.skipWhitespace();
      const c = this.text.charAt(this.pos);
      if (c === '') this.fail("Map is missing terminating '}'");
      if (c === '}') {
        this.pos++;
        break;
      }
      if (c === ',') this.fail('Unable to parse a map entry with no key or value');
      const key = this.item();
      if (key === null || key.value === null) this.fail('Map entry may not have a null key');
      this.skipWhitespace();
      if (this.text.charAt(this.pos) !== ':') this.fail("Map entry is missing ':'");
      this.pos++;
      const value = this.item();
      keys.add(key);
      values.add(value);
      entries.push([key.value, value === null ? null : value.value]);
      this.skipWhitespace();
      const after = this.text.charAt(this.pos);
      if (after === ',') this.pos++;
      else if (after !== '}') this.fail("Map entries missing ',' delimiter");
    }
    const keySchema = keys.schema();
    const valueSchema = values.schema();
    return {
      schema: new SchemaBuilder('map', keySchema, valueSchema).build(),
      value: new Map(entries.map(([k, v]) => [align(keySchema, k), align(valueSchema, v)])),
    };
  }
}

/**
 * The schema and value a string represents (Connect's `Values.parseString`); see the module
 * comment for the rules. Never throws: what cannot be parsed is a string.
 */
export function parseString(text: string): SchemaAndValue {
  const trimmed = javaTrim(text);
  if (trimmed === '') return { schema: Schemas.STRING, value: text };
  // The common header value, a small integer (no temporal form is all digits): typed as
  // parseNumber types it, without a BigDecimal.
  if (SMALL_INTEGER.test(trimmed)) return smallInteger(Number(trimmed) + 0);
  if (trimmed === 'true') return TRUE;
  if (trimmed === 'false') return FALSE;
  if (trimmed === 'null') return NULL_SCHEMA_AND_VALUE;
  const first = trimmed.charAt(0);
  if (first === '[' || first === '{') {
    try {
      const parser = new Parser(trimmed);
      const parsed = first === '[' ? parser.array() : parser.map();
      parser.skipWhitespace();
      if (parser.pos === trimmed.length) return parsed;
    } catch (error) {
      if (!(error instanceof DataError)) throw error;
    }
  }
  if (isDigit(first)) {
    const temporal = parseTemporal(trimmed);
    if (temporal !== null) return temporal;
  }
  if (isDigit(first) || first === '+' || first === '-') {
    const number = parseNumber(trimmed);
    if (number !== null) return number;
  }
  return { schema: Schemas.STRING, value: text };
}
