import { describe, expect, it } from 'vitest';
import type { SourceTaskContext } from '../../../../../../shared/connect/context.js';
import { DataError } from '../../../../../../shared/connect/errors.js';
import { EMPTY_HEADERS } from '../../../../../../shared/connect/headers.js';
import type { SourceOffset, SourceRecord } from '../../../../../../shared/connect/records.js';
import { APACHE_VERIFIABLE_SOURCE_CLASS } from '../../../../../../shared/plugins/connectors/verifiable-source/descriptor.js';
import { VerifiableSourceConnector } from '../../../../../../shared/plugins/connectors/verifiable-source/verifiable-source-connector.js';
import { JsonConverter } from '../../../../../../shared/plugins/converters/json-converter.js';
import { builtinRegistry } from '../../../../../../shared/plugins/registry.js';
import { FakeClock } from '../datagen/fakes.js';

const decoder = new TextDecoder();

function context(stored: SourceOffset | null = null): SourceTaskContext {
  return {
    configs: () => ({}),
    offsetStorageReader: {
      offset: async () => stored,
      offsets: async (partitions) => partitions.map((partition) => ({ partition, offset: stored })),
    },
    transactionContext: null,
    pluginMetrics: () => ({ gauge: () => {} }),
  };
}

/** A connector over a fake clock whose sleep moves the clock (and counts the sleeps). */
function setUp() {
  const clock = new FakeClock(1_000_000);
  const sleeps: number[] = [];
  const connector = new VerifiableSourceConnector({
    clock,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock.advance(ms);
    },
  });
  return { clock, sleeps, connector };
}

async function startedTask(
  props: Record<string, string>,
  stored: SourceOffset | null = null,
  fixture = setUp(),
) {
  const task = fixture.connector.createTask();
  await task.start(
    { name: 'soak', topic: 'soak-topic', throughput: '-1', id: '0', ...props },
    context(stored),
  );
  return { task, ...fixture };
}

/** The record as a JsonConverter (schemas enabled, Connect's default) writes it. */
function asJson(record: SourceRecord): { key: string; value: string } {
  const key = new JsonConverter();
  key.configure({}, true);
  const value = new JsonConverter();
  value.configure({}, false);
  const bytes = (c: JsonConverter, schema: typeof record.keySchema, data: unknown) =>
    decoder.decode(
      c.fromConnectData(record.topic, EMPTY_HEADERS, schema, data) ?? new Uint8Array(),
    );
  return {
    key: bytes(key, record.keySchema, record.key),
    value: bytes(value, record.valueSchema, record.value),
  };
}

describe('VerifiableSourceConnector', () => {
  it("makes tasks.max task configs, each with its own id replacing the connector's", async () => {
    // Prepare
    const { connector } = setUp();
    await connector.start(
      { name: 'soak', topic: 't', throughput: '-1', id: '7' },
      {
        requestTaskReconfiguration: () => {},
        raiseError: () => {},
      },
    );
    // Act
    const configs = await connector.taskConfigs(3);
    // Assess
    expect(configs.map((c) => c.id)).toEqual(['0', '1', '2']);
    expect(configs[2]).toMatchObject({ name: 'soak', topic: 't', throughput: '-1' });
  });

  it("resolves by Apache Kafka's class name and by verifiable-source", () => {
    // Act
    const registry = builtinRegistry();
    // Assess
    for (const name of [APACHE_VERIFIABLE_SOURCE_CLASS, 'verifiable-source', 'VerifiableSource']) {
      expect(registry.resolve(name, 'source').create()).toBeInstanceOf(VerifiableSourceConnector);
    }
  });

  it('refuses offsets that are not its own, and accepts its own and resets', async () => {
    // Prepare
    const { connector } = setUp();
    // Act + Assess
    await expect(
      connector.alterOffsets({}, [{ partition: { id: 1 }, offset: { seqno: 41 } }]),
    ).resolves.toBe(true);
    await expect(
      connector.alterOffsets({}, [{ partition: { id: 1 }, offset: null }]),
    ).resolves.toBe(true);
    await expect(
      connector.alterOffsets({}, [{ partition: { task: 1 }, offset: { seqno: 1 } }]),
    ).rejects.toThrow(DataError);
    await expect(
      connector.alterOffsets({}, [{ partition: { id: 1 }, offset: { seqno: -1 } }]),
    ).rejects.toThrow(/Invalid verifiable source offset/);
  });
});

describe('VerifiableSourceTask', () => {
  it("writes Apache's records: key id (int32), value seqno (int64), offsets {id} → {seqno}", async () => {
    // Prepare
    const { task } = await startedTask({ id: '3', 'records.per.poll': '2' });
    // Act
    const records = (await task.poll()) ?? [];
    // Assess
    expect(records).toHaveLength(2);
    const [first, second] = records as [SourceRecord, SourceRecord];
    expect(first.sourcePartition).toEqual({ id: 3 });
    expect(first.sourceOffset).toEqual({ seqno: 0 });
    expect(second.sourceOffset).toEqual({ seqno: 1 });
    expect(first.topic).toBe('soak-topic');
    expect(first.kafkaPartition).toBeNull();
    expect(first.timestamp).toBeNull();
    expect([...first.headers]).toEqual([]);
    // The bytes of Apache Kafka's VerifiableSourceTask through the JsonConverter.
    expect(asJson(second)).toEqual({
      key: '{"schema":{"type":"int32","optional":false},"payload":3}',
      value: '{"schema":{"type":"int64","optional":false},"payload":1}',
    });
  });

  it('writes the struct {name, task, topic, time_ms, seqno} with complete.record.data=true', async () => {
    // Prepare
    const { task, clock } = await startedTask({ id: '1', 'complete.record.data': 'true' });
    // Act
    const [record] = (await task.poll()) ?? [];
    // Assess
    expect(asJson(record as SourceRecord).value).toBe(
      '{"schema":{"type":"struct","fields":[' +
        '{"type":"string","optional":false,"field":"name"},' +
        '{"type":"int32","optional":false,"field":"task"},' +
        '{"type":"string","optional":false,"field":"topic"},' +
        '{"type":"int64","optional":false,"field":"time_ms"},' +
        '{"type":"int64","optional":false,"field":"seqno"}],"optional":false},' +
        `"payload":{"name":"soak","task":1,"topic":"soak-topic","time_ms":${clock.now()},"seqno":0}}`,
    );
  });

  it('resumes after the committed seqno', async () => {
    // Prepare
    const { task } = await startedTask({ 'records.per.poll': '1' }, { seqno: 41 });
    // Act
    const [record] = (await task.poll()) ?? [];
    // Assess
    expect(record?.value).toBe(42);
  });

  it('refuses a stored offset that is not {seqno: n} with a DataError', async () => {
    // Act + Assess
    await expect(startedTask({}, { seqno: 'x' })).rejects.toThrow(DataError);
  });

  it('keeps the average at throughput records per second from its start, the first at once', async () => {
    // Prepare
    const { task, clock } = await startedTask({ throughput: '10' });
    // Act
    const first = await task.poll();
    clock.advance(1_000);
    const second = await task.poll();
    const third = await task.poll(); // none due: it waits for the next one (100 ms)
    // Assess
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(10);
    expect(third).toHaveLength(1);
    expect(third?.[0]?.value).toBe(11);
  });

  it('produces nothing with throughput 0, and stops after max.records', async () => {
    // Prepare
    const idle = await startedTask({ throughput: '0' });
    const bounded = await startedTask({ 'max.records': '3', 'records.per.poll': '2' });
    // Act
    const none = await idle.task.poll();
    const polls = [await bounded.task.poll(), await bounded.task.poll(), await bounded.task.poll()];
    // Assess
    expect(none).toBeNull();
    expect(idle.sleeps).toEqual([250]);
    expect(polls.map((p) => p?.map((r) => r.value) ?? null)).toEqual([[0, 1], [2], null]);
  });

  it('returns nothing once stopped', async () => {
    // Prepare
    const { task } = await startedTask({});
    // Act
    await task.stop();
    // Assess
    expect(await task.poll()).toBeNull();
  });
});
