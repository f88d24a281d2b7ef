/**
 * Kafka Connect's `org.apache.kafka.connect.storage.StringConverter` (a `converter` and a
 * `header_converter`).
 */
import {
  type ConfigDef,
  ConfigError,
  type Converter,
  type HeaderConverter,
  type ReadonlyHeaders,
  type Schema,
  type SchemaAndValue,
  Schemas,
} from 'serverless-connect/connect';
import { type Charset, charsetFor, SUPPORTED_CHARSETS } from './charsets.js';
import { newConverterConfigDef, withConverterType } from './converter-config.js';
import { javaToString } from './java-to-string.js';

export const ENCODING_CONFIG = 'converter.encoding';

/** Connect's `StringConverterConfig`: `converter.type` and `converter.encoding`. */
export const STRING_CONVERTER_CONFIG_DEF: ConfigDef = newConverterConfigDef().define({
  name: ENCODING_CONFIG,
  type: 'STRING',
  defaultValue: 'UTF-8',
  importance: 'HIGH',
  documentation: 'The name of the Java character set to use for encoding strings as byte arrays.',
  width: 'MEDIUM',
  displayName: 'Encoding',
});

function parseCharset(props: Readonly<Record<string, string>>, isKey?: boolean): Charset {
  const parsed = STRING_CONVERTER_CONFIG_DEF.parse(withConverterType(props, isKey));
  const name = String(parsed[ENCODING_CONFIG]);
  const charset = charsetFor(name);
  if (charset === null) {
    throw new ConfigError(
      `Invalid value ${name} for configuration ${ENCODING_CONFIG}: Unsupported encoding (supported: ${SUPPORTED_CHARSETS.join(', ')})`,
      ENCODING_CONFIG,
    );
  }
  return charset;
}

/**
 * Writes any value as its Java `toString()` (the schema is only used to print floats as Java
 * does; bytes print as base64, dates in UTC), and reads bytes back as an optional string.
 * `converter.encoding` (default UTF-8) picks the charset: UTF-8, UTF-16, UTF-16BE, UTF-16LE,
 * ISO-8859-1 or US-ASCII (other Java charsets are rejected with a ConfigError).
 */
export class StringConverter implements Converter, HeaderConverter {
  #charset: Charset = parseCharset({}, false);

  config(): ConfigDef {
    return STRING_CONVERTER_CONFIG_DEF;
  }

  /** `isKey` is left out when configured as a header converter. */
  configure(props: Readonly<Record<string, string>>, isKey?: boolean): void {
    this.#charset = parseCharset(props, isKey);
  }

  /** The charset in force. */
  get encoding(): string {
    return this.#charset.name;
  }

  fromConnectData(
    _topic: string,
    _headers: ReadonlyHeaders,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null {
    return this.#serialize(schema, value);
  }

  toConnectData(
    _topic: string,
    _headers: ReadonlyHeaders,
    bytes: Uint8Array | null,
  ): SchemaAndValue {
    return this.#deserialize(bytes);
  }

  fromConnectHeader(
    _topic: string,
    _headerKey: string,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null {
    return this.#serialize(schema, value);
  }

  toConnectHeader(_topic: string, _headerKey: string, bytes: Uint8Array | null): SchemaAndValue {
    return this.#deserialize(bytes);
  }

  #serialize(schema: Schema | null, value: unknown): Uint8Array | null {
    if (value === null || value === undefined) return null;
    return this.#charset.encode(javaToString(value, schema));
  }

  #deserialize(bytes: Uint8Array | null): SchemaAndValue {
    return {
      schema: Schemas.OPTIONAL_STRING,
      value: bytes === null ? null : this.#charset.decode(bytes),
    };
  }
}
