/**
 * Kafka Connect's `org.apache.kafka.connect.converters.ByteArrayConverter` (a `converter` and
 * a `header_converter`): bytes pass through unchanged.
 */
import {
  type ConfigDef,
  type Converter,
  DataError,
  describeValue,
  type HeaderConverter,
  type ReadonlyHeaders,
  type Schema,
  type SchemaAndValue,
  Schemas,
} from 'serverless-connect/connect';
import { newConverterConfigDef } from './converter-config.js';

const CONFIG_DEF = newConverterConfigDef();

/**
 * Passes raw bytes through: `fromConnectData` takes a `bytes` schema (or none) and a
 * Uint8Array (or null), otherwise DataError; `toConnectData` returns the bytes with an
 * optional bytes schema. The bytes are not copied.
 */
export class ByteArrayConverter implements Converter, HeaderConverter {
  config(): ConfigDef {
    return CONFIG_DEF;
  }

  /** Nothing to configure (as in Connect, which ignores the config). */
  configure(_props: Readonly<Record<string, string>>, _isKey?: boolean): void {}

  fromConnectData(
    _topic: string,
    _headers: ReadonlyHeaders,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null {
    return toBytes(schema, value);
  }

  toConnectData(
    _topic: string,
    _headers: ReadonlyHeaders,
    bytes: Uint8Array | null,
  ): SchemaAndValue {
    return { schema: Schemas.OPTIONAL_BYTES, value: bytes };
  }

  fromConnectHeader(
    _topic: string,
    _headerKey: string,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null {
    return toBytes(schema, value);
  }

  toConnectHeader(_topic: string, _headerKey: string, bytes: Uint8Array | null): SchemaAndValue {
    return { schema: Schemas.OPTIONAL_BYTES, value: bytes };
  }
}

function toBytes(schema: Schema | null, value: unknown): Uint8Array | null {
  if (schema !== null && schema.type !== 'bytes') {
    throw new DataError(`Invalid schema type for ByteArrayConverter: ${schema.type.toUpperCase()}`);
  }
  if (value === null || value === undefined) return null;
  if (!(value instanceof Uint8Array)) {
    throw new DataError(
      `ByteArrayConverter is not compatible with objects of type ${describeValue(value)}`,
    );
  }
  return value;
}
