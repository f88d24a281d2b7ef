/**
 * Kafka Connect's number converters, `org.apache.kafka.connect.converters.LongConverter`,
 * `IntegerConverter`, `ShortConverter`, `FloatConverter` and `DoubleConverter` (each a
 * `converter` and a `header_converter`): one number per key, value or header, in the bytes of
 * Kafka's own `LongSerializer`, `IntegerSerializer`, ... (see number-serdes.ts).
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
import {
  DOUBLE_SERDE,
  FLOAT_SERDE,
  INTEGER_SERDE,
  LONG_SERDE,
  type NumberSerde,
  SHORT_SERDE,
} from './number-serdes.js';

/** Connect's `NumberConverterConfig`: `converter.type` only. */
const CONFIG_DEF = newConverterConfigDef();

/**
 * Connect's `NumberConverter`: writes one number with its serde and reads it back with the
 * converter's optional schema.
 *
 * - `fromConnectData` and `fromConnectHeader` look at the value only, never the schema (as
 *   Connect: a long with a `string` schema is written as a long). `null` (or `undefined`)
 *   gives `null`; a value of the wrong type is a DataError.
 * - `toConnectData` and `toConnectHeader` give the optional schema (`Schemas.OPTIONAL_INT64`,
 *   ...) with the value, or with `null` for `null` bytes. Bytes of another length are a
 *   DataError; an empty array is not null.
 */
abstract class NumberConverter<T> implements Converter, HeaderConverter {
  readonly #serde: NumberSerde<T>;
  readonly #schema: Schema;

  protected constructor(serde: NumberSerde<T>, schema: Schema) {
    this.#serde = serde;
    this.#schema = schema;
  }

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
    _schema: Schema | null,
    value: unknown,
  ): Uint8Array | null {
    return this.#serialize(value);
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
    _schema: Schema | null,
    value: unknown,
  ): Uint8Array | null {
    return this.#serialize(value);
  }

  toConnectHeader(_topic: string, _headerKey: string, bytes: Uint8Array | null): SchemaAndValue {
    return this.#deserialize(bytes);
  }

  #serialize(value: unknown): Uint8Array | null {
    if (value === null || value === undefined) return null;
    const serde = this.#serde;
    if (!serde.accepts(value)) {
      throw new DataError(
        `Failed to serialize to ${serde.typeName} (was ${describeValue(value)}, expected ${serde.expected})`,
      );
    }
    const bytes = new Uint8Array(serde.width);
    serde.write(new DataView(bytes.buffer), value);
    return bytes;
  }

  #deserialize(bytes: Uint8Array | null): SchemaAndValue {
    if (bytes === null) return { schema: this.#schema, value: null };
    const serde = this.#serde;
    if (bytes.byteLength !== serde.width) {
      throw new DataError(`Failed to deserialize ${serde.typeName}: ${serde.sizeMessage}`);
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return { schema: this.#schema, value: serde.read(view) };
  }
}

/**
 * 8-byte big-endian longs (Kafka's `LongSerializer`); reads `Schemas.OPTIONAL_INT64`. Writes a
 * safe integer number or a bigint in the int64 range; reads a number when safe, else a bigint.
 *
 * @example
 * const converter = new LongConverter();
 * converter.configure({}, true);
 * converter.fromConnectData('orders', EMPTY_HEADERS, Schemas.INT64, 42); // 00 00 00 00 00 00 00 2a
 */
export class LongConverter extends NumberConverter<number | bigint> {
  constructor() {
    super(LONG_SERDE, Schemas.OPTIONAL_INT64);
  }
}

/** 4-byte big-endian ints (Kafka's `IntegerSerializer`); reads `Schemas.OPTIONAL_INT32`. */
export class IntegerConverter extends NumberConverter<number> {
  constructor() {
    super(INTEGER_SERDE, Schemas.OPTIONAL_INT32);
  }
}

/** 2-byte big-endian shorts (Kafka's `ShortSerializer`); reads `Schemas.OPTIONAL_INT16`. */
export class ShortConverter extends NumberConverter<number> {
  constructor() {
    super(SHORT_SERDE, Schemas.OPTIONAL_INT16);
  }
}

/** 4-byte IEEE 754 floats (Kafka's `FloatSerializer`); reads `Schemas.OPTIONAL_FLOAT32`. */
export class FloatConverter extends NumberConverter<number> {
  constructor() {
    super(FLOAT_SERDE, Schemas.OPTIONAL_FLOAT32);
  }
}

/** 8-byte IEEE 754 doubles (Kafka's `DoubleSerializer`); reads `Schemas.OPTIONAL_FLOAT64`. */
export class DoubleConverter extends NumberConverter<number> {
  constructor() {
    super(DOUBLE_SERDE, Schemas.OPTIONAL_FLOAT64);
  }
}
