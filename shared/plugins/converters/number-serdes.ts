/**
 * Kafka's own number serializers and deserializers (`org.apache.kafka.common.serialization`
 * `Long`, `Integer`, `Short`, `Float` and `DoubleSerializer` / `Deserializer`) as data: a
 * value is its big-endian two's complement or IEEE 754 bits at a fixed width, so bytes written
 * here are read by a Java consumer using those classes and the other way round.
 */
import { INT_RANGES, INT64_MAX, INT64_MIN, int64Value } from './int64.js';

/** One of Kafka's number serializer/deserializer pairs. */
export interface NumberSerde<T> {
  /** The name Connect gives the type in messages (`long`, `integer`, `short`, `float`, `double`). */
  readonly typeName: string;
  /** Bytes per value. */
  readonly width: number;
  /** What the deserializer says of a wrong length, word for word. */
  readonly sizeMessage: string;
  /** What a value must be, for messages. */
  readonly expected: string;
  /** Whether `value` is one this serde writes (the data model's representation of the type). */
  accepts(value: unknown): value is T;
  /** Writes `value` at offset 0 of `view` (`width` bytes long). */
  write(view: DataView, value: T): void;
  /** Reads the value at offset 0 of `view` (`width` bytes long). */
  read(view: DataView): T;
}

function isIntegerIn(value: unknown, [min, max]: readonly [number, number]): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/** `LongSerializer` / `LongDeserializer`: 8 bytes. Reads a number when safe, a bigint otherwise. */
export const LONG_SERDE: NumberSerde<number | bigint> = {
  typeName: 'long',
  width: 8,
  sizeMessage: 'Size of data received by LongDeserializer is not 8',
  expected: 'a safe integer number or a bigint in the int64 range',
  accepts: (value): value is number | bigint =>
    typeof value === 'bigint'
      ? value >= INT64_MIN && value <= INT64_MAX
      : typeof value === 'number' && Number.isSafeInteger(value),
  write: (view, value) => view.setBigInt64(0, BigInt(value)),
  read: (view) => int64Value(view.getBigInt64(0)),
};

/** `IntegerSerializer` / `IntegerDeserializer`: 4 bytes. */
export const INTEGER_SERDE: NumberSerde<number> = {
  typeName: 'integer',
  width: 4,
  sizeMessage: 'Size of data received by IntegerDeserializer is not 4',
  expected: 'an integer in [-2147483648, 2147483647]',
  accepts: (value): value is number => isIntegerIn(value, INT_RANGES.int32),
  write: (view, value) => view.setInt32(0, value),
  read: (view) => view.getInt32(0),
};

/** `ShortSerializer` / `ShortDeserializer`: 2 bytes. */
export const SHORT_SERDE: NumberSerde<number> = {
  typeName: 'short',
  width: 2,
  sizeMessage: 'Size of data received by ShortDeserializer is not 2',
  expected: 'an integer in [-32768, 32767]',
  accepts: (value): value is number => isIntegerIn(value, INT_RANGES.int16),
  write: (view, value) => view.setInt16(0, value),
  read: (view) => view.getInt16(0),
};

/**
 * `FloatSerializer` / `FloatDeserializer`: 4 bytes. A number is rounded to the nearest float32
 * (beyond ±3.4028235e38 it becomes ±Infinity), as Java's `(float)` cast does. Like
 * `floatToRawIntBits`, NaN is written with the bits it carries: a NaN read here is written back
 * unchanged, except that a signalling NaN read comes back quiet (`7f800001` → `7fc00001`).
 */
export const FLOAT_SERDE: NumberSerde<number> = {
  typeName: 'float',
  width: 4,
  // Kafka's FloatDeserializer names no class here.
  sizeMessage: 'Size of data received by Deserializer is not 4',
  expected: 'a number',
  accepts: (value): value is number => typeof value === 'number',
  write: (view, value) => view.setFloat32(0, value),
  read: (view) => view.getFloat32(0),
};

/**
 * `DoubleSerializer` / `DoubleDeserializer`: 8 bytes. As `doubleToLongBits`, every NaN is
 * written as the canonical `7ff8000000000000`.
 */
export const DOUBLE_SERDE: NumberSerde<number> = {
  typeName: 'double',
  width: 8,
  // Kafka's DoubleDeserializer names no class here (it does for a ByteBuffer).
  sizeMessage: 'Size of data received by Deserializer is not 8',
  expected: 'a number',
  accepts: (value): value is number => typeof value === 'number',
  write: (view, value) => {
    if (Number.isNaN(value)) {
      view.setUint32(0, 0x7ff80000);
      view.setUint32(4, 0);
    } else {
      view.setFloat64(0, value);
    }
  },
  read: (view) => view.getFloat64(0),
};
