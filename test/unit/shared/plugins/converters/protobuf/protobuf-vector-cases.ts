/**
 * The Protobuf vector cases: Connect schemas and values that scripts/vectors/protobuf-cases.ts
 * hands to protobuf's Java library (ProtobufVectors.java) and that protobuf-vectors.test.ts
 * checks against what Java wrote (test/fixtures/protobuf-vectors.json).
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
import {
  DEFAULT_PROTOBUF_DATA_OPTIONS,
  type ProtobufDataOptions,
} from '../../../../../../shared/plugins/converters/protobuf/protobuf-data-options.js';

export interface ProtobufCase {
  readonly name: string;
  readonly schema: Schema;
  readonly value: unknown;
  readonly options?: Partial<ProtobufDataOptions>;
}

export function optionsOf(c: ProtobufCase): ProtobufDataOptions & { cacheSize: number } {
  return { ...DEFAULT_PROTOBUF_DATA_OPTIONS, ...c.options, cacheSize: 10 };
}

const ENUM = 'io.confluent.connect.protobuf.Enum';
const TAG = 'io.confluent.connect.protobuf.Tag';

const scalars = SchemaBuilder.struct()
  .name('vectors.Scalars')
  .field('i8', Schemas.INT8)
  .field('i16', Schemas.INT16)
  .field('i32', Schemas.INT32)
  .field('i64', Schemas.INT64)
  .field('f32', Schemas.FLOAT32)
  .field('f64', Schemas.FLOAT64)
  .field('flag', Schemas.BOOLEAN)
  .field('text', Schemas.STRING)
  .field('data', Schemas.BYTES)
  .build();

const address = SchemaBuilder.struct()
  .name('vectors.Address')
  .field('street', Schemas.STRING)
  .field('zip', Schemas.OPTIONAL_INT32)
  .build();

const color = SchemaBuilder.string()
  .name('Color')
  .parameter(ENUM, 'Color')
  .parameter(`${ENUM}.RED`, '0')
  .parameter(`${ENUM}.GREEN`, '1')
  .parameter(`${ENUM}.BLUE`, '2')
  .optional()
  .build();

const union = SchemaBuilder.struct()
  .name('io.confluent.connect.protobuf.Union.choice')
  .field('text_choice', SchemaBuilder.string().optional().parameter(TAG, '3'))
  .field('number_choice', SchemaBuilder.int64().optional().parameter(TAG, '4'))
  .optional()
  .build();

const collections = SchemaBuilder.struct()
  .name('vectors.Collections')
  .field('numbers', SchemaBuilder.array(Schemas.INT32).build())
  .field('names', SchemaBuilder.array(Schemas.STRING).build())
  .field('attrs', SchemaBuilder.map(Schemas.STRING, Schemas.INT64).build())
  .field('by_id', SchemaBuilder.map(Schemas.INT32, address).build())
  .field('addresses', SchemaBuilder.array(address).build())
  .build();

const logical = SchemaBuilder.struct()
  .name('vectors.Logical')
  .field('amount', LogicalDecimal.builder(2).parameter('connect.decimal.precision', '10').build())
  .field('negative', LogicalDecimal.schema(3))
  .field('day', LogicalDate.schema())
  .field('tod', LogicalTime.schema())
  .field('at', LogicalTimestamp.schema())
  .field('before_epoch', LogicalTimestamp.builder().optional().build())
  .build();

const tagged = SchemaBuilder.struct()
  .name('vectors.Tagged')
  .field('id', SchemaBuilder.int32().parameter(TAG, '1'))
  .field('choice_0', union)
  .field('color', color)
  .field(
    'unsigned',
    SchemaBuilder.int64()
      .parameter(TAG, '5')
      .parameter('io.confluent.connect.protobuf.Type', 'uint64'),
  )
  .field(
    'fixed',
    SchemaBuilder.int64()
      .parameter(TAG, '6')
      .parameter('io.confluent.connect.protobuf.Type', 'fixed32'),
  )
  .field(
    'zigzag',
    SchemaBuilder.int32()
      .parameter(TAG, '7')
      .parameter('io.confluent.connect.protobuf.Type', 'sint32'),
  )
  .build();

const nullable = SchemaBuilder.struct()
  .name('vectors.Nullable')
  .field('name', Schemas.OPTIONAL_STRING)
  .field('count', Schemas.OPTIONAL_INT32)
  .field('zero', Schemas.OPTIONAL_INT64)
  .build();

export const PROTOBUF_CASES: readonly ProtobufCase[] = [
  {
    name: 'scalars',
    schema: scalars,
    value: new Struct(scalars)
      .put('i8', -8)
      .put('i16', 300)
      .put('i32', -2147483648)
      .put('i64', -(2n ** 63n))
      .put('f32', 1.5)
      .put('f64', Math.PI)
      .put('flag', true)
      .put('text', 'héllo "wörld" ☃ 😀')
      .put('data', Uint8Array.of(0, 1, 2, 255)),
  },
  {
    name: 'scalars at their defaults (not written)',
    schema: scalars,
    value: new Struct(scalars)
      .put('i8', 0)
      .put('i16', 0)
      .put('i32', 0)
      .put('i64', 0)
      .put('f32', 0)
      .put('f64', 0)
      .put('flag', false)
      .put('text', '')
      .put('data', new Uint8Array(0)),
  },
  { name: 'top-level string (StringValue)', schema: Schemas.STRING, value: 'a key' },
  { name: 'top-level int64 (Int64Value)', schema: Schemas.INT64, value: 2n ** 62n },
  {
    name: 'nested struct, arrays and maps',
    schema: collections,
    value: new Struct(collections)
      .put('numbers', [1, -1, 300])
      .put('names', ['a', '', 'c'])
      .put(
        'attrs',
        new Map<string, number | bigint>([
          ['big', 2n ** 60n],
          ['zero', 0],
          ['', 5],
        ]),
      )
      .put('by_id', new Map([[7, new Struct(address).put('street', 'Main').put('zip', 12345)]]))
      .put('addresses', [
        new Struct(address).put('street', 'A'),
        new Struct(address).put('street', 'B'),
      ]),
  },
  {
    name: 'logical types',
    schema: logical,
    value: new Struct(logical)
      .put('amount', new BigDecimal(1234567n, 2))
      .put('negative', new BigDecimal(-5n, 3))
      .put('day', new Date(Date.UTC(2024, 1, 29)))
      .put('tod', new Date(((13 * 60 + 45) * 60 + 30) * 1000 + 250))
      .put('at', new Date(1700000000123))
      .put('before_epoch', new Date(-1500)),
  },
  {
    name: 'oneof, enum and integer types',
    schema: tagged,
    value: new Struct(tagged)
      .put('id', 42)
      .put('choice_0', new Struct(union).put('number_choice', 0))
      .put('color', 'BLUE')
      .put('unsigned', -1)
      .put('fixed', 4294967295)
      .put('zigzag', -3),
  },
  {
    name: 'optional fields with optional.for.nullables',
    schema: nullable,
    value: new Struct(nullable).put('name', '').put('zero', 0),
    options: { optionalForNullables: true },
  },
  {
    name: 'optional fields with wrapper.for.nullables',
    schema: nullable,
    value: new Struct(nullable).put('name', 'n').put('zero', 0),
    options: { wrapperForNullables: true },
  },
];
