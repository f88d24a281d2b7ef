import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import { EMPTY_HEADERS } from '../../../../../../shared/connect/headers.js';
import { BigDecimal, LogicalDecimal } from '../../../../../../shared/connect/logical-types.js';
import { SchemaBuilder, Schemas } from '../../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../../shared/connect/struct.js';
import {
  ByteArrayRecordFormat,
  encodeRecord,
  JsonRecordFormat,
} from '../../../../../../shared/plugins/connectors/s3-sink/record-format.js';
import { JsonConverter } from '../../../../../../shared/plugins/converters/json-converter.js';
import { sinkRecord } from './fakes.js';

const decoder = new TextDecoder();
const text = (bytes: Uint8Array | null) => (bytes === null ? null : decoder.decode(bytes));

const priceSchema = SchemaBuilder.struct()
  .field('sku', Schemas.STRING)
  .field('qty', Schemas.INT64)
  .field('price', LogicalDecimal.schema(2))
  .field('tags', SchemaBuilder.array(Schemas.STRING).build())
  .build();

function price(): Struct {
  return new Struct(priceSchema)
    .put('sku', 'a"b')
    .put('qty', 3)
    .put('price', BigDecimal.parse('12.50'))
    .put('tags', ['x']);
}

describe('JsonRecordFormat', () => {
  it('writes a Struct as plain JSON (no schema envelope), one line', () => {
    // Act
    const line = new JsonRecordFormat().encode(
      sinkRecord({ kafkaOffset: 0, valueSchema: priceSchema, value: price() }),
    );

    // Assess
    expect(text(line)).toBe('{"sku":"a\\"b","qty":3,"price":"BOI=","tags":["x"]}\n');
  });

  it('writes Decimals as numbers with json.decimal.format=NUMERIC', () => {
    // Act
    const line = new JsonRecordFormat('NUMERIC').encode(
      sinkRecord({ kafkaOffset: 0, valueSchema: priceSchema, value: price() }),
    );

    // Assess
    expect(text(line)).toContain('"price":12.50');
  });

  it('writes schemaless maps, arrays and numbers as JSON', () => {
    // Prepare
    const format = new JsonRecordFormat();

    // Act
    const lines = [new Map([['a', 1]]), { b: [true, null] }, 42].map((value) =>
      text(format.encode(sinkRecord({ kafkaOffset: 0, value }))),
    );

    // Assess
    expect(lines).toEqual(['{"a":1}\n', '{"b":[true,null]}\n', '42\n']);
  });

  it('writes a value the JsonConverter read from canonical JSON from those very bytes', () => {
    // Prepare
    const converter = new JsonConverter();
    converter.configure({ 'schemas.enable': 'false' }, false);
    const bytes = new TextEncoder().encode('{"id":"0-1","n":[1,2]}');
    const { value } = converter.toConnectData('orders', EMPTY_HEADERS, bytes);
    const format = new JsonRecordFormat();

    // Act
    const same = format.encode(sinkRecord({ kafkaOffset: 0, value }));
    const changed = new Map(value as Map<string, unknown>).set('n', 3);
    const rewritten = format.encode(sinkRecord({ kafkaOffset: 0, value: changed }));

    // Assess
    expect(text(same)).toBe('{"id":"0-1","n":[1,2]}\n');
    expect(same.subarray(0, bytes.length)).toEqual(bytes);
    expect(text(rewritten)).toBe('{"id":"0-1","n":3}\n');
  });

  it('writes strings and bytes as given', () => {
    // Prepare
    const format = new JsonRecordFormat();

    // Act
    const fromString = format.encode(
      sinkRecord({ kafkaOffset: 0, valueSchema: Schemas.STRING, value: '{"id":1}' }),
    );
    const fromBytes = format.encode(
      sinkRecord({ kafkaOffset: 1, value: new TextEncoder().encode('{"id":2}') }),
    );

    // Assess
    expect([text(fromString), text(fromBytes)]).toEqual(['{"id":1}\n', '{"id":2}\n']);
  });

  it('refuses a string with a line break, which would split the record', () => {
    // Act and Assess
    expect(() =>
      new JsonRecordFormat().encode(sinkRecord({ kafkaOffset: 4, value: '{\n"id": 1}' })),
    ).toThrow(DataError);
  });
});

describe('ByteArrayRecordFormat', () => {
  it('appends the separator to bytes and UTF-8 strings', () => {
    // Prepare
    const format = new ByteArrayRecordFormat('.txt', new TextEncoder().encode('|'));

    // Act
    const bytes = format.encode(sinkRecord({ kafkaOffset: 0, value: Uint8Array.of(0, 255) }));
    const string = format.encode(sinkRecord({ kafkaOffset: 1, value: 'é' }));

    // Assess
    expect([...bytes]).toEqual([0, 255, 0x7c]);
    expect(text(string)).toBe('é|');
    expect(format.extension).toBe('.txt');
  });

  it('refuses structured values', () => {
    // Act and Assess
    expect(() =>
      new ByteArrayRecordFormat().encode(sinkRecord({ kafkaOffset: 0, value: { a: 1 } })),
    ).toThrow('ByteArrayFormat writes bytes or strings');
  });
});

describe('encodeRecord', () => {
  it('skips null values when ignored and fails on them otherwise', () => {
    // Prepare
    const tombstone = sinkRecord({ kafkaOffset: 9, key: 'k', value: null });

    // Act
    const ignored = encodeRecord(new JsonRecordFormat(), tombstone, 'ignore');

    // Assess
    expect(ignored).toBeNull();
    expect(() => encodeRecord(new JsonRecordFormat(), tombstone, 'fail')).toThrow(
      'Sink record orders-0@9 has a null value',
    );
  });
});
