import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import { validateValue } from '../../../../../../shared/connect/schema.js';
import type { Struct } from '../../../../../../shared/connect/struct.js';
import {
  DATAGEN_EPOCH_MS,
  DatagenGenerator,
  DatagenRandom,
  parseDatagenRecordIdentity,
  QUICKSTARTS,
  valueSchemaOf,
} from '../../../../../../shared/plugins/connectors/datagen/quickstarts.js';

/** The schemaless JSON a JsonConverter with schemas.enable=false would write. */
function plain(struct: Struct): Record<string, unknown> {
  return Object.fromEntries(
    struct.schema.fields.map((f) => {
      const value = struct.get(f.name);
      return [f.name, f.schema.type === 'struct' ? plain(value as Struct) : value];
    }),
  );
}

describe('DatagenGenerator', () => {
  it.each(QUICKSTARTS)(
    'generates identical records for the same seed, partition and seq (%s)',
    (quickstart) => {
      // Prepare
      const first = new DatagenGenerator({ quickstart, seed: 7, payloadBytes: 300 });
      const second = new DatagenGenerator({ quickstart, seed: 7, payloadBytes: 300 });

      // Act
      const a = first.generate(3, 41);
      const b = second.generate(3, 41);

      // Assess
      expect(a.key).toBe(b.key);
      expect(a.value.equals(b.value)).toBe(true);
    },
  );

  it('generates the same record whatever was generated before (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...QUICKSTARTS),
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        fc.nat(1000),
        fc.integer({ min: 1, max: 2 ** 40 }),
        (quickstart, seed, partition, seq) => {
          const generator = new DatagenGenerator({ quickstart, seed });
          const fresh = new DatagenGenerator({ quickstart, seed }).generate(partition, seq);
          generator.generate(partition, seq + 1);
          const again = generator.generate(partition, seq);
          expect(again.key).toBe(fresh.key);
          expect(again.value.equals(fresh.value)).toBe(true);
        },
      ),
    );
  });

  it('generates different content for a different seed', () => {
    // Prepare
    const seeds = [1, 2, 3, 4, 5].map(
      (seed) => new DatagenGenerator({ quickstart: 'orders', seed }),
    );

    // Act
    const itemids = new Set(seeds.map((g) => JSON.stringify(plain(g.generate(0, 1).value))));

    // Assess
    expect(itemids.size).toBe(5);
  });

  it.each(QUICKSTARTS)('produces values that validate against the %s schema', (quickstart) => {
    // Prepare
    const generator = new DatagenGenerator({ quickstart, seed: 1, payloadBytes: 64 });

    // Act
    const values = Array.from({ length: 50 }, (_, i) => generator.generate(i % 3, i + 1).value);

    // Assess
    for (const value of values) {
      expect(() => value.validate()).not.toThrow();
      expect(() => validateValue(valueSchemaOf(quickstart), value)).not.toThrow();
      expect(value.schema).toBe(valueSchemaOf(quickstart));
    }
  });

  it.each(QUICKSTARTS)('carries the partition and seq in every %s value', (quickstart) => {
    // Prepare
    const generator = new DatagenGenerator({ quickstart, seed: 99 });

    // Act
    const { value } = generator.generate(5, 123);

    // Assess
    expect(parseDatagenRecordIdentity(value)).toEqual({ partition: 5, seq: 123 });
  });

  it('builds orders like Confluent datagen with a unique order id as key', () => {
    // Prepare
    const generator = new DatagenGenerator({ quickstart: 'orders', seed: 1 });

    // Act
    const { key, value } = generator.generate(1, 5);

    // Assess
    expect(value.get('orderid')).toBe(2 ** 32 + 5);
    expect(key).toBe(String(2 ** 32 + 5));
    expect(value.get('itemid')).toMatch(/^Item_\d+$/);
    expect(value.get('orderunits')).toBeGreaterThanOrEqual(0.1);
    expect(value.get('orderunits')).toBeLessThanOrEqual(10);
    expect(plain(value).address).toEqual({
      city: expect.stringMatching(/^City_\d+$/),
      state: expect.stringMatching(/^State_\d+$/),
      zipcode: expect.any(Number),
    });
    expect(value.get('datagen_payload')).toBeNull();
  });

  it('keys users by user id, pageviews by view time and sequence by partition', () => {
    // Prepare
    const users = new DatagenGenerator({ quickstart: 'users', seed: 1 });
    const pageviews = new DatagenGenerator({ quickstart: 'pageviews', seed: 1 });
    const sequence = new DatagenGenerator({ quickstart: 'sequence', seed: 1 });

    // Act
    const user = users.generate(0, 1);
    const view = pageviews.generate(0, 1);
    const seq = sequence.generate(4, 9);

    // Assess
    expect(user.key).toBe(user.value.get('userid'));
    expect(['MALE', 'FEMALE', 'OTHER']).toContain(user.value.get('gender'));
    expect(view.key).toBe(String(view.value.get('viewtime')));
    expect(seq.key).toBe('4');
    expect(plain(seq.value)).toEqual({ partition: 4, seq: 9, payload: '' });
  });

  it('derives event times from seq so that they grow within a partition', () => {
    // Prepare
    const generator = new DatagenGenerator({ quickstart: 'pageviews', seed: 3 });

    // Act
    const times = [1, 2, 3, 1000].map((seq) => generator.generate(0, seq).value.get('viewtime'));

    // Assess
    expect(times[0]).toBeGreaterThanOrEqual(DATAGEN_EPOCH_MS);
    expect(times[0]).toBeLessThan(DATAGEN_EPOCH_MS + 1000);
    expect([...times].sort((a, b) => Number(a) - Number(b))).toEqual(times);
    expect(times[3]).toBeGreaterThanOrEqual(DATAGEN_EPOCH_MS + 999_000);
  });

  it.each(QUICKSTARTS)('pads %s values to payload.bytes of schemaless JSON', (quickstart) => {
    // Prepare
    const generator = new DatagenGenerator({ quickstart, seed: 1, payloadBytes: 1024 });

    // Act
    const { value } = generator.generate(2, 77);

    // Assess
    expect(JSON.stringify(plain(value))).toHaveLength(1024);
  });

  it('leaves the payload as short as possible when payload.bytes is below the record size', () => {
    // Prepare
    const generator = new DatagenGenerator({ quickstart: 'orders', seed: 1, payloadBytes: 10 });

    // Act
    const { value } = generator.generate(0, 1);

    // Assess
    expect(value.get('datagen_payload')).toBe('');
  });
});

describe('DatagenRandom', () => {
  it('draws integers within the inclusive bounds', () => {
    // Prepare
    const random = DatagenRandom.forRecord(1n, 0, 1);

    // Act
    const draws = Array.from({ length: 2000 }, () => random.nextInt(1, 9));

    // Assess
    expect(Math.min(...draws)).toBe(1);
    expect(Math.max(...draws)).toBe(9);
  });

  it('gives different streams to neighbouring records', () => {
    // Prepare
    const streams = [
      DatagenRandom.forRecord(1, 0, 1),
      DatagenRandom.forRecord(1, 0, 2),
      DatagenRandom.forRecord(1, 1, 1),
      DatagenRandom.forRecord(2, 0, 1),
    ];

    // Act
    const firsts = new Set(streams.map((r) => r.nextUint32()));

    // Assess
    expect(firsts.size).toBe(4);
  });

  it('treats a number seed and the equal bigint seed alike', () => {
    // Prepare
    const fromNumber = DatagenRandom.forRecord(2 ** 40 + 3, 2, 3);
    const fromBigint = DatagenRandom.forRecord(2n ** 40n + 3n, 2, 3);

    // Act
    const a = [fromNumber.nextUint32(), fromNumber.nextUint32()];
    const b = [fromBigint.nextUint32(), fromBigint.nextUint32()];

    // Assess
    expect(a).toEqual(b);
  });
});

describe('parseDatagenRecordIdentity', () => {
  it('reads the JSON converter output with schemas.enable=true', () => {
    // Prepare
    const envelope = {
      schema: { type: 'struct', fields: [] },
      payload: { ordertime: 1, datagen_partition: 3, datagen_seq: 12, datagen_payload: null },
    };

    // Act
    const identity = parseDatagenRecordIdentity(envelope);

    // Assess
    expect(identity).toEqual({ partition: 3, seq: 12 });
  });

  it('reads schemaless JSON, as an object, a string or UTF-8 bytes', () => {
    // Prepare
    const value = { partition: 1, seq: 2, payload: 'xyz' };
    const text = JSON.stringify(value);

    // Act
    const identities = [value, text, new TextEncoder().encode(text)].map(
      parseDatagenRecordIdentity,
    );

    // Assess
    expect(identities).toEqual([
      { partition: 1, seq: 2 },
      { partition: 1, seq: 2 },
      { partition: 1, seq: 2 },
    ]);
  });

  it('reads a sequence envelope whose payload field is the padding string', () => {
    // Prepare
    const envelope = {
      schema: { type: 'struct' },
      payload: { partition: 0, seq: 5, payload: 'ab' },
    };

    // Act
    const identity = parseDatagenRecordIdentity(envelope);

    // Assess
    expect(identity).toEqual({ partition: 0, seq: 5 });
  });

  it.each([
    ['a non-datagen object', { id: 1 }],
    ['seq 0', { partition: 0, seq: 0 }],
    ['a negative partition', { datagen_partition: -1, datagen_seq: 1 }],
    ['null', null],
    ['invalid JSON text', '{not json'],
  ])('throws DataError for %s', (_name, value) => {
    // Act
    const parse = () => parseDatagenRecordIdentity(value);

    // Assess
    expect(parse).toThrow(DataError);
  });
});
