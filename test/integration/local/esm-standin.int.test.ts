import type { Admin, Kafka, Message } from 'kafkajs';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { LambdaLikeContext } from '../../../local/esm/lambda-context.js';
import {
  LocalEventSourceMappings,
  type LocalEventSourceMappingsOptions,
} from '../../../local/esm/local-event-source-mappings.js';
import type { KafkaEsmEvent, KafkaEsmRecord } from '../../../shared/adapters/lambda/esm-event.js';
import { MemorySinkMappings } from '../../../shared/adapters/memory/memory-sink-mappings.js';
import type { SinkMapping, SinkMappingSpec } from '../../../shared/ports/dispatch.js';
import { silentLogger } from '../../../shared/ports/logger.js';
import { createTopics, testKafka, uniqueName } from '../../support/services.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting for the condition');
    await sleep(25);
  }
}

interface Invocation {
  readonly event: KafkaEsmEvent;
  readonly context: LambdaLikeContext;
  readonly records: readonly KafkaEsmRecord[];
  readonly ok: boolean;
}

/** A sink-task handler that records every invocation and can be told to fail. */
class RecordingHandler {
  readonly invocations: Invocation[] = [];
  failuresLeft = 0;
  /** Invocations of this partition fail while it is set. */
  failingPartition: number | undefined;
  /** When set, each invocation waits for it before returning. */
  gate: Promise<void> | undefined;
  /** Invocations that have not returned yet. */
  inFlight = 0;

  readonly handle = async (event: KafkaEsmEvent, context: LambdaLikeContext) => {
    const records = Object.values(event.records).flat();
    const ok =
      this.failuresLeft === 0 &&
      (this.failingPartition === undefined || records[0]?.partition !== this.failingPartition);
    if (this.failuresLeft > 0) this.failuresLeft -= 1;
    this.invocations.push({ event, context, records, ok });
    this.inFlight += 1;
    try {
      await this.gate;
      if (!ok) throw new Error('sink unavailable');
    } finally {
      this.inFlight -= 1;
    }
  };

  /** Records of the successful invocations, in delivery order. */
  get delivered(): KafkaEsmRecord[] {
    return this.invocations.filter((i) => i.ok).flatMap((i) => i.records);
  }
}

const decode = (base64: string | null | undefined) =>
  base64 === undefined || base64 === null ? null : Buffer.from(base64, 'base64').toString();

describe('LocalEventSourceMappings (real broker)', () => {
  let kafka: Kafka;
  let admin: Admin;
  const opened: LocalEventSourceMappings[] = [];

  beforeAll(async () => {
    kafka = testKafka();
    admin = kafka.admin();
    await admin.connect();
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((standin) => standin.close()));
  });

  afterAll(async () => {
    await admin.disconnect();
  });

  async function topic(partitions = 1): Promise<string> {
    const name = uniqueName('esm');
    await createTopics(admin, [{ topic: name, numPartitions: partitions }]);
    return name;
  }

  async function produce(topicName: string, messages: Message[]): Promise<void> {
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: topicName, messages });
    await producer.disconnect();
  }

  async function standin(
    handler: RecordingHandler,
    spec: Partial<SinkMappingSpec> & { topic: string },
    options: LocalEventSourceMappingsOptions = {},
  ) {
    const mappings = new MemorySinkMappings();
    const esm = new LocalEventSourceMappings(
      {
        mappings,
        brokers: inject('kafkaBrokers'),
        handler: handler.handle,
        aliasFor: (connector) => `${connector}-live`,
        logger: silentLogger,
      },
      { retryInitialMs: 50, retryMaxMs: 200, ...options },
    );
    opened.push(esm);
    await esm.start();
    const mapping = await mappings.create({
      connector: uniqueName('sink'),
      groupId: uniqueName('esm-group'),
      startingPosition: 'TRIM_HORIZON',
      batchSize: 100,
      maxBatchingWindowSeconds: 0,
      enabled: true,
      ...spec,
    });
    await esm.whenIdle();
    return { mappings, esm, mapping };
  }

  async function committedOffsets(groupId: string, topicName: string) {
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [topicName] });
    return (offsets?.partitions ?? [])
      .map((p) => ({ partition: p.partition, offset: p.offset }))
      .sort((a, b) => a.partition - b.partition);
  }

  async function endOffsets(topicName: string) {
    return (await admin.fetchTopicOffsets(topicName))
      .map((p) => ({ partition: p.partition, offset: p.high }))
      .sort((a, b) => a.partition - b.partition);
  }

  async function setEnabled(mappings: MemorySinkMappings, mapping: SinkMapping, enabled: boolean) {
    return mappings.update(mapping, { ...mapping, enabled });
  }

  it('delivers every record once, in offset order per partition, as the ESM event shape', async () => {
    // Prepare
    const name = await topic(2);
    const handler = new RecordingHandler();
    const { mapping } = await standin(handler, { topic: name, batchSize: 7 });
    const messages: Message[] = Array.from({ length: 40 }, (_, i) => ({
      partition: i % 2,
      key: `k${i}`,
      value: i === 5 ? null : `v${i}`,
      headers: { trace: Buffer.from([97, 98, 0xc3, 0xab]) },
    }));

    // Act
    await produce(name, messages);
    await waitFor(() => handler.delivered.length >= 40);

    // Assess
    const delivered = handler.delivered;
    expect(delivered).toHaveLength(40);
    for (const partition of [0, 1]) {
      const offsets = delivered.filter((r) => r.partition === partition).map((r) => r.offset);
      expect(offsets).toEqual(Array.from({ length: 20 }, (_, i) => i));
    }
    const byKey = new Map(delivered.map((r) => [decode(r.key), r]));
    expect(decode(byKey.get('k8')?.value)).toBe('v8');
    expect(byKey.get('k5')?.value ?? null).toBeNull();
    expect(byKey.get('k3')?.headers).toEqual([{ trace: [97, 98, -61, -85] }]);
    const first = handler.invocations[0];
    expect(first?.event.eventSource).toBe('SelfManagedKafka');
    expect(first?.event.bootstrapServers).toBe(inject('kafkaBrokers').join(','));
    expect(Object.keys(first?.event.records ?? {})[0]).toMatch(new RegExp(`^${name}-[01]$`));
    expect(first?.context.invokedFunctionArn).toBe(
      `arn:aws:lambda:local:000000000000:function:sink-task:${mapping.connector}-live`,
    );
    expect(Math.max(...handler.invocations.map((i) => i.records.length))).toBeLessThanOrEqual(7);
  });

  it('redelivers the same records after failed invocations and then commits up to the end', async () => {
    // Prepare
    const name = await topic();
    const handler = new RecordingHandler();
    handler.failuresLeft = 3;
    const { esm, mapping } = await standin(handler, { topic: name });

    // Act
    await produce(
      name,
      Array.from({ length: 10 }, (_, i) => ({ value: `v${i}` })),
    );
    await waitFor(() => handler.delivered.length >= 10);

    // Assess
    const failed = handler.invocations.filter((i) => !i.ok);
    expect(failed).toHaveLength(3);
    for (const attempt of failed) expect(attempt.records[0]?.offset).toBe(0);
    expect(handler.delivered.map((r) => r.offset)).toEqual(Array.from({ length: 10 }, (_, i) => i));
    const ends = await endOffsets(name);
    await waitFor(() => esm.status()[0]?.deliveredRecords === 10);
    expect(await committedOffsets(mapping.groupId, name)).toEqual(ends);
    expect(esm.status()[0]).toMatchObject({
      state: 'running',
      failedInvocations: 3,
      lastError: 'Error: sink unavailable',
    });
  });

  it('keeps delivering the other partitions while one partition keeps failing, as Lambda does', async () => {
    // Prepare
    const name = await topic(2);
    const handler = new RecordingHandler();
    handler.failingPartition = 0;
    const { esm } = await standin(handler, { topic: name }, { retryMaxMs: 100 });
    const send = (partition: number, values: string[]) =>
      produce(
        name,
        values.map((value) => ({ partition, value })),
      );
    await send(0, ['a0', 'a1']);
    await send(1, ['b0']);
    await waitFor(() => handler.invocations.filter((i) => !i.ok).length >= 3);

    // Act: more records for the healthy partition while the other one keeps failing
    await send(1, ['b1', 'b2']);
    await waitFor(() => handler.delivered.length >= 3);
    const whileFailing = handler.delivered.map((r) => decode(r.value));
    handler.failingPartition = undefined;
    await waitFor(() => handler.delivered.length >= 5);

    // Assess
    expect(whileFailing).toEqual(['b0', 'b1', 'b2']);
    const failed = handler.invocations.filter((i) => !i.ok);
    expect(failed.every((i) => i.records[0]?.offset === 0)).toBe(true);
    const partition0 = handler.delivered.filter((r) => r.partition === 0);
    expect(partition0.map((r) => decode(r.value))).toEqual(['a0', 'a1']);
    await waitFor(() => esm.status()[0]?.deliveredRecords === 5);
  });

  it('delivers nothing while disabled and, once enabled again, the records produced meanwhile', async () => {
    // Prepare
    const name = await topic();
    const handler = new RecordingHandler();
    const { mappings, esm, mapping } = await standin(handler, { topic: name });
    await produce(name, [{ value: 'a' }, { value: 'b' }]);
    await waitFor(() => handler.delivered.length >= 2);

    // Act
    const disabled = await setEnabled(mappings, mapping, false);
    await esm.whenIdle();
    await produce(name, [{ value: 'c' }, { value: 'd' }, { value: 'e' }]);
    await sleep(800);
    const whileDisabled = handler.invocations.length;
    const stateWhileDisabled = esm.status()[0]?.state;
    await setEnabled(mappings, disabled, true);
    await esm.whenIdle();
    await waitFor(() => handler.delivered.length >= 5);
    await sleep(300);

    // Assess
    expect(whileDisabled).toBe(1);
    expect(stateWhileDisabled).toBe('stopped');
    expect(handler.delivered.map((r) => decode(r.value))).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('stops delivering when the mapping is deleted', async () => {
    // Prepare
    const name = await topic();
    const handler = new RecordingHandler();
    const { mappings, esm, mapping } = await standin(handler, { topic: name });
    await produce(name, [{ value: 'a' }]);
    await waitFor(() => handler.delivered.length >= 1);

    // Act
    await mappings.delete(mapping);
    await esm.whenIdle();
    await produce(name, [{ value: 'b' }]);
    await sleep(800);

    // Assess
    expect(handler.delivered.map((r) => decode(r.value))).toEqual(['a']);
    expect(esm.status()).toEqual([]);
  });

  it('never delivers records of an aborted transaction', async () => {
    // Prepare
    const name = await topic();
    const handler = new RecordingHandler();
    const { esm, mapping } = await standin(handler, { topic: name });
    const producer = kafka.producer({
      transactionalId: uniqueName('esm-tx'),
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();

    // Act
    const committed = await producer.transaction();
    await committed.send({ topic: name, messages: [{ value: 'c1' }, { value: 'c2' }] });
    await committed.commit();
    const aborted = await producer.transaction();
    await aborted.send({ topic: name, messages: [{ value: 'x1' }, { value: 'x2' }] });
    await aborted.abort();
    const last = await producer.transaction();
    await last.send({ topic: name, messages: [{ value: 'c3' }] });
    await last.commit();
    await producer.disconnect();
    await waitFor(() => handler.delivered.length >= 3);
    await sleep(300);

    // Assess
    expect(handler.delivered.map((r) => decode(r.value))).toEqual(['c1', 'c2', 'c3']);
    // The group moves past the transaction markers too, so its lag reaches 0.
    const ends = await endOffsets(name);
    await waitFor(() => esm.status()[0]?.deliveredRecords === 3);
    expect(await committedOffsets(mapping.groupId, name)).toEqual(ends);
  });

  it('keeps one consumer per mapping through rapid flapping and applies a new batch size', async () => {
    // Prepare
    const name = await topic();
    const handler = new RecordingHandler();
    const { mappings, esm, mapping } = await standin(handler, { topic: name, enabled: false });

    // Act
    let current = mapping;
    for (let i = 0; i < 6; i += 1) {
      current = await setEnabled(mappings, current, i % 2 === 0);
    }
    current = await mappings.update(current, { ...current, enabled: true, batchSize: 2 });
    await esm.whenIdle();
    await produce(
      name,
      Array.from({ length: 9 }, (_, i) => ({ value: `v${i}` })),
    );
    await waitFor(() => handler.delivered.length >= 9);
    const [group] = (await admin.describeGroups([mapping.groupId])).groups;

    // Assess
    expect(group?.members).toHaveLength(1);
    expect(handler.delivered.map((r) => r.offset)).toEqual(Array.from({ length: 9 }, (_, i) => i));
    expect(Math.max(...handler.invocations.map((i) => i.records.length))).toBe(2);
  });

  it('stops retrying promptly when disabled, commits nothing, and redelivers once enabled', async () => {
    // Prepare
    const name = await topic();
    const handler = new RecordingHandler();
    handler.failuresLeft = Number.POSITIVE_INFINITY;
    const { mappings, esm, mapping } = await standin(
      handler,
      { topic: name },
      { retryInitialMs: 4_000, retryMaxMs: 4_000 },
    );
    await produce(name, [{ value: 'a' }, { value: 'b' }]);
    await waitFor(() => handler.invocations.length >= 1);

    // Act
    const started = Date.now();
    const disabled = await setEnabled(mappings, mapping, false);
    await esm.whenIdle();
    const stopMs = Date.now() - started;
    const committedWhileFailing = await committedOffsets(mapping.groupId, name);
    handler.failuresLeft = 0;
    await setEnabled(mappings, disabled, true);
    await esm.whenIdle();
    await waitFor(() => handler.delivered.length >= 2);

    // Assess
    expect(stopMs).toBeLessThan(1_500);
    expect(committedWhileFailing).toEqual([{ partition: 0, offset: '-1' }]);
    expect(handler.delivered.map((r) => decode(r.value))).toEqual(['a', 'b']);
  });

  it('keeps its group membership through an invocation longer than the session timeout', async () => {
    // Prepare
    const name = await topic();
    const handler = new RecordingHandler();
    handler.gate = sleep(7_500);
    const { esm, mapping } = await standin(
      handler,
      { topic: name },
      { sessionTimeoutMs: 6_000, heartbeatEveryMs: 500 },
    );

    // Act
    await produce(name, [{ value: 'slow' }]);
    await waitFor(() => esm.status()[0]?.deliveredRecords === 1, 20_000);
    handler.gate = undefined;
    await produce(name, [{ value: 'next' }]);
    await waitFor(() => handler.delivered.length >= 2);

    // Assess: no rebalance took the partition away, so nothing was delivered twice
    expect(handler.delivered.map((r) => decode(r.value))).toEqual(['slow', 'next']);
    expect(await committedOffsets(mapping.groupId, name)).toEqual(await endOffsets(name));
  });

  it('waits on close for the invocation in flight to finish', async () => {
    // Prepare
    const name = await topic();
    const handler = new RecordingHandler();
    let release: () => void = () => {};
    handler.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { esm } = await standin(handler, { topic: name });
    await produce(name, [{ value: 'a' }]);
    await waitFor(() => handler.invocations.length >= 1);

    // Act
    let closed = false;
    const closing = esm.close().then(() => {
      closed = true;
    });
    await sleep(300);
    const closedWhileInFlight = closed;
    release();
    await closing;

    // Assess
    expect(closedWhileInFlight).toBe(false);
    expect(handler.inFlight).toBe(0);
    expect(esm.status()[0]?.state).toBe('stopped');
  });
});
