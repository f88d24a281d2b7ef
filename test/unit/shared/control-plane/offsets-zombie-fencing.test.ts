import { describe, expect, it, vi } from 'vitest';
import { createMemoryStateStore } from '../../../../shared/adapters/memory/memory-state-store.js';
import { RetriableError } from '../../../../shared/connect/errors.js';
import { ZOMBIE_FENCING_TIMEOUT_MS } from '../../../../shared/control-plane/connect-service.js';
import { FakeKafkaClients } from '../runtime/enumerator/fixtures.js';
import { call, runTasks, sourceConfig, testApi } from './fixtures.js';

const body = { offsets: [{ partition: { 'datagen.partition': 0 }, offset: { seq: 7 } }] };

/**
 * The REST API of an engine whose offsets requests fence with fake Kafka clients: every producer
 * initialisation is recorded and then runs `onConnect` (to stall, fail, or race it).
 */
function fencingApi(timeoutMs?: number) {
  const onConnect: { hook: () => Promise<void> } = { hook: async () => {} };
  const kafka = new FakeKafkaClients();
  kafka.onConnect = () => onConnect.hook();
  const api = testApi(
    createMemoryStateStore(),
    {
      transactionalIdPrefix: 'tx',
      ...(timeoutMs === undefined ? {} : { zombieFencingTimeoutMs: timeoutMs }),
    },
    kafka,
  );
  return { ...api, initialised: kafka.fenced, onConnect };
}

/** A datagen source with two running tasks, task 0 held by an invocation, just stopped. */
async function stoppedRunningSource(api: ReturnType<typeof fencingApi>) {
  await call(api.router, 'POST', '/connectors', { body: { name: 'src', config: sourceConfig() } });
  await runTasks(api.store, 'src', 2);
  const generation = (await api.store.configs.getTaskConfigs('src')).tasks[0]?.generation ?? -1;
  const lease = await api.store.leases.acquireLease({
    connector: 'src',
    task: 0,
    owner: 'invocation',
    generation,
    ttlMs: 600_000,
  });
  const stop = await call(api.router, 'PUT', '/connectors/src/stop');
  expect(stop.status).toBe(204);
  expect((await api.store.configs.getTaskConfigs('src')).fencing).toEqual([0, 1]);
  return lease;
}

describe('offsets right after a stop (the stop’s zombie-fencing round inside the request)', () => {
  it('waits for the round at most ZOMBIE_FENCING_TIMEOUT_MS (10 s, inside API Gateway’s 29 s) by default', async () => {
    // Prepare
    const api = fencingApi();
    await stoppedRunningSource(api);
    api.onConnect.hook = () => new Promise<void>(() => {});
    vi.useFakeTimers();
    try {
      let answered = false;
      // Act
      const pending = call(api.router, 'PATCH', '/connectors/src/offsets', { body }).finally(() => {
        answered = true;
      });
      await vi.advanceTimersByTimeAsync(ZOMBIE_FENCING_TIMEOUT_MS - 1);
      const beforeBound = answered;
      await vi.advanceTimersByTimeAsync(1);
      const res = await pending;
      // Assess
      expect(ZOMBIE_FENCING_TIMEOUT_MS).toBe(10_000);
      expect(beforeBound).toBe(false);
      expect(res.status).toBe(409);
    } finally {
      vi.useRealTimers();
    }
  });

  it('fences the stopped tasks and alters at once (200): leases revoked, ids initialised, list emptied', async () => {
    // Prepare
    const api = fencingApi();
    const lease = await stoppedRunningSource(api);
    // Act
    const res = await call(api.router, 'PATCH', '/connectors/src/offsets', { body });
    const read = await call(api.router, 'GET', '/connectors/src/offsets');
    // Assess
    expect(res.status).toBe(200);
    expect(res.body.message).toMatch(/altered successfully/);
    expect(api.initialised).toEqual(['tx-src-0', 'tx-src-1']);
    await expect(api.store.leases.renewLease(lease, 1_000)).rejects.toThrow();
    expect((await api.store.configs.getTaskConfigs('src')).fencing).toBeUndefined();
    expect(read.body.offsets).toEqual(body.offsets);
  });

  it('fences the stopped tasks inside a reset too (DELETE 200)', async () => {
    // Prepare
    const api = fencingApi();
    await stoppedRunningSource(api);
    // Act
    const res = await call(api.router, 'DELETE', '/connectors/src/offsets');
    // Assess
    expect(res.status).toBe(200);
    expect(api.initialised).toEqual(['tx-src-0', 'tx-src-1']);
    expect((await api.store.configs.getTaskConfigs('src')).fencing).toBeUndefined();
  });

  it('answers 409 past the bound and changes nothing; the round goes on, and a retry alters', async () => {
    // Prepare
    const api = fencingApi(50);
    await stoppedRunningSource(api);
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    api.onConnect.hook = () => released;
    // Act
    const first = await call(api.router, 'PATCH', '/connectors/src/offsets', { body });
    const stored = await api.store.offsets.listSourceOffsets('src');
    release();
    await expect
      .poll(async () => (await api.store.configs.getTaskConfigs('src')).fencing)
      .toBe(undefined);
    const retry = await call(api.router, 'PATCH', '/connectors/src/offsets', { body });
    // Assess
    expect(first.status).toBe(409);
    expect(first.body.message).toMatch(/still being fenced after the stop; retry/);
    expect(stored).toEqual([]);
    expect(api.logger.lines.map((l) => l.message)).toContain(
      'the stop’s zombie-fencing round did not finish within the request',
    );
    expect(retry.status).toBe(200);
  });

  it('takes a round the enumerator completed meanwhile as done (200), not as a conflict', async () => {
    // Prepare: while this request initialises a producer, the enumerator's round revokes and
    // empties the list first.
    const api = fencingApi();
    await stoppedRunningSource(api);
    api.onConnect.hook = async () => {
      api.onConnect.hook = async () => {};
      await api.store.leases.revokeLease({ connector: 'src', task: 0 });
      const set = await api.store.configs.getTaskConfigs('src');
      await api.store.configs.clearFencing('src', set.version);
    };
    // Act
    const res = await call(api.router, 'PATCH', '/connectors/src/offsets', { body });
    // Assess
    expect(res.status).toBe(200);
    expect((await api.store.configs.getTaskConfigs('src')).fencing).toBeUndefined();
  });

  it('checks again after the round, as Connect does: task configs written meanwhile answer 400', async () => {
    // Prepare: an enumerator run that read the connector RUNNING before the stop writes its
    // task configs while this request fences.
    const api = fencingApi();
    await stoppedRunningSource(api);
    api.onConnect.hook = async () => {
      api.onConnect.hook = async () => {};
      const set = await api.store.configs.getTaskConfigs('src');
      await api.store.configs.putTaskConfigs('src', [{ 'task.id': '0' }], set.version);
    };
    // Act
    const res = await call(api.router, 'PATCH', '/connectors/src/offsets', { body });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/must be in the STOPPED state/);
    expect(await api.store.offsets.listSourceOffsets('src')).toEqual([]);
  });

  it('answers 409 when Kafka fails retriably, 500 when the round fails for good', async () => {
    // Prepare
    const unavailable = fencingApi();
    await stoppedRunningSource(unavailable);
    unavailable.onConnect.hook = async () => {
      throw new RetriableError('broker not available');
    };
    const broken = fencingApi();
    await stoppedRunningSource(broken);
    broken.onConnect.hook = async () => {
      throw new Error('not authorised for the transactional id');
    };
    // Act
    const retriable = await call(unavailable.router, 'PATCH', '/connectors/src/offsets', { body });
    const fatal = await call(broken.router, 'PATCH', '/connectors/src/offsets', { body });
    // Assess
    expect(retriable.status).toBe(409);
    expect(retriable.body.message).toMatch(/still being fenced/);
    expect(fatal.status).toBe(500);
    expect(fatal.body.message).not.toMatch(/authorised/);
    expect(await unavailable.store.offsets.listSourceOffsets('src')).toEqual([]);
    expect(await broken.store.offsets.listSourceOffsets('src')).toEqual([]);
  });
});
