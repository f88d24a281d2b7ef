import { describe, expect, it } from 'vitest';
import { RetriableError } from '../../../../../../shared/connect/errors.js';
import { mappingGroupId } from '../../../../../../shared/runtime/enumerator/sink-mappings.js';
import {
  CONNECTOR,
  container,
  deliver,
  GROUP,
  mirrorConfig,
  nextOffsets,
  range,
  startedTask,
  text,
} from './harness.js';

const ID0 = 'sc-mirror-orders/0';
const ID1 = 'sc-mirror-orders/1';

describe('KafkaSinkTask (exactly once per input partition)', () => {
  it('writes one transaction per input partition with the connector group’s offsets, not the mapping’s', async () => {
    // Prepare
    const { task, kafka } = await startedTask();
    const batch = [...range(0, 0, 2), ...range(1, 10, 11)];

    // Act
    const returned = await deliver(task, batch);

    // Assess
    expect(returned).toEqual(nextOffsets(batch));
    expect(kafka.calls.filter((c) => c.startsWith('commit')).sort()).toEqual([
      `commit ${ID0}`,
      `commit ${ID1}`,
    ]);
    expect(kafka.calls).toContain(`sendOffsets ${ID0} ${GROUP} orders-0=3`);
    expect(kafka.calls).toContain(`sendOffsets ${ID1} ${GROUP} orders-1=12`);
    expect(kafka.groups.has(mappingGroupId(CONNECTOR, 'orders'))).toBe(false);
    expect(kafka.committed('orders.replica', 0).map((r) => text(r.value))).toEqual([
      'v0-0',
      'v0-1',
      'v0-2',
    ]);
    expect(kafka.committed('orders.replica', 1).map((r) => text(r.value))).toEqual([
      'v1-10',
      'v1-11',
    ]);
    expect(task.counts().get('orders-0')).toEqual({ written: 3, skipped: 0, transactions: 1 });
  });

  it('skips records below the group’s committed offset (an earlier invocation wrote them)', async () => {
    // Prepare
    const box = container();
    box.kafka.commitGroup(GROUP, 'orders', 0, 5);
    const { task, kafka } = await startedTask(mirrorConfig(), box);

    // Act
    await deliver(task, range(0, 3, 7));

    // Assess
    expect(kafka.committed('orders.replica', 0).map((r) => text(r.value))).toEqual([
      'v0-5',
      'v0-6',
      'v0-7',
    ]);
    expect(kafka.groupOffset(GROUP, 'orders', 0)).toBe(8);
    expect(task.counts().get('orders-0')).toEqual({ written: 3, skipped: 2, transactions: 1 });
  });

  it('reads the committed offset only after initialising the producer', async () => {
    // Prepare
    const { task, kafka } = await startedTask();

    // Act
    await deliver(task, range(0, 0, 0));

    // Assess
    const init = kafka.calls.indexOf(`init ${ID0}`);
    const fetch = kafka.calls.indexOf(`fetch ${GROUP} orders`);
    expect(init).toBeGreaterThanOrEqual(0);
    expect(fetch).toBeGreaterThan(init);
  });

  it('commits nothing when the group is already past the batch, yet returns the offsets', async () => {
    // Prepare
    const box = container();
    box.kafka.commitGroup(GROUP, 'orders', 0, 10);
    const { task, kafka } = await startedTask(mirrorConfig(), box);
    const batch = range(0, 4, 9);

    // Act
    const returned = await deliver(task, batch);

    // Assess
    expect(returned).toEqual(nextOffsets(batch));
    expect(kafka.calls.some((c) => c.startsWith('commit'))).toBe(false);
    expect(kafka.committed('orders.replica', 0)).toEqual([]);
    expect(task.counts().get('orders-0')).toEqual({ written: 0, skipped: 6, transactions: 0 });
  });

  it('skips a redelivered batch from the offset it cached after its own commit, without reading again', async () => {
    // Prepare
    const { task, kafka } = await startedTask();
    await deliver(task, range(0, 0, 4));
    const fetches = kafka.calls.filter((c) => c.startsWith('fetch')).length;

    // Act: the runner's sink offset write was lost; the mapping redelivers with other boundaries.
    await deliver(task, range(0, 2, 6));

    // Assess
    expect(kafka.calls.filter((c) => c.startsWith('fetch'))).toHaveLength(fetches);
    expect(kafka.committed('orders.replica', 0).map((r) => text(r.value))).toEqual(
      range(0, 0, 6).map((r) => text(r.value as Uint8Array)),
    );
  });

  it('moves the group offset even when every record of a partition was filtered out', async () => {
    // Prepare
    const { task, kafka } = await startedTask();

    // Act: the runner passes the offsets of records that transformations dropped.
    await task.put([]);
    await task.preCommit(new Map([['orders-2', 42]]));

    // Assess
    expect(kafka.groupOffset(GROUP, 'orders', 2)).toBe(42);
    expect(kafka.committed('orders.replica', 2)).toEqual([]);
  });

  it('reopens a warm producer another container fenced, within the invocation, skipping what that container wrote', async () => {
    // Prepare
    const { task, kafka } = await startedTask();
    await deliver(task, range(0, 0, 1));
    const { task: newer } = await startedTask(mirrorConfig(), container(kafka));
    await deliver(newer, range(0, 0, 3)); // fences the first task's producer
    // Act
    await deliver(task, range(0, 2, 5));
    // Assess
    expect(kafka.calls.filter((c) => c === `close ${ID0}`)).toHaveLength(1);
    expect(kafka.calls.filter((c) => c === `init ${ID0}`)).toHaveLength(3);
    expect(kafka.committed('orders.replica', 0).map((r) => text(r.value))).toEqual(
      range(0, 0, 5).map((r) => text(r.value as Uint8Array)),
    );
    expect(kafka.groupOffset(GROUP, 'orders', 0)).toBe(6);
  });

  it('throws a RetriableError when the producer it just opened is fenced by an overlapping invocation', async () => {
    // Prepare: the first container's producer is opened for this batch, then fenced mid-batch.
    const { task, kafka } = await startedTask();
    const { task: overlapping } = await startedTask(mirrorConfig(), container(kafka));
    const send = kafka.beforeSend;
    kafka.beforeSend = async (id) => {
      kafka.beforeSend = send;
      await deliver(overlapping, range(0, 0, 2));
      await send?.(id);
    };
    // Act
    const fenced = deliver(task, range(0, 0, 3));
    // Assess
    await expect(fenced).rejects.toBeInstanceOf(RetriableError);
    await expect(fenced).rejects.toThrow(/fenced by a newer invocation/);
    expect(kafka.groupOffset(GROUP, 'orders', 0)).toBe(3);
  });

  it('settles a commit whose answer was lost by its first record’s fate, then skips what it wrote', async () => {
    // Prepare
    const { task, kafka } = await startedTask();
    kafka.commitFailures.set(ID0, 'lost-after-commit');
    // The group offset reads stale: the broker has not applied the transactional commit yet.
    const fetch = kafka.admin.committedOffsets;
    kafka.admin.committedOffsets = async (group, topic) =>
      (await fetch(group, topic)).filter(() => false);

    // Act
    const lost = deliver(task, range(0, 0, 3));
    await expect(lost).rejects.toThrow(/commit outcome .* is unknown/);
    await deliver(task, range(0, 0, 4));

    // Assess
    expect(kafka.committed('orders.replica', 0).map((r) => text(r.value))).toEqual(
      range(0, 0, 4).map((r) => text(r.value as Uint8Array)),
    );
    expect(task.counts().get('orders-0')).toEqual({ written: 1, skipped: 4, transactions: 1 });
  });

  it('writes the batch again when the commit whose answer was lost never happened', async () => {
    // Prepare
    const { task, kafka } = await startedTask();
    kafka.commitFailures.set(ID0, 'lost-before-commit');

    // Act
    await expect(deliver(task, range(0, 0, 3))).rejects.toBeInstanceOf(RetriableError);
    await deliver(task, range(0, 0, 3));

    // Assess
    expect(kafka.committed('orders.replica', 0).map((r) => text(r.value))).toEqual(
      range(0, 0, 3).map((r) => text(r.value as Uint8Array)),
    );
    expect(kafka.groupOffset(GROUP, 'orders', 0)).toBe(4);
  });

  it('keeps only the last put of the same offsets when put is retried before preCommit', async () => {
    // Prepare
    const { task, kafka } = await startedTask();

    // Act
    await task.put(range(0, 0, 3));
    await task.put(range(0, 0, 3));
    await task.preCommit(new Map([['orders-0', 4]]));

    // Assess
    expect(kafka.committed('orders.replica', 0)).toHaveLength(4);
  });

  it('closes every producer on stop', async () => {
    // Prepare
    const { task, kafka } = await startedTask();
    await deliver(task, [...range(0, 0, 0), ...range(1, 0, 0)]);

    // Act
    await task.stop();

    // Assess
    expect(kafka.calls.filter((c) => c.startsWith('close')).sort()).toEqual([
      `close ${ID0}`,
      `close ${ID1}`,
    ]);
  });

  it('builds producers with the producer.override.* settings', async () => {
    // Prepare
    const { task, kafka } = await startedTask(
      mirrorConfig({ 'producer.override.compression.type': 'zstd' }),
    );

    // Act
    await deliver(task, range(0, 0, 0));

    // Assess
    expect(kafka.built).toEqual([{ id: ID0, options: { compression: 'zstd' } }]);
  });
});
