import { describe, expect, it } from 'vitest';
import { RetriableError } from '../../../../shared/connect/errors.js';
import type { SourceOffsetEntry } from '../../../../shared/ports/offset-store.js';
import type { StateStore } from '../../../../shared/ports/state-store.js';
import { SourceTaskContextImpl } from '../../../../shared/runtime/source/source-task-context.js';
import {
  call,
  runTasks,
  sinkConfig,
  sinkHookCalls,
  sinkHookConfigs,
  sourceConfig,
  testApi,
} from './fixtures.js';

/** Task `task` commits `offsets` (seq 1) under a fresh lease, as the source runtime does. */
async function commitSourceOffsets(
  store: StateStore,
  connector: string,
  task: number,
  offsets: readonly SourceOffsetEntry[],
): Promise<void> {
  const ref = { connector, task };
  const lease = await store.leases.acquireLease({
    ...ref,
    owner: `o${task}`,
    generation: 1,
    ttlMs: 1000,
  });
  await store.offsets.writePendingSourceOffsets(ref, { seq: 1, offsets, positions: [] }, lease);
  await store.offsets.promotePendingSourceOffsets(ref, 1, lease);
}

const partition = (topic: string, p: unknown) => ({ kafka_topic: topic, kafka_partition: p });

async function stoppedSink(extra: Record<string, string> = {}) {
  const api = testApi();
  await call(api.router, 'POST', '/connectors', {
    body: { name: 's', config: sinkConfig(extra), initial_state: 'STOPPED' },
  });
  return api;
}

describe('OffsetsApi', () => {
  it('alters sink offsets of a STOPPED connector and reads them back', async () => {
    // Prepare
    const { router, store } = await stoppedSink();
    // Act
    const res = await call(router, 'PATCH', '/connectors/s/offsets', {
      body: {
        offsets: [
          { partition: partition('orders', '1'), offset: { kafka_offset: 42 } },
          { partition: partition('orders', 0), offset: { kafka_offset: '0' } },
        ],
      },
    });
    const read = await call(router, 'GET', '/connectors/s/offsets');
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'The offsets for this connector have been altered successfully',
    });
    expect(read.body.offsets).toEqual([
      { partition: partition('orders', 0), offset: { kafka_offset: 0 } },
      { partition: partition('orders', 1), offset: { kafka_offset: 42 } },
    ]);
    expect(await store.offsets.getSinkOffsets('s')).toEqual([
      { topic: 'orders', partition: 0, nextOffset: 0 },
      { topic: 'orders', partition: 1, nextOffset: 42 },
    ]);
    expect(sinkHookCalls.at(-1)).toEqual(
      new Map([
        ['orders-1', 42],
        ['orders-0', 0],
      ]),
    );
  });

  it("gives the connector's alterOffsets its config with placeholders resolved, never stored so", async () => {
    // Prepare: the config holds a placeholder of a provider the worker has
    const api = testApi(undefined, {}, undefined, {
      vault: {
        get: async (_path, keys) => Object.fromEntries([...keys].map((k) => [k, `resolved-${k}`])),
      },
    });
    const placeholder = '$' + '{vault:db:password}';
    await call(api.router, 'POST', '/connectors', {
      body: {
        name: 's',
        config: sinkConfig({ 'secret.token': placeholder }),
        initial_state: 'STOPPED',
      },
    });
    // Act
    const res = await call(api.router, 'PATCH', '/connectors/s/offsets', {
      body: { offsets: [{ partition: partition('orders', 0), offset: { kafka_offset: 3 } }] },
    });
    const stored = await call(api.router, 'GET', '/connectors/s/config');
    // Assess
    expect(res.status).toBe(200);
    expect(sinkHookConfigs.at(-1)?.['secret.token']).toBe('resolved-password');
    expect(stored.body['secret.token']).toBe(placeholder);
  });

  it('resets one partition with "offset": null', async () => {
    // Prepare
    const { router, store } = await stoppedSink();
    await store.offsets.commitSinkOffset('s', { topic: 'orders', partition: 0, nextOffset: 9 });
    await store.offsets.commitSinkOffset('s', { topic: 'orders', partition: 1, nextOffset: 9 });
    // Act
    const res = await call(router, 'PATCH', '/connectors/s/offsets', {
      body: { offsets: [{ partition: partition('orders', 0), offset: null }] },
    });
    // Assess
    expect(res.status).toBe(200);
    expect(await store.offsets.getSinkOffsets('s')).toEqual([
      { topic: 'orders', partition: 1, nextOffset: 9 },
    ]);
  });

  it.each(['RUNNING', 'PAUSED'])('answers 400 while the connector is %s', async (state) => {
    // Prepare
    const { router } = testApi();
    await call(router, 'POST', '/connectors', {
      body: { name: 's', config: sinkConfig(), initial_state: state },
    });
    // Act
    const res = await call(router, 'PATCH', '/connectors/s/offsets', {
      body: { offsets: [{ partition: partition('orders', 0), offset: { kafka_offset: 1 } }] },
    });
    const reset = await call(router, 'DELETE', '/connectors/s/offsets');
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/must be in the STOPPED state.*\/connectors\/s\/stop/);
    expect(reset.status).toBe(400);
  });

  it('accepts alterations once stopped after running (stop clears the task configs)', async () => {
    // Prepare
    const { router, store } = testApi();
    await call(router, 'POST', '/connectors', { body: { name: 's', config: sinkConfig() } });
    await runTasks(store, 's', 2);
    await call(router, 'PUT', '/connectors/s/stop');
    // Act
    const res = await call(router, 'PATCH', '/connectors/s/offsets', {
      body: { offsets: [{ partition: partition('orders', 0), offset: { kafka_offset: 5 } }] },
    });
    // Assess
    expect(res.status).toBe(200);
  });

  it.each([
    ['{}', {}],
    ['an empty list', { offsets: [] }],
    ['null offsets', { offsets: null }],
  ])('answers 400 for %s, even for an unknown connector', async (_case, body) => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'PATCH', '/connectors/ghost/offsets', { body });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      'Partitions / offsets need to be provided in order to alter offsets',
    );
  });

  it('answers 404 for a non-empty body on an unknown connector', async () => {
    // Prepare
    const { router } = testApi();
    // Act
    const res = await call(router, 'PATCH', '/connectors/ghost/offsets', {
      body: { offsets: [{ partition: partition('orders', 0), offset: null }] },
    });
    // Assess
    expect(res.status).toBe(404);
  });

  it.each([
    [
      'a non-numeric partition',
      { partition: partition('orders', 'abc'), offset: null },
      /partition value/,
    ],
    [
      'a missing kafka_topic',
      { partition: { kafka_partition: 0 }, offset: null },
      /must contain the keys/,
    ],
    ['a null partition', { partition: null, offset: null }, /cannot be null or missing/],
    [
      'an empty offset object',
      { partition: partition('orders', 0), offset: {} },
      /should either be null/,
    ],
    [
      'a non-numeric offset',
      { partition: partition('orders', 0), offset: { kafka_offset: 'x' } },
      /offset value/,
    ],
    [
      'a negative offset',
      { partition: partition('orders', 0), offset: { kafka_offset: -2 } },
      /non-negative/,
    ],
    [
      'an invalid topic',
      { partition: partition('a b', 0), offset: null },
      /not a valid Kafka topic/,
    ],
    [
      'an unknown entry field',
      { partition: partition('orders', 0), offset: null, x: 1 },
      /Unrecognized field "x"/,
    ],
  ])('answers 400 for %s', async (_case, entry, message) => {
    // Prepare
    const { router } = await stoppedSink();
    // Act
    const res = await call(router, 'PATCH', '/connectors/s/offsets', {
      body: { offsets: [entry] },
    });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
  });

  it('answers 400 for an unknown top-level field', async () => {
    // Prepare
    const { router } = await stoppedSink();
    // Act
    const res = await call(router, 'PATCH', '/connectors/s/offsets', {
      body: { offsets: [{ partition: partition('orders', 0), offset: null }], extra: true },
    });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/Unrecognized field "extra"/);
  });

  it('answers 400 when the connector refuses the change', async () => {
    // Prepare
    const { router } = await stoppedSink({ 'refuse.offsets': 'true' });
    // Act
    const res = await call(router, 'PATCH', '/connectors/s/offsets', {
      body: { offsets: [{ partition: partition('orders', 0), offset: null }] },
    });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      'The connector refused to change its offsets: offsets are managed elsewhere',
    );
  });

  it('resets all sink offsets, idempotently, then reads none', async () => {
    // Prepare
    const { router, store } = await stoppedSink();
    await store.offsets.commitSinkOffset('s', { topic: 'orders', partition: 0, nextOffset: 9 });
    // Act
    const first = await call(router, 'DELETE', '/connectors/s/offsets');
    const second = await call(router, 'DELETE', '/connectors/s/offsets');
    const read = await call(router, 'GET', '/connectors/s/offsets');
    // Assess
    expect(first.status).toBe(200);
    expect(first.body.message).toBe('The offsets for this connector have been reset successfully');
    expect(second.status).toBe(200);
    expect(read.body).toEqual({ offsets: [] });
  });

  it('reads source offsets: per partition the freshest entry across tasks', async () => {
    // Prepare
    const { router, store } = testApi();
    await call(router, 'POST', '/connectors', { body: { name: 'src', config: sourceConfig() } });
    await runTasks(store, 'src', 2);
    for (const [task, at, seq] of [
      [0, 10, 5],
      [1, 20, 7],
    ] as const) {
      await commitSourceOffsets(store, 'src', task, [{ partition: { p: 0 }, offset: { seq }, at }]);
    }
    // Act
    const res = await call(router, 'GET', '/connectors/src/offsets');
    // Assess
    expect(res.body).toEqual({ offsets: [{ partition: { p: 0 }, offset: { seq: 7 } }] });
  });

  describe('source connectors', () => {
    const p = (i: number) => ({ 'datagen.partition': i });

    /** A datagen source whose task 0 committed `offsets`, then stopped and fenced. */
    async function stoppedSource(offsets: readonly SourceOffsetEntry[] = []) {
      const api = testApi();
      await call(api.router, 'POST', '/connectors', {
        body: { name: 'src', config: sourceConfig() },
      });
      await runTasks(api.store, 'src', 1);
      if (offsets.length > 0) await commitSourceOffsets(api.store, 'src', 0, offsets);
      await call(api.router, 'PUT', '/connectors/src/stop');
      const stopped = await api.store.configs.getTaskConfigs('src');
      await api.store.configs.clearFencing('src', stopped.version);
      return api;
    }

    /** What task 0 of `src` reads at its next start (the runtime's offset lookup). */
    async function taskReads(store: StateStore, partitions: readonly Record<string, number>[]) {
      const own = await store.offsets.getSourceOffsets({ connector: 'src', task: 0 });
      const context = new SourceTaskContextImpl({
        config: {},
        own: () => own.committed?.offsets ?? [],
        offsets: store.offsets,
        ref: { connector: 'src', task: 0 },
        connectorDefinesBoundaries: false,
      });
      return context.offsetStorageReader.offsets(partitions);
    }

    it('alters offsets of a STOPPED source; GET and the next task start see them', async () => {
      // Prepare
      const { router, store } = await stoppedSource([
        { partition: p(0), offset: { seq: 500 }, at: 10 },
        { partition: p(1), offset: { seq: 700 }, at: 10 },
      ]);
      // Act
      const res = await call(router, 'PATCH', '/connectors/src/offsets', {
        body: {
          offsets: [
            { partition: p(0), offset: { seq: 5 } },
            { partition: p(2), offset: { seq: 9 } },
            { partition: p(2), offset: { seq: 12 } },
          ],
        },
      });
      const read = await call(router, 'GET', '/connectors/src/offsets');
      // Assess
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'The offsets for this connector have been altered successfully',
      });
      expect(read.body.offsets).toEqual([
        { partition: p(0), offset: { seq: 5 } },
        { partition: p(1), offset: { seq: 700 } },
        { partition: p(2), offset: { seq: 12 } },
      ]);
      expect(await taskReads(store, [p(0), p(1), p(2)])).toEqual([
        { partition: p(0), offset: { seq: 5 } },
        { partition: p(1), offset: { seq: 700 } },
        { partition: p(2), offset: { seq: 12 } },
      ]);
    });

    it('resets one partition with "offset": null: GET leaves it out, its task starts afresh', async () => {
      // Prepare
      const { router, store } = await stoppedSource([
        { partition: p(0), offset: { seq: 500 }, at: 10 },
        { partition: p(1), offset: { seq: 700 }, at: 10 },
      ]);
      // Act
      const res = await call(router, 'PATCH', '/connectors/src/offsets', {
        body: { offsets: [{ partition: p(0), offset: null }] },
      });
      const read = await call(router, 'GET', '/connectors/src/offsets');
      // Assess
      expect(res.status).toBe(200);
      expect(read.body).toEqual({ offsets: [{ partition: p(1), offset: { seq: 700 } }] });
      expect(await taskReads(store, [p(0), p(1)])).toEqual([
        { partition: p(1), offset: { seq: 700 } },
      ]);
    });

    it('resets all source offsets, idempotently: GET shows none, tasks start afresh', async () => {
      // Prepare
      const { router, store, kafka } = await stoppedSource([
        { partition: p(0), offset: { seq: 500 }, at: 10 },
      ]);
      await call(router, 'PATCH', '/connectors/src/offsets', {
        body: { offsets: [{ partition: p(3), offset: { seq: 3 } }] },
      });
      // Act
      const first = await call(router, 'DELETE', '/connectors/src/offsets');
      const second = await call(router, 'DELETE', '/connectors/src/offsets');
      const read = await call(router, 'GET', '/connectors/src/offsets');
      // Assess
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        message: 'The offsets for this connector have been reset successfully',
      });
      expect(second.status).toBe(200);
      expect(read.body).toEqual({ offsets: [] });
      expect(await taskReads(store, [p(0), p(3)])).toEqual([]);
      // In the offsets topic too, as Connect writes them (a lost state table is rebuilt from it):
      // the alteration's record, then a tombstone per partition at each reset.
      const decode = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b));
      const key = (i: number) => `["src",{"datagen.partition":${i}}]`;
      expect(kafka.sent.map((r) => [r.topic, decode(r.key), decode(r.value)])).toEqual([
        ['connect-offsets', key(3), '{"seq":3}'],
        ['connect-offsets', key(3), null],
        ['connect-offsets', key(0), null],
        ['connect-offsets', key(3), null],
        ['connect-offsets', key(0), null],
      ]);
    });

    it('answers 200 to a reset of a source that never committed offsets', async () => {
      // Prepare
      const { router } = testApi();
      await call(router, 'POST', '/connectors', {
        body: { name: 'src', config: sourceConfig(), initial_state: 'STOPPED' },
      });
      // Act
      const res = await call(router, 'DELETE', '/connectors/src/offsets');
      // Assess
      expect(res.status).toBe(200);
      expect((await call(router, 'GET', '/connectors/src/offsets')).body).toEqual({ offsets: [] });
    });

    it.each(['RUNNING', 'PAUSED'])(
      "answers 400 with Connect's message while the source is %s",
      async (state) => {
        // Prepare
        const { router, store } = testApi();
        await call(router, 'POST', '/connectors', {
          body: { name: 'src', config: sourceConfig(), initial_state: state },
        });
        // Act
        const alter = await call(router, 'PATCH', '/connectors/src/offsets', {
          body: { offsets: [{ partition: p(0), offset: { seq: 1 } }] },
        });
        const reset = await call(router, 'DELETE', '/connectors/src/offsets');
        // Assess
        expect(alter.status).toBe(400);
        expect(alter.body.message).toBe(
          "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/src/stop' endpoint",
        );
        expect(reset.status).toBe(400);
        expect(await store.offsets.listSourceOffsets('src')).toEqual([]);
      },
    );

    it('answers 409 until the stop has fenced the old tasks, then alters', async () => {
      // Prepare: the request cannot fence them itself (Kafka unavailable).
      const { router, store, kafka } = testApi();
      await call(router, 'POST', '/connectors', { body: { name: 'src', config: sourceConfig() } });
      await runTasks(store, 'src', 1);
      await call(router, 'PUT', '/connectors/src/stop');
      kafka.onConnect = async () => {
        throw new RetriableError('broker not available');
      };
      const body = { offsets: [{ partition: p(0), offset: { seq: 1 } }] };
      // Act
      const fencing = await call(router, 'PATCH', '/connectors/src/offsets', { body });
      const resetWhileFencing = await call(router, 'DELETE', '/connectors/src/offsets');
      // The enumerator's round completes the fencing.
      const stopped = await store.configs.getTaskConfigs('src');
      await store.configs.clearFencing('src', stopped.version);
      const fenced = await call(router, 'PATCH', '/connectors/src/offsets', { body });
      // Assess
      expect(fencing.status).toBe(409);
      expect(fencing.body.message).toMatch(/still being fenced/);
      expect(resetWhileFencing.status).toBe(409);
      expect(fenced.status).toBe(200);
    });

    it.each([
      ['a null partition', { partition: null, offset: null }, /cannot be null or missing/],
      [
        'a nested offset value',
        { partition: p(0), offset: { seq: { deep: 1 } } },
        /values must be/,
      ],
      ['an array partition value', { partition: { f: [1] }, offset: null }, /values must be/],
      ['an offset that is not an object', { partition: p(0), offset: 5 }, /JSON object or null/],
      ['an unknown entry field', { partition: p(0), offset: null, x: 1 }, /Unrecognized field/],
      [
        'a partition the connector refuses',
        { partition: { file: 'a' }, offset: null },
        /^The connector refused to change its offsets: Invalid datagen source partition/,
      ],
    ])('answers 400 for %s and changes nothing', async (_case, entry, message) => {
      // Prepare
      const { router, store } = await stoppedSource();
      // Act
      const res = await call(router, 'PATCH', '/connectors/src/offsets', {
        body: { offsets: [entry] },
      });
      // Assess
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
      expect(await store.offsets.listSourceOffsets('src')).toEqual([]);
    });
  });
});
