/**
 * The datagen quickstarts: one value schema and one deterministic generator per quickstart
 * (like Confluent's kafka-connect-datagen `orders`, `users`, `pageviews`, plus `sequence`).
 *
 * Every generated record is a pure function of `(seed, partition, seq)`: a small PRNG
 * (murmur3 finaliser to seed, mulberry32 to draw) is seeded from those three numbers, so the
 * same seq always yields the same key and value, on any machine, after any restart.
 *
 * Every value carries its source partition and sequence number, so a checker can verify
 * exactly-once delivery from the output topic alone ({@link parseDatagenRecordIdentity}):
 * `sequence` in its `partition` / `seq` fields, the others in `datagen_partition` /
 * `datagen_seq`. Time fields (`ordertime`, `registertime`, `viewtime`) are plain int64 epoch
 * milliseconds (as Confluent's Avro `long`s), derived from seq: {@link DATAGEN_EPOCH_MS} +
 * (seq − 1) seconds + a random 0–999 ms, so they grow with seq within a partition.
 */
import {
  DataError,
  isPlainObject,
  isStruct,
  type Schema,
  SchemaBuilder,
  Schemas,
  Struct,
} from 'serverless-connect/connect';

/** The quickstart names accepted by the `quickstart` config. */
export type Quickstart = 'orders' | 'users' | 'pageviews' | 'sequence';

export const QUICKSTARTS: readonly Quickstart[] = Object.freeze([
  'orders',
  'users',
  'pageviews',
  'sequence',
] as const);

/** The epoch of generated event times: 2024-01-01T00:00:00Z. */
export const DATAGEN_EPOCH_MS = 1_704_067_200_000;

/** The value fields carrying a record's identity in the orders, users and pageviews quickstarts. */
export const DATAGEN_PARTITION_FIELD = 'datagen_partition';
export const DATAGEN_SEQ_FIELD = 'datagen_seq';
/** The padding field of orders, users and pageviews (`null` unless `payload.bytes` > 0). */
export const DATAGEN_PAYLOAD_FIELD = 'datagen_payload';

/** Where a datagen record came from: its source partition and its sequence number (from 1). */
export interface DatagenRecordIdentity {
  readonly partition: number;
  readonly seq: number;
}

const TWO_POW_32 = 4_294_967_296;

function fmix32(input: number): number {
  let h = input;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function mix(h: number, x: number): number {
  return fmix32((Math.imul(h ^ x, 0x9e3779b1) + 0x7f4a7c15) | 0);
}

/** The low and high 32 bits of a non-negative safe integer or a 64-bit bigint. */
function halves(value: number | bigint): [number, number] {
  if (typeof value === 'bigint') {
    return [Number(BigInt.asUintN(32, value)), Number(BigInt.asUintN(32, value >> 32n))];
  }
  return [value >>> 0, Math.floor(value / TWO_POW_32) >>> 0];
}

/** A small, fast, deterministic PRNG (mulberry32). Not for cryptography. */
export class DatagenRandom {
  #state: number;

  constructor(seed32: number) {
    this.#state = seed32 | 0;
  }

  /** The PRNG of record `seq` of `partition` under `seed`. */
  static forRecord(seed: number | bigint, partition: number, seq: number): DatagenRandom {
    const [seedLo, seedHi] = halves(seed);
    const [seqLo, seqHi] = halves(seq);
    let h = mix(0x243f6a88, seedLo);
    h = mix(h, seedHi);
    h = mix(h, partition >>> 0);
    h = mix(h, seqLo);
    return new DatagenRandom(mix(h, seqHi));
  }

  /** A uniformly distributed unsigned 32-bit integer. */
  nextUint32(): number {
    this.#state = (this.#state + 0x6d2b79f5) | 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** A float in [0, 1). */
  nextFloat(): number {
    return this.nextUint32() / TWO_POW_32;
  }

  /** An integer in [min, max] (both inclusive). */
  nextInt(min: number, max: number): number {
    return min + Math.floor(this.nextFloat() * (max - min + 1));
  }

  /** One of `items` (non-empty). */
  pick<T>(items: readonly [T, ...T[]]): T {
    return items[this.nextInt(0, items.length - 1)] ?? items[0];
  }
}

const PAD_ALPHABET = new TextEncoder().encode(
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
);
const ASCII = new TextDecoder();

/** `length` random characters of a JSON-safe alphabet (no escaping needed). */
function padding(random: DatagenRandom, length: number): string {
  const chars = new Uint8Array(length);
  for (let i = 0; i < length; ) {
    let bits = random.nextUint32();
    for (let k = 0; k < 5 && i < length; k++, i++, bits >>>= 6) {
      chars[i] = PAD_ALPHABET[bits & 63] ?? 0x41;
    }
  }
  return ASCII.decode(chars);
}

function identityFields(builder: SchemaBuilder): SchemaBuilder {
  return builder
    .field(DATAGEN_PARTITION_FIELD, Schemas.INT32)
    .field(DATAGEN_SEQ_FIELD, Schemas.INT64)
    .field(DATAGEN_PAYLOAD_FIELD, Schemas.OPTIONAL_STRING);
}

const ADDRESS_SCHEMA = SchemaBuilder.struct()
  .name('datagen.address')
  .field('city', Schemas.STRING)
  .field('state', Schemas.STRING)
  .field('zipcode', Schemas.INT64)
  .build();

const VALUE_SCHEMAS: Readonly<Record<Quickstart, Schema>> = Object.freeze({
  orders: identityFields(
    SchemaBuilder.struct()
      .name('datagen.orders')
      .field('ordertime', Schemas.INT64)
      .field('orderid', Schemas.INT64)
      .field('itemid', Schemas.STRING)
      .field('orderunits', Schemas.FLOAT64)
      .field('address', ADDRESS_SCHEMA),
  ).build(),
  users: identityFields(
    SchemaBuilder.struct()
      .name('datagen.users')
      .field('registertime', Schemas.INT64)
      .field('userid', Schemas.STRING)
      .field('regionid', Schemas.STRING)
      .field('gender', Schemas.STRING),
  ).build(),
  pageviews: identityFields(
    SchemaBuilder.struct()
      .name('datagen.pageviews')
      .field('viewtime', Schemas.INT64)
      .field('userid', Schemas.STRING)
      .field('pageid', Schemas.STRING),
  ).build(),
  sequence: SchemaBuilder.struct()
    .name('datagen.sequence')
    .field('partition', Schemas.INT32)
    .field('seq', Schemas.INT64)
    .field('payload', Schemas.STRING)
    .build(),
});

/** The value schema of `quickstart` (the same instance on every call). */
export function valueSchemaOf(quickstart: Quickstart): Schema {
  return VALUE_SCHEMAS[quickstart];
}

type Plain = Record<string, unknown>;

/** The key and the value fields (as plain objects, nested for structs) of one record. */
interface PlainRecord {
  readonly key: string;
  readonly value: Plain;
}

function eventTime(random: DatagenRandom, seq: number): number {
  return DATAGEN_EPOCH_MS + (seq - 1) * 1000 + random.nextInt(0, 999);
}

function identity(partition: number, seq: number): Plain {
  return {
    [DATAGEN_PARTITION_FIELD]: partition,
    [DATAGEN_SEQ_FIELD]: seq,
    [DATAGEN_PAYLOAD_FIELD]: null,
  };
}

const GENDERS = ['MALE', 'FEMALE', 'OTHER'] as const;

/**
 * The generators. Keys: orders by `orderid` (partition × 2^32 + seq, unique while
 * seq < 2^32), users by `userid` (a changelog of nine users), pageviews by `viewtime`, and
 * sequence by the source partition, so one source partition lands in one Kafka partition and
 * its order can be checked there (like Kafka's VerifiableSourceTask, keyed by task).
 */
const GENERATORS: Readonly<
  Record<Quickstart, (random: DatagenRandom, partition: number, seq: number) => PlainRecord>
> = {
  orders: (random, partition, seq) => {
    const orderid = partition * TWO_POW_32 + seq;
    return {
      key: String(orderid),
      value: {
        ordertime: eventTime(random, seq),
        orderid,
        itemid: `Item_${random.nextInt(1, 999)}`,
        orderunits: random.nextInt(10, 1000) / 100,
        address: {
          city: `City_${random.nextInt(1, 99)}`,
          state: `State_${random.nextInt(1, 99)}`,
          zipcode: random.nextInt(10000, 99999),
        },
        ...identity(partition, seq),
      },
    };
  },
  users: (random, partition, seq) => {
    const userid = `User_${random.nextInt(1, 9)}`;
    return {
      key: userid,
      value: {
        registertime: eventTime(random, seq),
        userid,
        regionid: `Region_${random.nextInt(1, 9)}`,
        gender: random.pick(GENDERS),
        ...identity(partition, seq),
      },
    };
  },
  pageviews: (random, partition, seq) => {
    const viewtime = eventTime(random, seq);
    return {
      key: String(viewtime),
      value: {
        viewtime,
        userid: `User_${random.nextInt(1, 9)}`,
        pageid: `Page_${random.nextInt(1, 99)}`,
        ...identity(partition, seq),
      },
    };
  },
  sequence: (_random, partition, seq) => ({
    key: String(partition),
    value: { partition, seq, payload: '' },
  }),
};

function toStruct(schema: Schema, plain: Plain): Struct {
  const struct = new Struct(schema);
  for (const field of schema.fields) {
    const value = plain[field.name];
    struct.put(
      field.name,
      field.schema.type === 'struct' && isPlainObject(value)
        ? toStruct(field.schema, value)
        : value,
    );
  }
  return struct;
}

/** One generated record: its string key and its Struct value. */
export interface GeneratedRecord {
  readonly key: string;
  readonly value: Struct;
}

/** What a {@link DatagenGenerator} needs. */
export interface DatagenGeneratorOptions {
  readonly quickstart: Quickstart;
  /** Any 64-bit integer. */
  readonly seed: number | bigint;
  /**
   * Pads each value so that its schemaless JSON form is `payloadBytes` characters long (or
   * as short as it can be, when that is less). `0` pads nothing.
   * @default 0
   */
  readonly payloadBytes?: number;
}

/**
 * Generates the records of one quickstart.
 *
 * @example
 * const gen = new DatagenGenerator({ quickstart: 'orders', seed: 1 });
 * const { key, value } = gen.generate(0, 1); // always the same key and value
 */
export class DatagenGenerator {
  readonly quickstart: Quickstart;
  readonly valueSchema: Schema;
  readonly #seed: number | bigint;
  readonly #payloadBytes: number;

  constructor(options: DatagenGeneratorOptions) {
    this.quickstart = options.quickstart;
    this.valueSchema = valueSchemaOf(options.quickstart);
    this.#seed = options.seed;
    this.#payloadBytes = options.payloadBytes ?? 0;
  }

  /** Record `seq` (≥ 1) of source partition `partition` (≥ 0). */
  generate(partition: number, seq: number): GeneratedRecord {
    const random = DatagenRandom.forRecord(this.#seed, partition, seq);
    const { key, value } = GENERATORS[this.quickstart](random, partition, seq);
    if (this.#payloadBytes > 0) {
      const field = this.quickstart === 'sequence' ? 'payload' : DATAGEN_PAYLOAD_FIELD;
      value[field] = '';
      const length = this.#payloadBytes - JSON.stringify(value).length;
      value[field] = padding(random, Math.max(0, length));
    }
    return { key, value: toStruct(this.valueSchema, value) };
  }
}

/**
 * A non-negative safe integer read from a number, a bigint or a decimal string (how offsets
 * and JSON fields arrive), or `null` when `value` is none.
 */
export function toNonNegativeInteger(value: unknown): number | null {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'bigint') n = Number(value);
  else if (typeof value === 'string' && /^\d+$/.test(value)) n = Number(value);
  else return null;
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

function fieldOf(container: unknown, name: string): unknown {
  if (isStruct(container)) {
    return container.schema.field(name) === null ? undefined : container.getWithoutDefault(name);
  }
  return isPlainObject(container) ? container[name] : undefined;
}

function decode(value: unknown): unknown {
  let text: string;
  if (value instanceof Uint8Array) text = new TextDecoder().decode(value);
  else if (typeof value === 'string') text = value;
  else return value;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new DataError('Not a datagen record: the value is not JSON', { cause: error });
  }
}

/**
 * The identity of a datagen record from its value as a sink or checker sees it: a
 * {@link Struct}, the JSON converter's output parsed (`{schema, payload}` envelope with
 * `schemas.enable=true`, the bare object without), or that JSON as a string or UTF-8 bytes.
 * Reads `datagen_partition`/`datagen_seq`, or `partition`/`seq` for the `sequence` quickstart.
 * Throws DataError when the value carries no valid identity.
 *
 * @example
 * parseDatagenRecordIdentity({ partition: 2, seq: 17, payload: '' }); // { partition: 2, seq: 17 }
 */
export function parseDatagenRecordIdentity(value: unknown): DatagenRecordIdentity {
  let container = decode(value);
  if (
    isPlainObject(container) &&
    Object.hasOwn(container, 'schema') &&
    Object.hasOwn(container, 'payload') &&
    (isPlainObject(container.payload) || isStruct(container.payload))
  ) {
    container = container.payload;
  }
  const rawPartition =
    fieldOf(container, DATAGEN_PARTITION_FIELD) ?? fieldOf(container, 'partition');
  const rawSeq = fieldOf(container, DATAGEN_SEQ_FIELD) ?? fieldOf(container, 'seq');
  const partition = toNonNegativeInteger(rawPartition);
  const seq = toNonNegativeInteger(rawSeq);
  if (partition === null || seq === null || seq < 1) {
    throw new DataError(
      `Not a datagen record: expected a partition (≥ 0) and a seq (≥ 1), got partition=${String(rawPartition)}, seq=${String(rawSeq)}`,
    );
  }
  return { partition, seq };
}
