/**
 * Kafka Connect's `org.apache.kafka.connect.storage.SimpleHeaderConverter`, the default
 * `header.converter`: header values are written as strings (`Values.convertToString`) and
 * read back with inferred schemas (`Values.parseString`).
 */
import {
  ConfigDef,
  type HeaderConverter,
  NULL_SCHEMA_AND_VALUE,
  type Schema,
  type SchemaAndValue,
  Schemas,
} from 'serverless-connect/connect';
import { utf8Bytes } from './utf8.js';
import { convertToString } from './values-format.js';
import { parseString } from './values-parse.js';

const CONFIG_DEF = new ConfigDef();
const UTF8_DECODER = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Writes header values as UTF-8 strings (`[1,2]`, `{"a":1}`, `true`, `2024-01-31`) and reads
 * them back as the most specific type: boolean, integer, float, date/time, array, map, or
 * string (see values-parse.ts). Schemas are not written; they are inferred when reading.
 *
 * @example
 * const converter = new SimpleHeaderConverter();
 * converter.toConnectHeader('topic', 'retries', new TextEncoder().encode('3'));
 * // { schema: Schemas.INT8, value: 3 }
 */
export class SimpleHeaderConverter implements HeaderConverter {
  config(): ConfigDef {
    return CONFIG_DEF;
  }

  /** Nothing to configure. */
  configure(_props: Readonly<Record<string, string>>): void {}

  /** The inferred schema and value; a header that is not UTF-8 text is still read as text. */
  toConnectHeader(_topic: string, _headerKey: string, bytes: Uint8Array | null): SchemaAndValue {
    if (bytes === null) return NULL_SCHEMA_AND_VALUE;
    try {
      return parseString(UTF8_DECODER.decode(bytes));
    } catch {
      // As Connect: a value that cannot be parsed is kept as bytes.
      return { schema: Schemas.BYTES, value: bytes };
    }
  }

  /** The UTF-8 string form of `value`; `null` for a null value. DataError for non-Connect data. */
  fromConnectHeader(
    _topic: string,
    _headerKey: string,
    schema: Schema | null,
    value: unknown,
  ): Uint8Array | null {
    if (value === null || value === undefined) return null;
    return utf8Bytes(convertToString(schema, value));
  }
}
