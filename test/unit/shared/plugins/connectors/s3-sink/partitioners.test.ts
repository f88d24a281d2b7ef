import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import { LogicalTimestamp } from '../../../../../../shared/connect/logical-types.js';
import { SchemaBuilder, Schemas } from '../../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../../shared/connect/struct.js';
import {
  DAILY_PATH_FORMAT,
  DAY_MS,
  DefaultPartitioner,
  FieldPartitioner,
  HOUR_MS,
  HOURLY_PATH_FORMAT,
  type PartitionerSpec,
  TimeBasedPartitioner,
} from '../../../../../../shared/plugins/connectors/s3-sink/partitioners.js';
import { FakeClock, sinkRecord } from './fakes.js';

const orderSchema = SchemaBuilder.struct()
  .field('id', Schemas.INT32)
  .field('region', Schemas.STRING)
  .field('vip', Schemas.BOOLEAN)
  .field('amount', Schemas.FLOAT64)
  .field('note', Schemas.OPTIONAL_STRING)
  .field('at', LogicalTimestamp.schema())
  .build();

function order(at = new Date(Date.UTC(2024, 0, 1))): Struct {
  return new Struct(orderSchema)
    .put('id', 7)
    .put('region', 'eu')
    .put('vip', true)
    .put('amount', 9.5)
    .put('at', at);
}

function time(overrides: Partial<Extract<PartitionerSpec, { kind: 'time' }>>) {
  return new TimeBasedPartitioner(
    {
      kind: 'time',
      durationMs: HOUR_MS,
      pathFormat: HOURLY_PATH_FORMAT,
      locale: 'en-US',
      timezone: 'UTC',
      extractor: 'Record',
      timestampField: 'timestamp',
      ...overrides,
    },
    new FakeClock(Date.UTC(2030, 5, 1, 12)),
  );
}

describe('DefaultPartitioner', () => {
  it('encodes the Kafka partition', () => {
    // Act
    const encoded = new DefaultPartitioner().encodePartition(
      sinkRecord({ kafkaPartition: 3, kafkaOffset: 0, value: 'x' }),
    );

    // Assess
    expect(encoded).toBe('partition=3');
  });
});

describe('FieldPartitioner', () => {
  it('joins field=value for each field of a Struct, in the configured order', () => {
    // Prepare
    const partitioner = new FieldPartitioner(['region', 'id', 'vip']);

    // Act
    const encoded = partitioner.encodePartition(
      sinkRecord({ kafkaOffset: 0, valueSchema: orderSchema, value: order() }),
    );

    // Assess
    expect(encoded).toBe('region=eu/id=7/vip=true');
  });

  it('reads nested fields of schemaless maps', () => {
    // Prepare
    const partitioner = new FieldPartitioner(['customer.country', 'tier']);
    const value = { customer: new Map([['country', 'FR']]), tier: 2n };

    // Act
    const encoded = partitioner.encodePartition(sinkRecord({ kafkaOffset: 0, value }));

    // Assess
    expect(encoded).toBe('customer.country=FR/tier=2');
  });

  it('refuses missing, null and non-integer fields with a DataError', () => {
    // Prepare
    const record = sinkRecord({ kafkaOffset: 5, valueSchema: orderSchema, value: order() });
    const encode = (field: string) => () => new FieldPartitioner([field]).encodePartition(record);

    // Act and Assess
    expect(encode('missing')).toThrow(DataError);
    expect(encode('note')).toThrow('field note is null');
    expect(encode('amount')).toThrow('has type FLOAT64');
    expect(() =>
      new FieldPartitioner(['a']).encodePartition(sinkRecord({ kafkaOffset: 0, value: 'text' })),
    ).toThrow(DataError);
  });
});

describe('TimeBasedPartitioner', () => {
  it('uses the record timestamp, floored to the hour', () => {
    // Act
    const encoded = time({}).encodePartition(
      sinkRecord({ kafkaOffset: 0, value: 'x', timestamp: Date.UTC(2024, 4, 6, 13, 59, 59) }),
    );

    // Assess
    expect(encoded).toBe('year=2024/month=05/day=06/hour=13');
  });

  it('takes the day in the configured zone', () => {
    // Prepare
    const tokyo = time({
      durationMs: DAY_MS,
      pathFormat: DAILY_PATH_FORMAT,
      timezone: 'Asia/Tokyo',
    });

    // Act
    const encoded = tokyo.encodeTimestamp(Date.UTC(2024, 0, 1, 16));

    // Assess
    expect(encoded).toBe('year=2024/month=01/day=02');
  });

  it('floors durations in local time, also on a daylight saving day', () => {
    // Prepare
    const sixHours = time({
      durationMs: 6 * HOUR_MS,
      pathFormat: 'HH',
      timezone: 'America/New_York',
    });
    const daily = time({ durationMs: DAY_MS, pathFormat: 'dd/HH', timezone: 'America/New_York' });
    const quarter = time({ durationMs: 15 * 60_000, pathFormat: 'HH-mm' });

    // Act
    const summer = sixHours.encodeTimestamp(Date.UTC(2024, 5, 1, 13));
    const dstDay = daily.encodeTimestamp(Date.UTC(2024, 2, 10, 20));
    const minutes = quarter.encodeTimestamp(Date.UTC(2024, 5, 1, 10, 44));

    // Assess
    expect([summer, dstDay, minutes]).toEqual(['06', '10/00', '10-30']);
  });

  it('reads RecordField timestamps from Timestamp, integer and ISO-8601 fields', () => {
    // Prepare
    const byAt = time({ extractor: 'RecordField', timestampField: 'at' });
    const byNested = time({ extractor: 'RecordField', timestampField: 'meta.ts' });
    const at = new Date(Date.UTC(2023, 6, 4, 8, 15));

    // Act
    const fromStruct = byAt.encodePartition(
      sinkRecord({ kafkaOffset: 0, valueSchema: orderSchema, value: order(at) }),
    );
    const fromMillis = byNested.encodePartition(
      sinkRecord({ kafkaOffset: 0, value: { meta: { ts: Date.UTC(2023, 6, 4, 9) } } }),
    );
    const fromIso = byNested.encodePartition(
      sinkRecord({ kafkaOffset: 0, value: { meta: { ts: '2023-07-04T10:30:00+02:00' } } }),
    );

    // Assess
    expect([fromStruct, fromMillis, fromIso]).toEqual([
      'year=2023/month=07/day=04/hour=08',
      'year=2023/month=07/day=04/hour=09',
      'year=2023/month=07/day=04/hour=08',
    ]);
  });

  it('uses the injected clock for Wallclock', () => {
    // Act
    const encoded = time({ extractor: 'Wallclock' }).encodePartition(
      sinkRecord({ kafkaOffset: 0, value: 'x', timestamp: 0 }),
    );

    // Assess
    expect(encoded).toBe('year=2030/month=06/day=01/hour=12');
  });

  it('fails with a DataError when the timestamp is missing or unreadable', () => {
    // Prepare
    const byRecord = time({});
    const byField = time({ extractor: 'RecordField', timestampField: 'ts' });

    // Act and Assess
    expect(() => byRecord.encodePartition(sinkRecord({ kafkaOffset: 1, value: 'x' }))).toThrow(
      'Unable to determine timestamp using timestamp.extractor Record',
    );
    expect(() =>
      byField.encodePartition(sinkRecord({ kafkaOffset: 1, value: { ts: 'yesterday' } })),
    ).toThrow(DataError);
  });
});
