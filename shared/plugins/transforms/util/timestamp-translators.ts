/**
 * The timestamp representations TimestampConverter converts between (Connect's
 * `TimestampConverter.TRANSLATORS`): `string` (formatted with a SimpleDateFormat pattern, UTC),
 * `unix` (an int64 count of seconds, milliseconds, microseconds or nanoseconds), and the
 * logical `Date`, `Time` and `Timestamp` types (JavaScript Dates).
 */
import {
  DataError,
  LogicalDate,
  LogicalTime,
  LogicalTimestamp,
  type Schema,
  Schemas,
} from 'serverless-connect/connect';
import type { JavaDateFormat } from './java-date-format.js';
import { utcMillis } from './java-date-tokens.js';
import { normalizeInt64 } from './java-numbers.js';
import { className } from './requirements.js';

export type TimestampType = 'string' | 'unix' | 'Date' | 'Time' | 'Timestamp';
export type UnixPrecision = 'nanoseconds' | 'microseconds' | 'milliseconds' | 'seconds';

/** What the translators need from the transformation's config. */
export interface TranslatorConfig {
  /** `null` when no `format` is configured. */
  readonly format: JavaDateFormat | null;
  readonly unixPrecision: UnixPrecision;
}

/** Converts one representation to and from a JavaScript Date. */
export interface TimestampTranslator {
  toRaw(config: TranslatorConfig, value: unknown): Date;
  /** The schema of this representation (optional or required). */
  typeSchema(optional: boolean): Schema;
  toType(config: TranslatorConfig, date: Date): unknown;
}

function requireDate(value: unknown, what: string): Date {
  if (!(value instanceof Date)) {
    throw new DataError(`Expected ${what} to be a java.util.Date, but found ${className(value)}`);
  }
  return value;
}

const UNIT_MILLIS: Readonly<Record<UnixPrecision, bigint>> = {
  nanoseconds: 1_000_000n,
  microseconds: 1_000n,
  milliseconds: 1n,
  seconds: 1n,
};

const INT64_MAX = 2n ** 63n - 1n;

const OPTIONAL_DATE = LogicalDate.builder().optional().build();
const OPTIONAL_TIME = LogicalTime.builder().optional().build();
const OPTIONAL_TIMESTAMP = LogicalTimestamp.builder().optional().build();

export const TRANSLATORS: Readonly<Record<TimestampType, TimestampTranslator>> = {
  string: {
    toRaw(config, value) {
      if (typeof value !== 'string') {
        throw new DataError(
          `Expected string timestamp to be a String, but found ${className(value)}`,
        );
      }
      const format = config.format;
      if (format === null) {
        throw new DataError(
          'TimestampConverter requires format option to be specified when using string timestamps',
        );
      }
      try {
        return format.parse(value);
      } catch (error) {
        throw new DataError(
          `Could not parse timestamp: value (${value}) does not match pattern (${format.pattern})`,
          { cause: error },
        );
      }
    },
    typeSchema: (optional) => (optional ? Schemas.OPTIONAL_STRING : Schemas.STRING),
    toType(config, date) {
      if (config.format === null) {
        throw new DataError(
          'TimestampConverter requires format option to be specified when using string timestamps',
        );
      }
      return config.format.format(date);
    },
  },
  unix: {
    toRaw(config, value) {
      const isInteger = typeof value === 'bigint' || Number.isSafeInteger(value);
      if (!isInteger) {
        throw new DataError(`Expected Unix timestamp to be a Long, but found ${className(value)}`);
      }
      const raw = BigInt(value as number | bigint);
      const millis =
        config.unixPrecision === 'seconds' ? raw * 1000n : raw / UNIT_MILLIS[config.unixPrecision];
      return LogicalTimestamp.toLogical(LogicalTimestamp.schema(), millis);
    },
    typeSchema: (optional) => (optional ? Schemas.OPTIONAL_INT64 : Schemas.INT64),
    toType(config, date) {
      const millis = BigInt(date.getTime());
      const value =
        config.unixPrecision === 'seconds'
          ? millis / 1000n
          : millis * UNIT_MILLIS[config.unixPrecision];
      // Java's TimeUnit conversions saturate at the bounds of a long.
      const clamped =
        value > INT64_MAX ? INT64_MAX : value < -INT64_MAX - 1n ? -INT64_MAX - 1n : value;
      return normalizeInt64(clamped);
    },
  },
  Date: {
    toRaw: (_config, value) => requireDate(value, 'Date'),
    typeSchema: (optional) => (optional ? OPTIONAL_DATE : LogicalDate.schema()),
    toType: (_config, date) =>
      new Date(utcMillis(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate())),
  },
  Time: {
    toRaw: (_config, value) => requireDate(value, 'Time'),
    typeSchema: (optional) => (optional ? OPTIONAL_TIME : LogicalTime.schema()),
    toType: (_config, date) =>
      new Date(
        utcMillis(
          1970,
          0,
          1,
          date.getUTCHours(),
          date.getUTCMinutes(),
          date.getUTCSeconds(),
          date.getUTCMilliseconds(),
        ),
      ),
  },
  Timestamp: {
    toRaw: (_config, value) => requireDate(value, 'Timestamp'),
    typeSchema: (optional) => (optional ? OPTIONAL_TIMESTAMP : LogicalTimestamp.schema()),
    toType: (_config, date) => date,
  },
};

/** The representation a schema declares (Connect's `timestampTypeFromSchema`). */
export function timestampTypeFromSchema(schema: Schema): TimestampType {
  if (schema.name === LogicalTimestamp.LOGICAL_NAME) return 'Timestamp';
  if (schema.name === LogicalDate.LOGICAL_NAME) return 'Date';
  if (schema.name === LogicalTime.LOGICAL_NAME) return 'Time';
  if (schema.type === 'string') return 'string';
  if (schema.type === 'int64') return 'unix';
  throw new DataError(
    `Schema ${String(schema)} does not correspond to a known timestamp type format`,
  );
}

/** The representation of a schemaless value (Connect's `inferTimestampType`). */
export function inferTimestampType(value: unknown): TimestampType {
  if (value instanceof Date) return 'Timestamp';
  if (typeof value === 'bigint' || Number.isSafeInteger(value)) return 'unix';
  if (typeof value === 'string') return 'string';
  throw new DataError(
    `TimestampConverter does not support ${className(value)} objects as timestamps`,
  );
}
