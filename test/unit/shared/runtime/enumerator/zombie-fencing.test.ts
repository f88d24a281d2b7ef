import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_SETTINGS } from '../../../../../shared/engine/engine.js';
import type {
  TopicPartitionOffset,
  TransactionalRecordFate,
} from '../../../../../shared/ports/kafka.js';
import { LOGGERS, type LogFields, silentLogger } from '../../../../../shared/ports/logger.js';
import type { PendingSourceOffsets } from '../../../../../shared/ports/offset-store.js';
import { DEFAULT_ENUMERATOR_SETTINGS } from '../../../../../shared/runtime/enumerator/enumerator.js';
import {
  fenceZombies,
  type ZombieFencingDeps,
} from '../../../../../shared/runtime/enumerator/zombie-fencing.js';
import { datagenConfig, FakeCluster, harness } from './fixtures.js';

const NAME = 'gen';
const TXID = 'serverless-connect-gen-0';
const ref = { connector: NAME, task: 0 };

function pending(seq: number, topic: string, probe = true): PendingSourceOffsets {
  return {
    seq,
    offsets: [{ partition: { p: 0 }, offset: { seq: seq * 10 }, at: seq }],
    positions: probe ? [{ topic, partition: 3, offset: String(seq * 100) }] : [],
  };
}

/** The cluster, plus what read_committed readers see of each offset record it is asked about. */
class FateCluster extends FakeCluster {
  fate: TransactionalRecordFate = 'open';
  failure: Error | undefined;
  readonly asked: TopicPartitionOffset[] = [];

  async transactionalRecordFate(position: TopicPartitionOffset): Promise<TransactionalRecordFate> {
    this.asked.push(position);
    if (this.failure !== undefined) throw this.failure;
    return this.fate;
  }
}

/**
 * A source connector with one task whose invocation committed transaction 1 and wrote
 * transaction 2 pending (as it stands between two transactions), the task still leased.
 */
async function setup(extra: Record<string, string> = {}, probe = true) {
  const cluster = new FateCluster();
  const warnings: { message: string; fields: LogFields | undefined }[] = [];
  const logger = {
    ...silentLogger,
    warn: (message: string, fields?: LogFields) => warnings.push({ message, fields }),
  };
  const h = harness({
    cluster,
    loggers: (name) => (name === LOGGERS.enumerator ? logger : silentLogger),
  });
  const onConnect: { hook: () => Promise<void> } = { hook: async () => {} };
  h.kafka.onConnect = () => onConnect.hook();
  const enumerator = h.enumerator;
  /** What `fenceZombies` runs with in the enumerator (its own deps, from the same engine). */
  const deps: ZombieFencingDeps = {
    store: h.store,
    kafka: h.engine.kafka,
    admin: h.engine.admin,
    logger,
    clock: h.clock,
    settings: {
      transactionalIdPrefix: DEFAULT_ENGINE_SETTINGS.transactionalIdPrefix,
      dispatchConcurrency: DEFAULT_ENUMERATOR_SETTINGS.dispatchConcurrency,
    },
  };
  const config = datagenConfig(NAME, { 'tasks.max': '1', 'source.partitions': '2', ...extra });
  await h.store.configs.createConnector(NAME, config);
  await enumerator.reconcile(NAME);
  const generation = (await h.store.configs.getTaskConfigs(NAME)).tasks[0]?.generation ?? -1;
  const lease = await h.store.leases.acquireLease({
    ...ref,
    owner: 'running',
    generation,
    ttlMs: 600_000,
  });
  const topic = extra['offsets.storage.topic'] ?? 'connect-offsets';
  await h.store.offsets.writePendingSourceOffsets(ref, pending(1, topic), lease);
  await h.store.offsets.promoteAndWritePendingSourceOffsets(
    ref,
    1,
    pending(2, topic, probe),
    lease,
  );
  return { h, cluster, deps, enumerator, warnings, onConnect, config, topic, lease };
}

/** What stop does: the target state, then reconcile (no task configs, the task fenced). */
async function stop(s: Awaited<ReturnType<typeof setup>>) {
  await s.h.store.configs.setTargetState(NAME, 'STOPPED');
  return s.enumerator.reconcile(NAME);
}

describe('fenceZombies', () => {
  it('promotes what a stopped task left pending when its offset record shows Kafka committed it', async () => {
    // Prepare
    const s = await setup({ 'offsets.storage.topic': 'gen-offsets' });
    s.cluster.fate = 'committed';
    // Act
    const report = await stop(s);
    // Assess
    expect(report.state).toBe('STOPPED');
    expect(s.h.fenced).toEqual([TXID]);
    expect(s.cluster.asked).toEqual([{ topic: 'gen-offsets', partition: 3, offset: 200 }]);
    expect(await s.h.store.offsets.getSourceOffsets(ref)).toEqual({
      ...ref,
      committed: { seq: 2, offsets: pending(2, 'gen-offsets').offsets },
    });
    expect((await s.h.store.configs.getTaskConfigs(NAME)).fencing).toBeUndefined();
  });

  it('discards, without reading Kafka, a pending whose transaction advanced no source offsets', async () => {
    // Prepare: transaction 2 wrote records but no offset record, so it has no probe.
    const s = await setup({}, false);
    // Act
    await stop(s);
    // Assess
    expect(s.cluster.asked).toEqual([]);
    expect(await s.h.store.offsets.getSourceOffsets(ref)).toEqual({
      ...ref,
      committed: { seq: 1, offsets: pending(1, 'connect-offsets').offsets },
    });
  });

  it('discards what a stopped task left pending when Kafka aborted its transaction', async () => {
    // Prepare
    const s = await setup();
    s.cluster.fate = 'aborted';
    // Act
    await stop(s);
    // Assess
    expect(await s.h.store.offsets.getSourceOffsets(ref)).toEqual({
      ...ref,
      committed: { seq: 1, offsets: pending(1, 'connect-offsets').offsets },
    });
  });

  it('leaves a transaction still undecided to the next start, and completes the round', async () => {
    // Prepare
    const s = await setup();
    s.cluster.fate = 'open';
    // Act
    const report = await stop(s);
    // Assess
    expect(report.state).toBe('STOPPED');
    expect(await s.h.store.offsets.getSourceOffsets(ref)).toEqual({
      ...ref,
      committed: { seq: 1, offsets: pending(1, 'connect-offsets').offsets },
      pending: pending(2, 'connect-offsets'),
    });
    expect((await s.h.store.configs.getTaskConfigs(NAME)).fencing).toBeUndefined();
    expect(s.warnings).toEqual([]);
  });

  it('completes the round with a warning when settling fails, leaving pending to the next start', async () => {
    // Prepare
    const s = await setup();
    s.cluster.failure = new Error('broker unreachable');
    // Act
    const report = await stop(s);
    // Assess
    expect(report).toMatchObject({ state: 'STOPPED' });
    expect(report.error).toBeUndefined();
    expect((await s.h.store.configs.getTaskConfigs(NAME)).fencing).toBeUndefined();
    expect((await s.h.store.offsets.getSourceOffsets(ref)).pending?.seq).toBe(2);
    expect(s.warnings).toHaveLength(1);
    expect(s.warnings[0]?.fields).toMatchObject({ connector: NAME, task: 0 });
  });

  it('settles nothing when a new invocation took the task between the revoke and the settle', async () => {
    // Prepare: a reconfiguration replaces task 0; its new generation starts during the round.
    const s = await setup();
    s.cluster.fate = 'committed';
    const set = await s.h.store.configs.putTaskConfigs(NAME, [{ ...s.config, changed: 'yes' }], 1);
    s.onConnect.hook = async () => {
      await s.h.store.leases.acquireLease({
        ...ref,
        owner: 'next',
        generation: set.tasks[0]?.generation ?? -1,
        ttlMs: 600_000,
      });
    };
    // Act
    const done = await fenceZombies(s.deps, NAME, set, 'source');
    // Assess
    expect(done.fencing).toBeUndefined();
    expect((await s.h.store.offsets.getSourceOffsets(ref)).pending?.seq).toBe(2);
    expect((await s.h.store.offsets.getSourceOffsets(ref)).committed?.seq).toBe(1);
  });

  it('leaves the offsets of a sink connector task list alone', async () => {
    // Prepare
    const s = await setup();
    s.cluster.fate = 'committed';
    await s.h.store.configs.setTargetState(NAME, 'STOPPED');
    const set = await s.h.store.configs.putTaskConfigs(NAME, [], 1);
    // Act
    const done = await fenceZombies(s.deps, NAME, set, 'sink');
    // Assess
    expect(done.fencing).toBeUndefined();
    expect(s.h.fenced).toEqual([]);
    expect((await s.h.store.offsets.getSourceOffsets(ref)).pending?.seq).toBe(2);
  });
});
