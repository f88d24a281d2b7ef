/**
 * Byte compatibility with Apache Avro's Java library (test/fixtures/avro-vectors.json, see
 * avro-vector-cases.ts for how it is made): the same schema text, the same Parsing Canonical
 * Form, the same bytes, and our reading of Java's bytes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { schemaEquals, valuesEqual } from '../../../../../../shared/connect/schema.js';
import { AvroData } from '../../../../../../shared/plugins/converters/avro/avro-codec.js';
import { AVRO_CASES } from './avro-vector-cases.js';

/** What Apache Avro's Java library made of a case. */
interface AvroVector {
  readonly name: string;
  /** The schema as Java's `Schema.toString()` writes it after parsing ours. */
  readonly schema: string;
  /** Java's Parsing Canonical Form of the schema. */
  readonly canonical: string;
  /** Java's binary encoding of the datum, hex. */
  readonly hex: string;
}

const VECTORS: readonly AvroVector[] = JSON.parse(
  readFileSync(new URL('../../../../../fixtures/avro-vectors.json', import.meta.url), 'utf8'),
) as AvroVector[];

/**
 * Cases whose Connect form does not survive the trip through Avro unchanged, as in Confluent's:
 * a float32 default comes back as the float nearest it (0.1 → 0.10000000149011612); a field left
 * unset is written with its default, which is then read as set.
 */
const SCHEMA_CHANGES = new Set(['defaults']);
const VALUE_CHANGES = new Set(['struct person', 'defaults']);

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

describe('Avro encoding against Apache Avro 1.12.2 (Java)', () => {
  it('has a vector for every case', () => {
    expect(VECTORS.map((v) => v.name)).toEqual(AVRO_CASES.map((c) => c.name));
  });

  for (const c of AVRO_CASES) {
    const vector = VECTORS.find((v) => v.name === c.name) as AvroVector;

    describe(c.name, () => {
      const avroData = new AvroData({ cacheSize: 10, ...c.options });

      it("writes the schema text Java's Schema.toString() writes", () => {
        expect(avroData.forConnectSchema(c.schema).schemaText).toBe(vector.schema);
      });

      it("parses the schema to Java's Parsing Canonical Form", () => {
        const codec = avroData.forAvroSchema(vector.schema);
        expect(JSON.stringify(codec.avroType.schema())).toBe(vector.canonical);
      });

      it("encodes the value to Java's bytes", () => {
        expect(hex(avroData.forConnectSchema(c.schema).encode(c.value))).toBe(vector.hex);
      });

      it("reads Java's bytes back", () => {
        const reader = avroData.forAvroSchema(vector.schema);
        const bytes = Buffer.from(vector.hex, 'hex');
        const value = reader.decode(bytes);
        if (!SCHEMA_CHANGES.has(c.name)) {
          expect(schemaEquals(reader.connectSchema, c.schema)).toBe(true);
        }
        if (!VALUE_CHANGES.has(c.name)) expect(valuesEqual(value, c.value)).toBe(true);
        expect(hex(reader.encode(value))).toBe(vector.hex);
      });
    });
  }
});
