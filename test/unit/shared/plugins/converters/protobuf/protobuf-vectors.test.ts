/**
 * Byte compatibility with protobuf's Java library (test/fixtures/protobuf-vectors.json, made by
 * scripts/vectors/generate.sh from protobuf-vector-cases.ts): protoc compiled our .proto text,
 * Java wrote the same message from protobuf's JSON form, and read our bytes as that message.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isStruct, type StructView, valuesEqual } from '../../../../../../shared/connect/schema.js';
import { ProtobufData } from '../../../../../../shared/plugins/converters/protobuf/protobuf-data.js';
import { optionsOf, PROTOBUF_CASES } from './protobuf-vector-cases.js';

/** What protobuf's Java library made of a case. */
interface ProtobufVector {
  readonly name: string;
  /** Java's bytes of the message built from the value's JSON form, hex. */
  readonly hex: string;
  /** Java parsed our bytes to the same message. */
  readonly readsOurs: boolean;
}

const VECTORS: readonly ProtobufVector[] = JSON.parse(
  readFileSync(new URL('../../../../../fixtures/protobuf-vectors.json', import.meta.url), 'utf8'),
) as ProtobufVector[];

/** A value without its schemas: structs as plain objects, so values read and written compare. */
function plain(value: unknown): unknown {
  if (isStruct(value)) {
    const struct = value as StructView;
    return Object.fromEntries(
      struct.schema.fields.map((f) => [f.name, plain(struct.getWithoutDefault(f.name))]),
    );
  }
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [plain(k), plain(v)]));
  return value;
}

/**
 * Cases whose null optional primitive reads back as Protobuf's default, as in Confluent's: a
 * proto3 scalar has no presence (the addresses' unset `zip` reads as 0).
 */
const NULL_READS_AS_DEFAULT = new Set(['nested struct, arrays and maps']);

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

describe('Protobuf encoding against protobuf-java 4.36.2', () => {
  it('has a vector for every case', () => {
    expect(VECTORS.map((v) => v.name)).toEqual(PROTOBUF_CASES.map((c) => c.name));
  });

  describe.each(PROTOBUF_CASES.map((c, i) => [c.name, c, VECTORS[i] as ProtobufVector] as const))(
    '%s',
    (_name, c, vector) => {
      it("writes Java's bytes, and Java reads ours as the same message", () => {
        const writer = new ProtobufData(optionsOf(c)).forConnectSchema(c.schema);

        expect(hex(writer.encode(c.value))).toBe(vector.hex);
        expect(vector.readsOurs).toBe(true);
      });

      it("reads Java's bytes back to the Connect value, and writes them again", () => {
        const data = new ProtobufData(optionsOf(c));
        const writer = data.forConnectSchema(c.schema);
        const parsed = data.parse('1', writer.schemaText, new Map());
        const reader = data.reader('1', parsed, writer.messageName, null);

        const read = reader.decode(Buffer.from(vector.hex, 'hex'));

        if (NULL_READS_AS_DEFAULT.has(c.name)) {
          const addresses = (read as { get(f: string): unknown }).get('addresses') as StructView[];
          expect(addresses.map((a) => a.getWithoutDefault('zip'))).toEqual([0, 0]);
        } else {
          expect(valuesEqual(plain(read), plain(c.value))).toBe(true);
        }
        expect(hex(data.forConnectSchema(reader.connectSchema).encode(read))).toBe(vector.hex);
      });
    },
  );
});
