import { describe, expect, it } from 'vitest';
import { EMPTY_HEADERS } from '../../../../../shared/connect/headers.js';
import { schemaEquals, valuesEqual } from '../../../../../shared/connect/schema.js';
import { JsonConverter } from '../../../../../shared/plugins/converters/json-converter.js';
import { type JsonVector, VECTORS, vectorCases } from './json-vector-cases.js';

// The vectors were written by Apache Kafka Connect 4.4.0's own JsonConverter
// (scripts/vectors/JsonConverterVectors.java; see test/fixtures/README.md).

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function converterFor(vector: Pick<JsonVector, 'schemasEnable' | 'decimalFormat'>): JsonConverter {
  const converter = new JsonConverter();
  converter.configure(
    {
      'schemas.enable': String(vector.schemasEnable),
      ...(vector.decimalFormat === undefined ? {} : { 'decimal.format': vector.decimalFormat }),
    },
    false,
  );
  return converter;
}

function text(bytes: Uint8Array | null): string | null {
  return bytes === null ? null : decoder.decode(bytes);
}

function roundTrip(vector: JsonVector): string | null {
  const converter = converterFor(vector);
  const bytes = vector.json === null ? null : encoder.encode(vector.json);
  const read = converter.toConnectData('topic', EMPTY_HEADERS, bytes);
  return text(converter.fromConnectData('topic', EMPTY_HEADERS, read.schema, read.value));
}

/**
 * Vectors whose JSON objects Connect read into a Java HashMap, which reordered the keys of its
 * round trip (`roundTrip`). We read objects into insertion-ordered Maps and give back `json`
 * exactly, which is better: same content, original order.
 */
const KEY_ORDER_KEPT = [
  'schemaless-value/nested struct',
  'no-schema/map',
  'no-schema/map with envelope',
];

/**
 * Schemaless JSON floats with an integral value: Connect reads `2.0` as a Java Double and
 * writes `2.0` again; we read a JS number, which cannot remember it was a float, and write
 * `2`. The JSON number is the same; only its spelling differs. (With a schema, float64 `2.0`
 * is written as `2.0`: see the TS-built inputs below.)
 */
const INTEGRAL_FLOAT_SPELLING: Readonly<Record<string, string>> = {
  'schemaless-value/float64 integral': '2',
  // Also a reordered HashMap in Connect's round trip; we keep the key order.
  'schemaless-value/struct with nulls and default':
    '{"name":"Bob","age":null,"tags":null,"address":{"street":"Side","zip":null},"score":1}',
};

/**
 * `json` is null as a payload without a schema: Connect's round trip (and ours) reads
 * `(null schema, null value)` and writes a tombstone (`null` bytes).
 */
const NULL_PAYLOADS = [
  'schemaless-value/optional string null',
  'schemaless-value/optional struct null',
];

/**
 * Without a schema, a JSON number with a fraction is a float64 (a Java double), so the 30-digit
 * NUMERIC decimal loses precision: Connect gives back `1.2345678901234568E25`, and so do we.
 */
const DOUBLE_PRECISION = ['schemaless-value/decimal large numeric'];

const DEVIATIONS = [...KEY_ORDER_KEPT, ...Object.keys(INTEGRAL_FLOAT_SPELLING)];

describe('JsonConverter against Connect 4.4.0 vectors', () => {
  const cases = vectorCases();

  it('has a TypeScript input for every vector', () => {
    // Assess
    expect(VECTORS.map((v) => v.name).sort()).toEqual([...cases.keys()].sort());
    expect(VECTORS).toHaveLength(64);
  });

  it.each(VECTORS.map((v) => [v.name, v] as const))(
    'writes exactly the bytes Connect wrote for %s from the same schema and value',
    (_name, vector) => {
      // Prepare
      const input = cases.get(vector.name);
      const converter = converterFor(vector);

      // Act
      const bytes = converter.fromConnectData(
        'topic',
        EMPTY_HEADERS,
        input?.schema ?? null,
        input?.value,
      );

      // Assess
      expect(text(bytes)).toBe(vector.json);
    },
  );

  it.each(VECTORS.filter((v) => !DEVIATIONS.includes(v.name)).map((v) => [v.name, v] as const))(
    'round-trips %s exactly as Connect does',
    (_name, vector) => {
      // Act
      const output = roundTrip(vector);

      // Assess
      expect(output).toBe(vector.roundTrip);
      if (![...NULL_PAYLOADS, ...DOUBLE_PRECISION].includes(vector.name)) {
        expect(output).toBe(vector.json);
      }
    },
  );

  it.each(KEY_ORDER_KEPT)('round-trips %s to the original JSON, keeping its key order', (name) => {
    // Prepare
    const vector = VECTORS.find((v) => v.name === name) as JsonVector;

    // Act
    const output = roundTrip(vector);

    // Assess
    expect(output).toBe(vector.json);
    expect(output).not.toBe(vector.roundTrip);
  });

  it.each(Object.entries(INTEGRAL_FLOAT_SPELLING))(
    'round-trips %s with integral floats spelled as integers',
    (name, expected) => {
      // Prepare
      const vector = VECTORS.find((v) => v.name === name) as JsonVector;

      // Act
      const output = roundTrip(vector);

      // Assess
      expect(output).toBe(expected);
      expect(JSON.parse(output ?? '')).toEqual(JSON.parse(vector.json ?? ''));
    },
  );

  it.each(
    VECTORS.filter((v) => v.schemasEnable && v.json !== null).map((v) => [v.name, v] as const),
  )('reads %s back to the schema and value it was written from', (name, vector) => {
    // Prepare
    const input = cases.get(name);
    const converter = converterFor(vector);

    // Act
    const read = converter.toConnectData('topic', EMPTY_HEADERS, encoder.encode(vector.json ?? ''));

    // Assess
    expect(schemaEquals(read.schema, input?.schema ?? null)).toBe(true);
    if (name === 'schema/struct with nulls and default') {
      // The unset `score` was written as its default 1.0, and reads back as 1.0.
      expect((read.value as { get(f: string): unknown }).get('score')).toBe(1);
    } else {
      expect(valuesEqual(read.value, input?.value)).toBe(true);
    }
  });
});
