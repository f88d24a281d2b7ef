/**
 * Kafka Connect's `org.apache.kafka.connect.json.JsonConverter`, byte-compatible with it: the
 * same envelope, schema JSON, key order, number formats and escapes (checked against vectors
 * written by Connect 4.4.0 itself, see test/fixtures/README.md).
 */
import {
  CaseInsensitiveValidString,
  type ConfigDef,
  type Converter,
  DataError,
  type HeaderConverter,
  NULL_SCHEMA_AND_VALUE,
  type ReadonlyHeaders,
  type Schema,
  type SchemaAndValue,
} from 'serverless-connect/connect';
import { newConverterConfigDef, withConverterType } from './converter-config.js';
import { JsonDecoder } from './json-decode.js';
import { type DecimalFormat, type JsonCodecOptions, JsonEncoder } from './json-encode.js';
import { parseJson } from './json-text.js';
import { utf8Between, utf8Bytes } from './utf8.js';

export const SCHEMAS_ENABLE_CONFIG = 'schemas.enable';
export const SCHEMAS_CACHE_SIZE_CONFIG = 'schemas.cache.size';
export const DECIMAL_FORMAT_CONFIG = 'decimal.format';
export const REPLACE_NULL_WITH_DEFAULT_CONFIG = 'replace.null.with.default';

/** Connect's `JsonConverterConfig`: `converter.type` plus the four JSON settings. */
export const JSON_CONVERTER_CONFIG_DEF: ConfigDef = newConverterConfigDef()
  .define({
    name: SCHEMAS_ENABLE_CONFIG,
    type: 'BOOLEAN',
    defaultValue: true,
    importance: 'HIGH',
    documentation: 'Include schemas within each of the serialized values and keys.',
    group: 'Schemas',
    orderInGroup: 0,
    width: 'MEDIUM',
    displayName: 'Enable Schemas',
  })
  .define({
    name: SCHEMAS_CACHE_SIZE_CONFIG,
    type: 'INT',
    defaultValue: 1000,
    importance: 'HIGH',
    documentation: 'The maximum number of schemas that can be cached in this converter instance.',
    group: 'Schemas',
    orderInGroup: 1,
    width: 'MEDIUM',
    displayName: 'Schema Cache Size',
  })
  .define({
    name: DECIMAL_FORMAT_CONFIG,
    type: 'STRING',
    defaultValue: 'BASE64',
    validator: CaseInsensitiveValidString.in('BASE64', 'NUMERIC'),
    importance: 'LOW',
    documentation:
      "Controls which format this converter will serialize decimals in. This value is case insensitive and can be either 'BASE64' (default) or 'NUMERIC'",
    group: 'Serialization',
    orderInGroup: 0,
    width: 'MEDIUM',
    displayName: 'Decimal Format',
  })
  .define({
    name: REPLACE_NULL_WITH_DEFAULT_CONFIG,
    type: 'BOOLEAN',
    defaultValue: true,
    importance: 'LOW',
    documentation:
      'Whether to replace fields that have a default value and that are null to the default value. When set to true, the default value is used, otherwise null is used.',
    group: 'Serialization',
    orderInGroup: 1,
    width: 'MEDIUM',
    displayName: 'Replace null with default',
  });

const ENVELOPE_REQUIRED =
  'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter configuration.';

/**
 * Where a schemaless object or array value keeps the bytes it was read from, when they are
 * exactly what the converter writes for it (see `ParsedJson.canonical`), so that writing the
 * value again as JSON can take them as they are. A module-private symbol property (a WeakMap
 * costs several times the parse of a small record): invisible to the Map's or array's entries,
 * and not carried by copies. Values are never mutated once converted (the Transformation
 * contract; a changed record carries a new value object), so the bytes stay true.
 */
const SOURCE_JSON: unique symbol = Symbol('serverless-connect.sourceJson');

/**
 * The JSON bytes a schemaless object or array `value` was read from by a JsonConverter, when
 * they are exactly what `serializeToString(null, value)` writes (UTF-8); `undefined` otherwise.
 */
export function sourceJsonOf(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const source = (value as { [SOURCE_JSON]?: unknown })[SOURCE_JSON];
  return source instanceof Uint8Array ? source : undefined;
}

/** The parsed settings of a {@link JsonConverter}. */
export interface JsonConverterSettings extends JsonCodecOptions {
  readonly schemasEnabled: boolean;
  readonly converterType: 'key' | 'value' | 'header';
}

/**
 * Converts between Connect data and JSON, as Kafka Connect's JsonConverter (a `converter` and
 * a `header_converter`). With `schemas.enable=true` (the default) it writes and requires the
 * envelope `{"schema":…,"payload":…}`; without, it writes the payload alone and infers types
 * when reading (integers int64, other numbers float64, objects maps with string keys).
 *
 * Deviations from Connect, all stricter or more precise: JSON of the wrong kind for the schema
 * (a string for an int32) is a DataError instead of a silent `0`/`null`; integers are exact up
 * to the int64 range and rejected beyond it; trailing content after the JSON value is an
 * error; `"NaN"`/`"Infinity"` read back as floats; object keys keep their order.
 * Schemaless floats with integral values come back as JS numbers and are written as integers
 * (`2.0` → `2`): a JS number does not remember Java's `Double`.
 *
 * @example
 * const converter = new JsonConverter();
 * converter.configure({ 'schemas.enable': 'false' }, false);
 * const bytes = converter.fromConnectData('topic', EMPTY_HEADERS, null, new Map([['id', 7]]));
 * // bytes hold {"id":7}
 */
export class JsonConverter implements Converter, HeaderConverter {
  #settings: JsonConverterSettings;
  #encoder: JsonEncoder;
  #decoder: JsonDecoder;
  #envelopeSchema: Schema | null = null;
  #envelopePrefix: Uint8Array = new Uint8Array();

  /** A converter with the default settings (as a value converter) until configured. */
  constructor() {
    this.#settings = JsonConverter.parseSettings({}, false);
    this.#encoder = new JsonEncoder(this.#settings);
    this.#decoder = new JsonDecoder(this.#settings);
  }

  /** Parses a JsonConverter config; ConfigError with Kafka's messages when invalid. */
  static parseSettings(
    props: Readonly<Record<string, string>>,
    isKey: boolean | undefined,
  ): JsonConverterSettings {
    const parsed = JSON_CONVERTER_CONFIG_DEF.parse(withConverterType(props, isKey));
    return {
      converterType: parsed['converter.type'] as JsonConverterSettings['converterType'],
      schemasEnabled: parsed[SCHEMAS_ENABLE_CONFIG] as boolean,
      cacheSize: parsed[SCHEMAS_CACHE_SIZE_CONFIG] as number,
      decimalFormat: String(parsed[DECIMAL_FORMAT_CONFIG]).toUpperCase() as DecimalFormat,
      replaceNullWithDefault: parsed[REPLACE_NULL_WITH_DEFAULT_CONFIG] as boolean,
    };
  }

  config(): ConfigDef {
    return JSON_CONVERTER_CONFIG_DEF;
  }

  /**
   * Configures the converter; `isKey` is given when it converts keys or values and left out
   * for a header converter (then `converter.type` defaults to `header`). Resets the caches.
   */
  configure(props: Readonly<Record<string, string>>, isKey?: boolean): void {
    this.#settings = JsonConverter.parseSettings(props, isKey);
    this.#encoder = new JsonEncoder(this.#settings);
    this.#decoder = new JsonDecoder(this.#settings);
    this.#envelopeSchema = null;
  }

  /** The settings in force. */
  get settings(): JsonConverterSettings {
    return this.#settings;
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

  /** The JSON text for `schema` and `value`, or `null` when both are null (a tombstone). */
  serializeToString(schema: Schema | null, value: unknown): string | null {
    if (schema === null && (value === null || value === undefined)) return null;
    return this.#settings.schemasEnabled
      ? this.#encoder.envelope(schema, value)
      : this.#encoder.value(schema, value);
  }

  /** The JSON form of a schema, as written in the envelope (Connect's `asJsonSchema`). */
  schemaJson(schema: Schema): string {
    return this.#encoder.schema(schema);
  }

  #serialize(schema: Schema | null, value: unknown): Uint8Array | null {
    if (schema === null || !this.#settings.schemasEnabled) {
      const text = this.serializeToString(schema, value);
      return text === null ? null : utf8Bytes(text);
    }
    // The envelope's schema part is encoded once per schema (the last one is kept).
    const payload = this.#encoder.value(schema, value);
    if (this.#envelopeSchema !== schema) {
      this.#envelopePrefix = utf8Bytes(`{"schema":${this.#encoder.schema(schema)},"payload":`);
      this.#envelopeSchema = schema;
    }
    return utf8Between(this.#envelopePrefix, payload, 0x7d); // }
  }

  #deserialize(bytes: Uint8Array | null): SchemaAndValue {
    if (bytes === null) return NULL_SCHEMA_AND_VALUE;
    if (!this.#settings.schemasEnabled) {
      const parsed = parseJson(bytes);
      const value = this.#decoder.value(null, parsed.root);
      if (parsed.canonical && typeof value === 'object' && value !== null) {
        (value as { [SOURCE_JSON]?: Uint8Array })[SOURCE_JSON] = bytes;
      }
      return { schema: null, value };
    }
    // The schema is kept as text, to be looked up in the schema cache before it is parsed.
    const { root, deferred } = parseJson(bytes, {
      key: 'schema',
      expected: this.#decoder.lastSchemaText,
    });
    if (!(root instanceof Map) || root.size !== 2 || !root.has('schema') || !root.has('payload')) {
      throw new DataError(ENVELOPE_REQUIRED);
    }
    const schema = this.#decoder.schemaFromText(deferred ?? 'null');
    return { schema, value: this.#decoder.value(schema, root.get('payload')) };
  }
}
