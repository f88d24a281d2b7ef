import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EsmSourceRecord } from '../../../../../shared/adapters/lambda/esm-event.js';
import { RetriableError } from '../../../../../shared/connect/errors.js';
import { ConnectorNotFoundError } from '../../../../../shared/ports/errors.js';
import {
  ConnectorNotRunningError,
  UnassignedPartitionError,
} from '../../../../../shared/runtime/sink/errors.js';
import {
  TASK_PARTITIONS_KEY,
  TASK_STOPPING_OFFSETS_KEY,
} from '../../../../../shared/runtime/task/task-split.js';
import { coordinatesOf } from '../../../../support/recording-sink.js';
import { event, harness, ids, records, TOPIC } from './fixtures.js';

describe('runSinkInvocation', () => {
  it('puts every record once, then stores the last written offset per partition', async () => {
    const h = await harness();

    const summary = await h.run(event(records(0, 0, 4), records(1, 0, 2)));

    expect(coordinatesOf(h.system.committed)).toEqual(
      ids([...records(0, 0, 4), ...records(1, 0, 2)]),
    );
    expect(h.system.committed.map((r) => r.value)).toEqual([
      'v0',
      'v1',
      'v2',
      'v3',
      'v4',
      'v0',
      'v1',
      'v2',
    ]);
    expect(await h.stored()).toEqual({ 'orders-0': 5, 'orders-1': 3 });
    expect(summary).toMatchObject({ records: 8, written: 8, skipped: 0, dlq: 0 });
    expect(summary.partitions[0]).toMatchObject({ batchEndOffset: 4, committedOffset: 5 });
  });

  it('builds SinkRecords with Kafka coordinates, timestamp and converted key, value and headers', async () => {
    const h = await harness();
    const [raw] = records(0, 7, 7);
    const withHeaders = {
      ...(raw as EsmSourceRecord),
      timestampType: 'LOG_APPEND_TIME' as const,
      headers: [
        { key: 'trace', value: new TextEncoder().encode('abc') },
        { key: 'trace', value: null },
      ],
    };

    await h.run(event([withHeaders]));

    const [record] = h.system.committed;
    expect(record?.topic).toBe(TOPIC);
    expect(record?.kafkaPartition).toBe(0);
    expect(record?.kafkaOffset).toBe(7);
    expect(record?.timestamp).toBe(1_700_000_000_007);
    expect(record?.timestampType).toBe('LogAppendTime');
    expect([record?.key, record?.value]).toEqual(['k7', 'v7']);
    expect(record?.headers.toArray().map((x) => [x.key, x.value])).toEqual([
      ['trace', 'abc'],
      ['trace', null],
    ]);
  });

  it('skips records below the stored next offset when the mapping redelivers with other boundaries', async () => {
    const h = await harness();
    await h.run(event(records(0, 0, 4)));

    const overlapping = await h.run(event(records(0, 2, 9)));
    const stale = await h.run(event(records(0, 0, 9)));

    expect(h.system.puts.map(coordinatesOf)).toEqual([
      ids(records(0, 0, 4)),
      ids(records(0, 5, 9)),
    ]);
    expect(overlapping.partitions[0]).toMatchObject({ duplicates: 3, written: 5 });
    expect(stale).toMatchObject({ written: 0, skipped: 10 });
    expect(await h.stored()).toEqual({ 'orders-0': 10 });
  });

  it('starts after an offset the enumerator seeded and never moves a stored offset back', async () => {
    const h = await harness();
    await h.store.offsets.commitSinkOffset(h.name, { topic: TOPIC, partition: 0, nextOffset: 11 });

    await h.run(event(records(0, 8, 12)));
    await h.run(event(records(0, 3, 6)));

    expect(coordinatesOf(h.system.committed)).toEqual(ids(records(0, 11, 12)));
    expect(await h.stored()).toEqual({ 'orders-0': 13 });
  });

  it('writes every record exactly once and moves offsets monotonically under any redelivery pattern', async () => {
    // The mapping delivers from its consumer position, possibly re-sending records before it
    // (a lost group commit); a delivery may crash mid-put. Its position moves only on success.
    const delivery = fc.record({
      back: fc.nat(6),
      size: fc.integer({ min: 1, max: 8 }),
      crashAt: fc.option(fc.nat(7), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(delivery, { minLength: 1, maxLength: 12 }), async (plan) => {
        const h = await harness();
        let position = 0;
        let last = 0;
        for (const { back, size, crashAt } of plan) {
          const from = Math.max(0, position - back);
          const to = from + size - 1;
          if (crashAt !== undefined) {
            h.system.failNextPut = {
              partition: 'orders-0',
              offset: from + crashAt,
              error: new RetriableError('connection reset'),
            };
          }
          const ok = await h.run(event(records(0, from, to))).then(
            () => true,
            (error: unknown) => {
              expect((error as RetriableError).retriable).toBe(true);
              return false;
            },
          );
          h.system.failNextPut = undefined;
          if (ok) position = Math.max(position, to + 1);
          const stored = (await h.stored())['orders-0'] ?? 0;
          expect(stored).toBeGreaterThanOrEqual(last);
          last = stored;
        }
        const committed = coordinatesOf(h.system.committed);
        expect(committed).toEqual(ids(records(0, 0, position - 1)));
        expect(last).toBe(position);
      }),
      { numRuns: 60 },
    );
  });

  it('throws a RetriableError and writes nothing when a partition has no task yet', async () => {
    const h = await harness({ tasks: [{ [TASK_PARTITIONS_KEY]: 'orders-0' }] });

    const result = h.run(event(records(0, 0, 2), records(1, 0, 2)));

    await expect(result).rejects.toBeInstanceOf(UnassignedPartitionError);
    await expect(result).rejects.toMatchObject({ retriable: true });
    await expect(result).rejects.toThrow(/orders-1/);
    expect(h.system.puts).toEqual([]);
    expect(await h.stored()).toEqual({});
  });

  it.each(['PAUSED', 'STOPPED'] as const)(
    'throws a RetriableError and writes nothing while the connector is %s',
    async (state) => {
      const h = await harness();
      await h.store.configs.setTargetState(h.name, state);

      const result = h.run(event(records(0, 0, 2)));

      await expect(result).rejects.toBeInstanceOf(ConnectorNotRunningError);
      await expect(result).rejects.toMatchObject({ retriable: true });
      expect(h.system.puts).toEqual([]);
      expect(await h.stored()).toEqual({});
    },
  );

  it('fails for a connector that does not exist', async () => {
    const h = await harness();
    await h.store.configs.deleteConnector(h.name);
    await expect(h.run(event(records(0, 0, 0)))).rejects.toBeInstanceOf(ConnectorNotFoundError);
  });

  it('returns an empty summary for an event without records', async () => {
    const h = await harness();
    const summary = await h.run({ eventSource: 'aws:kafka', records: {} });
    expect(summary).toEqual({
      connector: h.name,
      records: 0,
      written: 0,
      skipped: 0,
      dlq: 0,
      partitions: [],
    });
  });

  it('does not deliver records at or beyond the stopping offset (bounded mode)', async () => {
    const h = await harness({
      tasks: [
        { [TASK_PARTITIONS_KEY]: 'orders-0,orders-1', [TASK_STOPPING_OFFSETS_KEY]: 'orders-0=3' },
      ],
    });

    const summary = await h.run(event(records(0, 0, 5), records(1, 0, 1)));

    expect(coordinatesOf(h.system.committed)).toEqual(
      ids([...records(0, 0, 2), ...records(1, 0, 1)]),
    );
    expect(summary.partitions[0]).toMatchObject({ pastStopping: 3, skipped: 3, written: 3 });
    expect(await h.stored()).toEqual({ 'orders-0': 3, 'orders-1': 2 });
  });

  it('commits only the offsets preCommit returns, never above what was put', async () => {
    const h = await harness();
    h.system.preCommit = () => new Map([['orders-0', 2]]);

    await h.run(event(records(0, 0, 4), records(1, 0, 2)));

    expect(await h.stored()).toEqual({ 'orders-0': 2 });
    expect(h.logger.lines.some((l) => l.message.startsWith('preCommit held back offsets'))).toBe(
      true,
    );

    h.system.preCommit = () => new Map([['orders-1', 100]]);
    await h.run(event(records(1, 3, 4)));
    expect(await h.stored()).toEqual({ 'orders-0': 2, 'orders-1': 5 });
  });

  it('converts and transforms before put: routed records keep their original coordinates, dropped ones still advance', async () => {
    const h = await harness({
      config: {
        transforms: 'route,drop',
        'transforms.route.type': 'org.apache.kafka.connect.transforms.RegexRouter',
        'transforms.route.regex': 'orders',
        'transforms.route.replacement': 'orders-copy',
        'transforms.drop.type': 'org.apache.kafka.connect.transforms.Filter',
        'transforms.drop.predicate': 'odd',
        predicates: 'odd',
        'predicates.odd.type': 'org.apache.kafka.connect.transforms.predicates.HasHeaderKey',
        'predicates.odd.name': 'odd',
      },
    });
    const batch = records(0, 0, 3).map((r) =>
      r.offset % 2 === 1 ? { ...r, headers: [{ key: 'odd', value: null }] } : r,
    );

    const summary = await h.run(event(batch));

    expect(h.system.committed.map((r) => [r.topic, r.originalTopic, r.kafkaOffset])).toEqual([
      ['orders-copy', 'orders', 0],
      ['orders-copy', 'orders', 2],
    ]);
    expect(summary.partitions[0]).toMatchObject({ filtered: 2, written: 2 });
    expect(await h.stored()).toEqual({ 'orders-0': 4 });
  });

  it('gives each task its own partitions when several tasks own the batch', async () => {
    const h = await harness({
      tasks: [{ [TASK_PARTITIONS_KEY]: 'orders-0' }, { [TASK_PARTITIONS_KEY]: 'orders-1' }],
    });
    const assignments: string[][] = [];
    h.system.onPut = async (_records, context) => {
      assignments.push(context.assignment().map((tp) => `${tp.topic}-${tp.partition}`));
    };

    const summary = await h.run(event(records(0, 0, 1), records(1, 0, 2)));

    expect(h.system.puts.map(coordinatesOf).sort()).toEqual(
      [ids(records(0, 0, 1)), ids(records(1, 0, 2))].sort(),
    );
    expect(assignments.sort()).toEqual([['orders-0'], ['orders-1']]);
    expect(summary.partitions.map((p) => [p.partition, p.task])).toEqual([
      [0, 0],
      [1, 1],
    ]);
  });

  it('publishes metrics per connector and partition', async () => {
    const h = await harness();
    await h.run(event(records(0, 0, 4)));
    await h.run(event(records(0, 3, 6)));

    const last = h.metrics.at(-1);
    expect(last?.dimensions).toEqual({ Connector: h.name, Topic: TOPIC, Partition: '0' });
    expect(last?.values).toMatchObject({
      RecordsReceived: { value: 4, unit: 'Count' },
      RecordsWritten: { value: 2, unit: 'Count' },
      RecordsSkippedDuplicate: { value: 2, unit: 'Count' },
      RecordsSkippedPastStopping: { value: 0, unit: 'Count' },
      RecordsDeadLettered: { value: 0, unit: 'Count' },
      BatchEndOffset: { value: 6, unit: 'None' },
      BatchFailed: { value: 0, unit: 'Count' },
    });
    expect(last?.values.WriteLatency?.unit).toBe('Milliseconds');
  });
});
