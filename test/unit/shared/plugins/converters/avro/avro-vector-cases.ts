/**
 * The cases of test/fixtures/avro-vectors.json: Connect schemas and values. `npm run`-free
 * regeneration: `bash scripts/vectors/generate.sh` writes each case's Avro schema (ours) and its
 * datum in Avro's JSON encoding (scripts/vectors/avro-cases.ts), then Apache Avro's Java library
 * parses them and writes the schema back, its Parsing Canonical Form and the binary encoding
 * (scripts/vectors/AvroVectors.java).
 */
import {
  BigDecimal,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
} from '../../../../../../shared/connect/logical-types.js';
import { type Schema, SchemaBuilder, Schemas } from '../../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../../shared/connect/struct.js';
import type { AvroDataOptions } from '../../../../../../shared/plugins/converters/avro/avro-data-options.js';

export interface AvroCase {
  readonly name: string;
  readonly schema: Schema;
  readonly value: unknown;
  readonly options?: Partial<AvroDataOptions>;
}

const ADDRESS = SchemaBuilder.struct()
  .name('com.example.Address')
  .field('street', Schemas.STRING)
  .field('zip', Schemas.OPTIONAL_INT32)
  .build();

const PERSON = SchemaBuilder.struct()
  .name('com.example.Person')
  .version(3)
  .doc('a person')
  .parameter('owner', 'team-a')
  .field('name', Schemas.STRING)
  .field('age', SchemaBuilder.int8().optional().defaultValue(7))
  .field('home', ADDRESS)
  .field(
    'work',
    SchemaBuilder.struct()
      .name('com.example.Address')
      .field('street', Schemas.STRING)
      .field('zip', Schemas.OPTIONAL_INT32)
      .optional(),
  )
  .field('balance', LogicalDecimal.schema(2))
  .field('born', LogicalDate.schema())
  .field('wakes', LogicalTime.schema())
  .field('seen', LogicalTimestamp.builder().optional())
  .field('scores', SchemaBuilder.map(Schemas.STRING, Schemas.INT64))
  .field('names', SchemaBuilder.map(Schemas.INT32, Schemas.STRING))
  .field('aliases', SchemaBuilder.array(Schemas.OPTIONAL_STRING))
  .field('photo', Schemas.OPTIONAL_BYTES)
  .build();

const UNNAMED = SchemaBuilder.struct()
  .field('inner', SchemaBuilder.struct().field('n', Schemas.INT32))
  .field('flag', Schemas.BOOLEAN)
  .build();

const DEFAULTS = SchemaBuilder.struct()
  .name('com.example.Defaults')
  .field('s', SchemaBuilder.string().defaultValue('hé "x"'))
  .field('d', SchemaBuilder.float64().defaultValue(2.0))
  .field('f', SchemaBuilder.float32().defaultValue(0.1))
  .field('b', SchemaBuilder.bool().defaultValue(true))
  .field('raw', SchemaBuilder.bytes().defaultValue(Uint8Array.of(0, 0xff, 0x41)))
  .field('l', SchemaBuilder.int64().defaultValue(-5))
  .field('list', SchemaBuilder.array(Schemas.INT32).defaultValue([1, 2]))
  .build();

const COLOR = SchemaBuilder.string()
  .name('com.example.Color')
  .parameter('io.confluent.connect.avro.Enum', 'com.example.Color')
  .parameter('io.confluent.connect.avro.Enum.RED', 'RED')
  .parameter('io.confluent.connect.avro.Enum.GREEN', 'GREEN')
  .parameter('io.confluent.connect.avro.Enum.BLUE', 'BLUE')
  .build();

const PAINT = SchemaBuilder.struct()
  .name('com.example.Paint')
  .field('color', COLOR)
  .field('alt', COLOR)
  .build();

const UNION = SchemaBuilder.struct()
  .name('io.confluent.connect.avro.Union')
  .field('int', Schemas.OPTIONAL_INT32)
  .field('string', Schemas.OPTIONAL_STRING)
  .field(
    'Address',
    SchemaBuilder.struct()
      .name('com.example.Address')
      .field('street', Schemas.STRING)
      .field('zip', Schemas.OPTIONAL_INT32)
      .optional(),
  )
  .build();

const HOLDER = SchemaBuilder.struct().name('com.example.Holder').field('u', UNION).build();

const NAMED_MAP = SchemaBuilder.map(Schemas.INT64, Schemas.FLOAT64)
  .name('com.example.Prices')
  .build();

const PRECISE = LogicalDecimal.builder(3).parameter('connect.decimal.precision', '10').build();

export const AVRO_CASES: readonly AvroCase[] = [
  { name: 'int8', schema: Schemas.INT8, value: -12 },
  { name: 'int16', schema: Schemas.INT16, value: 31000 },
  { name: 'int32 min', schema: Schemas.INT32, value: -2147483648 },
  { name: 'int64 max', schema: Schemas.INT64, value: 9223372036854775807n },
  { name: 'int64 min', schema: Schemas.INT64, value: -9223372036854775808n },
  { name: 'int64 small', schema: Schemas.INT64, value: 1234567 },
  { name: 'float32', schema: Schemas.FLOAT32, value: 1.5 },
  { name: 'float64', schema: Schemas.FLOAT64, value: Math.PI },
  { name: 'boolean', schema: Schemas.BOOLEAN, value: true },
  {
    name: 'string unicode',
    schema: Schemas.STRING,
    value: 'h\u00e9llo "w\u00f6rld"\n\u2603 \ud83d\ude00',
  },
  { name: 'bytes', schema: Schemas.BYTES, value: Uint8Array.of(0, 1, 2, 255, 128) },
  { name: 'optional string null', schema: Schemas.OPTIONAL_STRING, value: null },
  { name: 'optional string', schema: Schemas.OPTIONAL_STRING, value: 'x' },
  {
    name: 'optional int32 with default',
    schema: SchemaBuilder.int32().optional().defaultValue(42).build(),
    value: 5,
  },
  { name: 'array of int32', schema: SchemaBuilder.array(Schemas.INT32).build(), value: [1, -2, 3] },
  {
    name: 'map with string keys',
    schema: SchemaBuilder.map(Schemas.STRING, Schemas.INT32).build(),
    value: new Map([['one', 1]]),
  },
  {
    name: 'map with int keys',
    schema: SchemaBuilder.map(Schemas.INT32, Schemas.STRING).build(),
    value: new Map([
      [1, 'one'],
      [2, 'two'],
    ]),
  },
  { name: 'named map with long keys', schema: NAMED_MAP, value: new Map([[10n ** 15n, 2.5]]) },
  { name: 'decimal', schema: LogicalDecimal.schema(2), value: new BigDecimal(-12345n, 2) },
  { name: 'decimal with precision', schema: PRECISE, value: new BigDecimal(1234567n, 3) },
  { name: 'date', schema: LogicalDate.schema(), value: new Date(Date.UTC(2024, 1, 29)) },
  { name: 'time', schema: LogicalTime.schema(), value: new Date(45_296_789) },
  {
    name: 'timestamp',
    schema: LogicalTimestamp.schema(),
    value: new Date(Date.UTC(2024, 1, 29, 12, 30, 15, 123)),
  },
  {
    name: 'struct person',
    schema: PERSON,
    value: new Struct(PERSON)
      .put('name', 'ann')
      .put('home', new Struct(ADDRESS).put('street', 'Main St').put('zip', 12345))
      .put('work', null)
      .put('balance', new BigDecimal(99n, 2))
      .put('born', new Date(Date.UTC(1990, 4, 17)))
      .put('wakes', new Date(6 * 3600 * 1000))
      .put('seen', new Date(Date.UTC(2024, 0, 1)))
      .put('scores', new Map([['math', 10]]))
      .put('names', new Map([[7, 'seven']]))
      .put('aliases', ['a', null])
      .put('photo', Uint8Array.of(9, 8)),
  },
  {
    name: 'unnamed structs',
    schema: UNNAMED,
    value: new Struct(UNNAMED)
      .put('inner', new Struct(UNNAMED.fields[0]?.schema as Schema).put('n', 3))
      .put('flag', false),
  },
  { name: 'defaults', schema: DEFAULTS, value: new Struct(DEFAULTS) },
  {
    name: 'enum (enhanced)',
    schema: PAINT,
    value: new Struct(PAINT).put('color', 'GREEN').put('alt', 'BLUE'),
    options: { enhancedSchemaSupport: true },
  },
  {
    name: 'enum as string',
    schema: PAINT,
    value: new Struct(PAINT).put('color', 'GREEN').put('alt', 'RED'),
  },
  {
    name: 'union',
    schema: HOLDER,
    value: new Struct(HOLDER).put('u', new Struct(UNION).put('string', 'yes')),
  },
];
