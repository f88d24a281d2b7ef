/**
 * The cases of scripts/vectors/JsonConverterVectors.java, rebuilt in TypeScript: the same
 * schemas and values Connect serialized into test/fixtures/json-converter-vectors.json.
 */
import { readFileSync } from 'node:fs';
import {
  BigDecimal,
  LogicalDate,
  LogicalDecimal,
  LogicalTime,
  LogicalTimestamp,
} from '../../../../../shared/connect/logical-types.js';
import { type Schema, SchemaBuilder, Schemas } from '../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../shared/connect/struct.js';

/** One vector: what Connect 4.4.0 wrote (`json`) and gave back after its own round trip. */
export interface JsonVector {
  readonly name: string;
  readonly schemasEnable: boolean;
  readonly decimalFormat?: 'BASE64' | 'NUMERIC';
  readonly json: string | null;
  readonly roundTrip: string | null;
}

export const VECTORS: readonly JsonVector[] = JSON.parse(
  readFileSync(
    new URL('../../../../fixtures/json-converter-vectors.json', import.meta.url),
    'utf8',
  ),
) as JsonVector[];

/** The input of one vector: schema, value and decimal format, as the Java generator built it. */
export interface VectorCase {
  readonly schema: Schema | null;
  readonly value: unknown;
  readonly decimalFormat?: 'NUMERIC';
}

export const ADDRESS = SchemaBuilder.struct()
  .name('com.example.Address')
  .field('street', Schemas.STRING)
  .field('zip', Schemas.OPTIONAL_INT32)
  .build();

export const PERSON = SchemaBuilder.struct()
  .name('com.example.Person')
  .version(3)
  .doc('a person')
  .parameter('owner', 'team-a')
  .field('name', Schemas.STRING)
  .field('age', Schemas.OPTIONAL_INT16)
  .field('tags', SchemaBuilder.array(Schemas.STRING).optional().build())
  .field('address', ADDRESS)
  .field('score', SchemaBuilder.float64().defaultValue(1.0).build())
  .build();

const OPTIONAL_STRUCT = SchemaBuilder.struct()
  .name('Opt')
  .field('a', Schemas.INT32)
  .optional()
  .build();

const MILLIS_PER_DAY = 86_400_000;

/** The cases each run with schemas.enable true (`schema/…`) and false (`schemaless-value/…`). */
function typedCases(): [string, VectorCase][] {
  return [
    ['int8', { schema: Schemas.INT8, value: -12 }],
    ['int16', { schema: Schemas.INT16, value: 31000 }],
    ['int32', { schema: Schemas.INT32, value: -2147483648 }],
    ['int64 max', { schema: Schemas.INT64, value: 9223372036854775807n }],
    ['int64 min', { schema: Schemas.INT64, value: -9223372036854775808n }],
    ['float32', { schema: Schemas.FLOAT32, value: 1.5 }],
    ['float64', { schema: Schemas.FLOAT64, value: Math.PI }],
    ['float64 integral', { schema: Schemas.FLOAT64, value: 2.0 }],
    ['float64 tiny', { schema: Schemas.FLOAT64, value: 1.0e-7 }],
    ['float64 huge', { schema: Schemas.FLOAT64, value: 1.0e21 }],
    ['boolean', { schema: Schemas.BOOLEAN, value: true }],
    [
      'string unicode',
      { schema: Schemas.STRING, value: 'h\u00e9llo "w\u00f6rld"\n\u2603 \ud83d\ude00' },
    ],
    ['bytes', { schema: Schemas.BYTES, value: new Uint8Array([0, 1, 2, 255, 128]) }],
    ['optional string null', { schema: Schemas.OPTIONAL_STRING, value: null }],
    ['array of int32', { schema: SchemaBuilder.array(Schemas.INT32).build(), value: [1, 2, 3] }],
    [
      'array of optional strings',
      { schema: SchemaBuilder.array(Schemas.OPTIONAL_STRING).build(), value: ['a', null, 'c'] },
    ],
    [
      'map string keys',
      {
        schema: SchemaBuilder.map(Schemas.STRING, Schemas.INT32).build(),
        value: new Map([
          ['one', 1],
          ['two', 2],
        ]),
      },
    ],
    [
      'map int keys',
      {
        schema: SchemaBuilder.map(Schemas.INT32, Schemas.STRING).build(),
        value: new Map([
          [1, 'one'],
          [2, 'two'],
        ]),
      },
    ],
    [
      'nested struct',
      {
        schema: PERSON,
        value: new Struct(PERSON)
          .put('name', 'Ada')
          .put('age', 36)
          .put('tags', ['x', 'y'])
          .put('address', new Struct(ADDRESS).put('street', 'Main St 1').put('zip', 12345))
          .put('score', 9.5),
      },
    ],
    [
      'struct with nulls and default',
      {
        schema: PERSON,
        value: new Struct(PERSON)
          .put('name', 'Bob')
          .put('address', new Struct(ADDRESS).put('street', 'Side')),
      },
    ],
    ['decimal base64', { schema: LogicalDecimal.schema(2), value: BigDecimal.parse('12345.67') }],
    [
      'decimal negative base64',
      { schema: LogicalDecimal.schema(2), value: BigDecimal.parse('-0.01') },
    ],
    [
      'decimal numeric',
      {
        schema: LogicalDecimal.schema(2),
        value: BigDecimal.parse('-98765.43'),
        decimalFormat: 'NUMERIC',
      },
    ],
    [
      'decimal large numeric',
      {
        schema: LogicalDecimal.schema(4),
        value: new BigDecimal(123456789012345678901234567890n, 4),
        decimalFormat: 'NUMERIC',
      },
    ],
    ['date', { schema: LogicalDate.schema(), value: new Date(19000 * MILLIS_PER_DAY) }],
    ['time', { schema: LogicalTime.schema(), value: new Date(45296789) }],
    ['timestamp', { schema: LogicalTimestamp.schema(), value: new Date(1767225600123) }],
    ['optional struct null', { schema: OPTIONAL_STRUCT, value: null }],
    ['int32 with default', { schema: SchemaBuilder.int32().defaultValue(42).build(), value: 7 }],
    [
      'map of arrays',
      {
        schema: SchemaBuilder.map(
          Schemas.STRING,
          SchemaBuilder.array(Schemas.INT64).build(),
        ).build(),
        value: new Map([['k', [1, -1]]]),
      },
    ],
  ];
}

/** A schemaless document: a map holding an int, a string, a boolean and a mixed list. */
export function schemalessDocument(): Map<string, unknown> {
  return new Map<string, unknown>([
    ['id', 7],
    ['name', 'x'],
    ['ok', false],
    ['list', [1, 'two', 3.5]],
  ]);
}

/** Every vector's input, by vector name. */
export function vectorCases(): Map<string, VectorCase> {
  const cases = new Map<string, VectorCase>();
  for (const prefix of ['schema/', 'schemaless-value/']) {
    for (const [name, c] of typedCases()) cases.set(prefix + name, c);
  }
  cases.set('no-schema/map', { schema: null, value: schemalessDocument() });
  cases.set('no-schema/null', { schema: null, value: null });
  cases.set('no-schema/null with envelope', { schema: null, value: null });
  cases.set('no-schema/map with envelope', { schema: null, value: schemalessDocument() });
  return cases;
}
