/**
 * Kafka Connect's `org.apache.kafka.connect.converters.BooleanConverter` (a `converter` and a
 * `header_converter`): one byte, `01` for true and `00` for false, as Kafka's own
 * `BooleanSerializer` writes it.
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
import { newConverterConfigDef, withConverterType } from './converter-config.js';

/** Connect's `BooleanConverterConfig`: `converter.type` only. */
const CONFIG_DEF = newConverterConfigDef();

const TRUE = 0x01;
const FALSE = 0x00;

/**
 * Writes a boolean as one byte and reads it back with `Schemas.OPTIONAL_BOOLEAN`.
 *
 * - `fromConnectData`: a schema other than `boolean` (or none) is a DataError, even for a null
 *   value; `null` gives `null`; a value that is not a boolean is a DataError.
 * - `toConnectData`: `null` bytes give a null value; bytes other than exactly `00` or `01`
 *   are a DataError (as Kafka's `BooleanDeserializer`).
 *
 * @example
 * const converter = new BooleanConverter();
 * converter.configure({}, false);
 * converter.toConnectData('flags', EMPTY_HEADERS, Uint8Array.of(1));
 * // { schema: Schemas.OPTIONAL_BOOLEAN, value: true }
 */
export class BooleanConverter implements Converter, HeaderConverter {
  config(): ConfigDef {
    return CONFIG_DEF;
  }

  /**
   * Checks `converter.type` (set from `isKey`; `header` when configured as a header converter).
   * There is nothing else to configure.
   */
  configure(props: Readonly<Record<string, string>>, isKey?: boolean): void {
    CONFIG_DEF.parse(withConverterType(props, isKey));
  }

  fromConnectData(
    _topic: string,
    _headers: ReadonlyHeaders,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null {
    return serialize(schema, value);
  }

  toConnectData(
    _topic: string,
    _headers: ReadonlyHeaders,
    bytes: Uint8Array | null,
  ): SchemaAndValue {
    return deserialize(bytes);
  }

  fromConnectHeader(
    _topic: string,
    _headerKey: string,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null {
    return serialize(schema, value);
  }

  toConnectHeader(_topic: string, _headerKey: string, bytes: Uint8Array | null): SchemaAndValue {
    return deserialize(bytes);
  }
}

function serialize(schema: Schema | null, value: unknown): Uint8Array | null {
  if (schema !== null && schema.type !== 'boolean') {
    throw new DataError(`Invalid schema type for BooleanConverter: ${schema.type.toUpperCase()}`);
  }
  if (value === null || value === undefined) return null;
  if (typeof value !== 'boolean') {
    throw new DataError(
      `BooleanConverter is not compatible with objects of type ${describeValue(value)}`,
    );
  }
  return Uint8Array.of(value ? TRUE : FALSE);
}

function deserialize(bytes: Uint8Array | null): SchemaAndValue {
  if (bytes === null) return { schema: Schemas.OPTIONAL_BOOLEAN, value: null };
  if (bytes.byteLength !== 1) {
    throw new DataError(
      'Failed to deserialize boolean: Size of data received by BooleanDeserializer is not 1',
    );
  }
  const byte = bytes[0];
  if (byte === TRUE) return { schema: Schemas.OPTIONAL_BOOLEAN, value: true };
  if (byte === FALSE) return { schema: Schemas.OPTIONAL_BOOLEAN, value: false };
  // Java prints the byte signed: 0xff is -1.
  const signed = ((byte ?? 0) << 24) >> 24;
  throw new DataError(
    `Failed to deserialize boolean: Unexpected byte received by BooleanDeserializer: ${signed}`,
  );
}
