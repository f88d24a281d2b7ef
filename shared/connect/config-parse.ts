/**
 * Parsing and printing of config values as Kafka's `ConfigDef` does: `parseType`,
 * `convertToString`, the {@link Password} wrapper and Kafka's error messages. Used by
 * {@link ConfigDef} (config-def.ts), which re-exports everything here.
 *
 * `LONG` values are a `number` when they are safe integers and a `bigint` beyond
 * ±(2^53 − 1), so every Java long round-trips exactly; `Number(value)` serves callers that
 * only need magnitudes (timeouts).
 */
import { ConfigError } from './errors.js';

/** The type of a config value (Kafka's `ConfigDef.Type`). */
export type ConfigType =
  | 'BOOLEAN'
  | 'STRING'
  | 'INT'
  | 'SHORT'
  | 'LONG'
  | 'DOUBLE'
  | 'LIST'
  | 'CLASS'
  | 'PASSWORD';
/** How much a user is likely to need to change a key. */
export type Importance = 'HIGH' | 'MEDIUM' | 'LOW';
/** The display width of a value in UIs. */
export type Width = 'NONE' | 'SHORT' | 'MEDIUM' | 'LONG';

/** Input config maps: `null` values are kept (REST `null`), `undefined` counts as absent. */
export type ConfigProps = Readonly<Record<string, string | null | undefined>>;

/** Marks a key without a default: it is required. */
export const NO_DEFAULT: unique symbol = Symbol('ConfigDef.NO_DEFAULT');

/** Printed in place of every secret value. */
export const HIDDEN = '[hidden]';

/**
 * A secret value. It prints `[hidden]` through `toString`, `toJSON`, template literals and
 * Node's `util.inspect`; only {@link Password.value} returns the secret.
 */
export class Password {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The secret itself. Never log it. */
  value(): string {
    return this.#value;
  }

  equals(other: unknown): boolean {
    return other instanceof Password && other.#value === this.#value;
  }

  toString(): string {
    return HIDDEN;
  }

  toJSON(): string {
    return HIDDEN;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return HIDDEN;
  }
}

/** Renders a value the way Java's string concatenation would, hiding passwords. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(formatValue).join(', ')}]`;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'object' && !(value instanceof Password)) {
    return Object.prototype.toString.call(value);
  }
  return String(value);
}

/** Kafka's `ConfigException(name, value, message)`: "Invalid value V for configuration N: M". */
export function invalidValue(name: string, value: unknown, message?: string): ConfigError {
  const suffix = message === undefined ? '' : `: ${message}`;
  return new ConfigError(
    `Invalid value ${formatValue(value)} for configuration ${name}${suffix}`,
    name,
  );
}

/** Kafka's message for an absent key that has no default. */
export function missingRequired(name: string): ConfigError {
  return new ConfigError(
    `Missing required configuration "${name}" which has no default value.`,
    name,
  );
}

/** Java's `String.trim()`: strips every char ≤ U+0020 from both ends. */
export function javaTrim(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) <= 0x20) start++;
  while (end > start && s.charCodeAt(end - 1) <= 0x20) end--;
  return s.slice(start, end);
}

const LIST_SEPARATOR = /[ \t\n\v\f\r]*,[ \t\n\v\f\r]*/;
const INTEGER = /^[+-]?\d+$/;
const DOUBLE = /^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?)$/;
const LIMITS = {
  SHORT: [-32768n, 32767n],
  INT: [-2147483648n, 2147483647n],
  LONG: [-9223372036854775808n, 9223372036854775807n],
} as const;

function parseInteger(
  name: string,
  raw: unknown,
  text: string,
  type: 'SHORT' | 'INT' | 'LONG',
): number | bigint {
  const [min, max] = LIMITS[type];
  if (!INTEGER.test(text)) throw invalidValue(name, raw, `Not a number of type ${type}`);
  const n = BigInt(text);
  if (n < min || n > max) throw invalidValue(name, raw, `Not a number of type ${type}`);
  return type === 'LONG' &&
    (n > BigInt(Number.MAX_SAFE_INTEGER) || n < -BigInt(Number.MAX_SAFE_INTEGER))
    ? n
    : Number(n);
}

function typeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

function parseTyped(name: string, value: unknown, type: ConfigType): unknown {
  const shown = type === 'PASSWORD' ? HIDDEN : value;
  const expected = (what: string) =>
    invalidValue(name, shown, `Expected value to be ${what}, but it was a ${typeName(value)}`);
  switch (type) {
    case 'BOOLEAN':
      if (typeof value === 'boolean') return value;
      throw invalidValue(name, value, 'Expected value to be either true or false');
    case 'PASSWORD':
      if (value instanceof Password) return value;
      throw expected('a string');
    case 'STRING':
      throw expected('a string');
    case 'INT':
    case 'SHORT':
    case 'LONG': {
      if (typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value))) {
        return parseInteger(name, value, value.toString(), type);
      }
      const what = {
        INT: 'a 32-bit integer',
        SHORT: 'a 16-bit integer (short)',
        LONG: 'a 64-bit integer (long)',
      };
      throw expected(what[type]);
    }
    case 'DOUBLE':
      if (typeof value === 'number') return value;
      if (typeof value === 'bigint') return Number(value);
      throw expected('a double');
    case 'LIST':
      if (Array.isArray(value)) return [...value];
      throw invalidValue(name, value, 'Expected a comma separated list.');
    case 'CLASS':
      throw invalidValue(name, value, 'Expected a Class instance or class name.');
  }
}

function parseString(name: string, raw: string, type: ConfigType): unknown {
  const trimmed = javaTrim(raw);
  switch (type) {
    case 'BOOLEAN': {
      const lower = trimmed.toLowerCase();
      if (lower === 'true') return true;
      if (lower === 'false') return false;
      throw invalidValue(name, raw, 'Expected value to be either true or false');
    }
    case 'PASSWORD':
      return new Password(trimmed);
    case 'STRING':
      return trimmed;
    case 'INT':
    case 'SHORT':
    case 'LONG':
      return parseInteger(name, raw, trimmed, type);
    case 'DOUBLE': {
      if (!DOUBLE.test(trimmed)) throw invalidValue(name, raw, 'Not a number of type DOUBLE');
      const text = trimmed.replace(/[fFdD]$/, '');
      return text.endsWith('NaN') ? Number.NaN : Number(text);
    }
    case 'LIST':
      return trimmed === '' ? [] : trimmed.split(LIST_SEPARATOR);
    case 'CLASS':
      if (trimmed === '') throw invalidValue(name, raw, `Class ${raw} could not be found.`);
      return trimmed;
  }
}

/**
 * Parses one value by type (Kafka's `ConfigDef.parseType`). Strings are parsed; values that
 * already have the type (numbers, booleans, string arrays, {@link Password}) pass through;
 * JSON numbers and booleans given to string-like types are coerced to strings, as Connect's
 * REST layer does. `null`/`undefined` parse to `null`. Throws {@link ConfigError} otherwise.
 */
export function parseType(name: string, value: unknown, type: ConfigType): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return parseString(name, value, type);
  const stringLike =
    type === 'STRING' || type === 'PASSWORD' || type === 'CLASS' || type === 'LIST';
  const primitive =
    typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint';
  if (stringLike && primitive) return parseString(name, String(value), type);
  return parseTyped(name, value, type);
}

/** Java's `Double.toString`, so defaults and values print as Connect prints them. */
export function javaDoubleToString(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(n);
  if (abs >= 1e-3 && abs < 1e7) {
    const plain = String(n);
    return plain.includes('.') ? plain : `${plain}.0`;
  }
  const [mantissa = '', exponent = ''] = n.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${exponent.replace('+', '')}`;
}

/**
 * Renders a parsed value as Connect does in REST output (Kafka's `ConfigDef.convertToString`):
 * lists comma-joined, passwords `[hidden]`, `null` for `null`. `type` null means undeclared.
 */
export function convertToString(value: unknown, type: ConfigType | null): string | null {
  if (value === null || value === undefined) return null;
  if (type === 'LIST' && Array.isArray(value)) {
    return value
      .map((item) => (item === null || item === undefined ? 'null' : String(item)))
      .join(',');
  }
  if (type === 'DOUBLE' && typeof value === 'number') return javaDoubleToString(value);
  if (type === 'PASSWORD') return HIDDEN;
  return formatValue(value);
}
