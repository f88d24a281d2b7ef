import { describe, expect, it } from 'vitest';
import { call, runTasks, sinkConfig, sinkHookCalls, sourceConfig, testApi } from './fixtures.js';

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
      { topic: 'orders', partition: 0, offset: -1 },
      { topic: 'orders', partition: 1, offset: 41 },
    ]);
    expect(sinkHookCalls.at(-1)).toEqual(
      new Map([
        ['orders-1', 42],
        ['orders-0', 0],
      ]),
    );
  });

  it('resets one partition with "offset": null', async () => {
    // Prepare
    const { router, store } = await stoppedSink();
    await store.offsets.commitSinkOffset('s', { topic: 'orders', partition: 0, offset: 9 });
    await store.offsets.commitSinkOffset('s', { topic: 'orders', partition: 1, offset: 9 });
    // Act
    const res = await call(router, 'PATCH', '/connectors/s/offsets', {
      body: { offsets: [{ partition: partition('orders', 0), offset: null }] },
    });
    // Assess
    expect(res.status).toBe(200);
    expect(await store.offsets.getSinkOffsets('s')).toEqual([
      { topic: 'orders', partition: 1, offset: 9 },
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
    await store.offsets.commitSinkOffset('s', { topic: 'orders', partition: 0, offset: 9 });
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
      const ref = { connector: 'src', task };
      const lease = await store.leases.acquireLease({
        ...ref,
        owner: `o${task}`,
        generation: 1,
        ttlMs: 1000,
      });
      await store.offsets.writePendingSourceOffsets(
        ref,
        { seq: 1, offsets: [{ partition: { p: 0 }, offset: { seq }, at }], positions: [] },
        lease,
      );
      await store.offsets.promotePendingSourceOffsets(ref, 1, lease);
    }
    // Act
    const res = await call(router, 'GET', '/connectors/src/offsets');
    // Assess
    expect(res.body).toEqual({ offsets: [{ partition: { p: 0 }, offset: { seq: 7 } }] });
  });

  it('answers 400 for nested source offset values and 501 for valid ones', async () => {
    // Prepare
    const { router } = testApi();
    await call(router, 'POST', '/connectors', {
      body: { name: 'src', config: sourceConfig(), initial_state: 'STOPPED' },
    });
    // Act
    const nested = await call(router, 'PATCH', '/connectors/src/offsets', {
      body: { offsets: [{ partition: { p: 0 }, offset: { seq: { deep: 1 } } }] },
    });
    const valid = await call(router, 'PATCH', '/connectors/src/offsets', {
      body: { offsets: [{ partition: { p: 0 }, offset: { seq: 1 } }] },
    });
    const resetEmpty = await call(router, 'DELETE', '/connectors/src/offsets');
    // Assess
    expect(nested.status).toBe(400);
    expect(valid.status).toBe(501);
    expect(valid.body.error_code).toBe(501);
    expect(resetEmpty.status).toBe(200);
  });
});
