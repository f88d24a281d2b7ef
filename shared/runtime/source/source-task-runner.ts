import { resolvePlaceholders } from '../../config/config-providers.js';
import { parseConnectorConfig } from '../../config/connector-config.js';
import { FencedError, isRetriable } from '../../connect/errors.js';
import { type SourceConnector, SourceTask } from '../../connect/source.js';
import { LeaseHeldError, StaleGenerationError, TargetNotRunningError } from '../../ports/errors.js';
import type { ProducerTransaction } from '../../ports/kafka.js';
import { TransactionOutcomeUnknownError } from '../../ports/kafka-errors.js';
import type { IdleRelease, Lease } from '../../ports/lease-store.js';
import type { SourceRecordPipeline } from '../pipeline/source-pipeline.js';
import { PluginGauges } from '../task/plugin-gauges.js';
import { producerOptionsOf } from '../task/producer-overrides.js';
import { pendingFate, transactionalIdOf } from '../task/source-transaction-fate.js';
import { adminOptionsOf } from './admin-overrides.js';
import { checkExactlyOnceRequirements } from './exactly-once-requirements.js';
import { type ReconcileResult, reconcileAtTaskStart } from './offsets-reconcile.js';
import { ensureOffsetsTopic } from './offsets-topic-creation.js';
import { countBatch, type PolledBatch, pollBatch, topicsOf } from './poll-batch.js';
import { untransacted } from './producer-pool.js';
import { type RecoveryOutcome, recoverSourceOffsets } from './recovery.js';
import type {
  SourceInvocation,
  SourceRunOutcome,
  SourceRunResult,
  SourceRuntimeDeps,
} from './source-runtime-types.js';
import { SourceTaskContextImpl } from './source-task-context.js';
import { SourceTaskMetrics } from './source-task-metrics.js';
import type { SourceCheckpoint } from './source-transaction.js';
import { SourceTransactionSequence } from './source-transaction-sequence.js';
import { TopicCreator } from './topic-creator.js';
import { dispatchSlices, type IgnoredRequest, planBoundaries } from './transaction-boundaries.js';

export { checkExactlyOnceRequirements } from './exactly-once-requirements.js';
export * from './source-runtime-types.js';

/** Thrown by the checkpoint hook's wrapper: the invocation stops dead, no cleanup (a crash). */
export class AbandonedInvocation extends Error {}

/**
 * One bounded invocation of a source task under the exactly-once protocol
 * (docs/exactly-once-source.md): lease, producer, recovery, then poll → transform → convert →
 * transaction until the deadline, the record cap, or idleness.
 */
export async function runSourceInvocation(
  deps: SourceRuntimeDeps,
  invocation: SourceInvocation,
): Promise<SourceRunResult> {
  const { store, settings, clock } = deps;
  const ref = { connector: invocation.connector, task: invocation.task };
  deps.usage?.assign(invocation.connector);
  let lease: Lease;
  try {
    lease = await store.leases.acquireLease({
      ...ref,
      owner: invocation.owner,
      generation: invocation.generation,
      ttlMs: Math.max(0, invocation.deadline - clock.now()) + settings.leaseMarginMs,
    });
  } catch (error) {
    if (error instanceof TargetNotRunningError) return empty('not-running');
    if (error instanceof LeaseHeldError) return empty('lease-held');
    if (error instanceof StaleGenerationError) return empty('stale-generation');
    throw error;
  }
  const session = new SourceSession(deps, invocation, lease);
  return session.run();
}

function empty(outcome: SourceRunOutcome): SourceRunResult {
  return { outcome, transactions: 0, records: 0 };
}

/** Resolves after the I/O already under way had a chance to proceed (a macrotask later). */
const yieldToIo = () => new Promise<void>((resolve) => setImmediate(resolve));

class SourceSession {
  readonly #transactionalId: string;
  readonly #metrics = new SourceTaskMetrics();
  readonly #pluginGauges = new PluginGauges();
  #task: SourceTask | undefined;
  #pipeline: SourceRecordPipeline | undefined;
  #sequence: SourceTransactionSequence | undefined;
  #recovery: RecoveryOutcome | undefined;
  #reconcile: ReconcileResult | undefined;
  /** When this container last read the offsets topic for the task (this invocation or before). */
  #reconciledAt: number | undefined;
  /** The connector was PAUSED when the invocation last checked its assignment. */
  #pausedMidRun = false;

  constructor(
    private readonly deps: SourceRuntimeDeps,
    private readonly invocation: SourceInvocation,
    private readonly lease: Lease,
  ) {
    this.#transactionalId = transactionalIdOf(
      deps.settings.transactionalIdPrefix,
      invocation.connector,
      invocation.task,
    );
  }

  #result(outcome: SourceRunOutcome, error?: Error): SourceRunResult {
    const transactions = this.#sequence?.transactions ?? 0;
    this.deps.usage?.kafka({
      recordsOut: this.#metrics.producedRecords,
      bytesOut: this.#metrics.producedBytes,
    });
    this.#metrics.publish(
      this.deps.metrics,
      { Connector: this.invocation.connector, Task: String(this.invocation.task) },
      { transactions, commitMs: this.#sequence?.commitMs ?? [], failed: outcome === 'failed' },
      this.#pluginGauges.values(),
    );
    return {
      outcome,
      transactions,
      records: this.#metrics.polled,
      ...(this.#recovery === undefined ? {} : { recovery: this.#recovery }),
      ...(this.#reconcile === undefined ? {} : { reconcile: this.#reconcile }),
      ...(error === undefined ? {} : { error }),
    };
  }

  async #checkpoint(point: SourceCheckpoint): Promise<void> {
    if (this.deps.checkpoint === undefined) return;
    try {
      await this.deps.checkpoint(point);
    } catch (error) {
      throw new AbandonedInvocation(`abandoned at ${point}`, { cause: error });
    }
  }

  async run(): Promise<SourceRunResult> {
    const { deps, invocation } = this;
    const ref = { connector: invocation.connector, task: invocation.task };
    try {
      const [connectorRecord, taskSet] = await Promise.all([
        deps.store.configs.getConnector(invocation.connector),
        deps.store.configs.getTaskConfigs(invocation.connector),
      ]);
      const taskEntry = taskSet.tasks.find((t) => t.task === invocation.task);
      // Read after the lease was taken: a reconfiguration that landed between the acquire's
      // checks and its write is seen here, before anything is produced (the enumerator revokes
      // the leases of replaced tasks only after writing the new task configs).
      if (
        connectorRecord === undefined ||
        taskEntry === undefined ||
        taskEntry.generation !== invocation.generation ||
        connectorRecord.targetState !== 'RUNNING'
      ) {
        await this.#release();
        return this.#result(
          connectorRecord?.targetState === 'RUNNING' || connectorRecord === undefined
            ? 'stale-generation'
            : 'not-running',
        );
      }
      // Older generations of replaced tasks may still be live until the fencing round ends;
      // a source partition that moved here could be read before their last commit.
      if ((taskSet.fencing ?? []).length > 0) {
        await this.#release();
        return this.#result('awaiting-fencing');
      }
      const providers = deps.configProviders ?? {};
      const config = parseConnectorConfig(
        await resolvePlaceholders(connectorRecord.config, providers),
        'source',
      );
      const taskConfig = await resolvePlaceholders(taskEntry.config, providers);
      const connector = deps.plugins
        .resolve(config.connectorClass, 'source')
        .create() as SourceConnector;
      checkExactlyOnceRequirements(connector, config);
      // admin.override.* gives the connector an admin client of its own (cached per container).
      const adminOptions = adminOptionsOf(config);
      const admin = adminOptions === undefined ? deps.admin : deps.producers.admin(adminOptions);
      this.#pipeline = deps.buildPipeline(config, invocation.task);
      const offsetsTopic = config.offsetsStorageTopic ?? deps.settings.offsetsTopic;
      await ensureOffsetsTopic(deps, admin, offsetsTopic);
      const topics = new TopicCreator(config.topicCreation, admin);
      const producerOptions = producerOptionsOf(config);
      const begin: () => Promise<ProducerTransaction> = deps.settings.exactlyOnce
        ? await deps.producers
            .get(this.#transactionalId, producerOptions)
            .then((p) => () => p.begin())
        : await deps.producers.idempotent(producerOptions).then((p) => async () => untransacted(p));
      const recovered = await recoverSourceOffsets(
        {
          offsets: deps.store.offsets,
          admin,
          sleep: deps.sleep,
          now: () => deps.clock.now(),
        },
        {
          ref,
          fence: this.lease,
          // An undecided fate ends the invocation (retriably) by its deadline, not past it.
          fateTimeoutMs: Math.max(1_000, Math.min(30_000, invocation.deadline - deps.clock.now())),
        },
      );
      this.#recovery = recovered.outcome;
      const reconciled = await reconcileAtTaskStart(
        {
          offsets: deps.store.offsets,
          admin,
          now: () => deps.clock.now(),
          logger: deps.logger,
          reconciler: deps.offsetsTopicReconciler,
        },
        {
          ref,
          generation: invocation.generation,
          epoch: this.lease.epoch,
          offsetsTopic,
          recovered,
        },
      );
      this.#reconciledAt = reconciled.reconciledAt;
      if (reconciled.result !== undefined) this.#reconcile = reconciled.result;
      await deps.store.status.putTaskStatus(
        ref,
        { state: 'RUNNING', workerId: invocation.workerId },
        this.lease,
      );

      const context = new SourceTaskContextImpl({
        config: taskConfig,
        own: () => (this.#sequence?.committed ?? recovered.committed).offsets,
        offsets: deps.store.offsets,
        ref,
        // Connect offers a TransactionContext only under exactly-once support.
        connectorDefinesBoundaries:
          deps.settings.exactlyOnce && config.transactionBoundary === 'connector',
        pendingFateOf: (_task, pending) => pendingFate(admin, pending),
        pluginMetrics: this.#pluginGauges,
      });
      const task = connector.createTask();
      this.#task = task;
      await task.start(taskConfig, context);

      const activeTopics = deps.activeTopics?.forTask(
        connectorRecord,
        invocation.task,
        invocation.generation,
      );
      const sequence = new SourceTransactionSequence({
        scope: {
          ref,
          fence: this.lease,
          connector: invocation.connector,
          offsetsTopic,
          offsets: deps.store.offsets,
          checkpoint: (point: SourceCheckpoint) => this.#checkpoint(point),
          now: () => deps.clock.now(),
        },
        begin,
        committed: recovered.committed,
        flushAt: deps.settings.exactlyOnce ? 5_000 : 1,
        foldPromotions: deps.settings.exactlyOnce,
        ...(activeTopics === undefined ? {} : { activeTopics }),
        // The base class's commitRecord does nothing: skip a call per record.
        ...(task.commitRecord === SourceTask.prototype.commitRecord
          ? {}
          : { commitRecord: (record, metadata) => task.commitRecord(record, metadata) }),
      });
      this.#sequence = sequence;

      // At least once, offsets are committed on an interval (Connect's offset.flush.interval.ms)
      // and records sent as they are polled; exactly once, per transaction.boundary.
      const boundary = deps.settings.exactlyOnce ? config.transactionBoundary : 'interval';
      const interval = deps.settings.exactlyOnce
        ? (config.transactionBoundaryIntervalMs ?? deps.settings.defaultCommitIntervalMs)
        : deps.settings.offsetFlushIntervalMs;
      const { maxRecordsPerInvocation } = deps.settings;
      let lastRecordAt = deps.clock.now();
      let lastAssignmentCheck = deps.clock.now();
      // The next batch, polled and converted while the current one is sent and committed.
      let next: Promise<PolledBatch> | undefined;
      let unassigned = false;
      try {
        while (this.#hasTime() && this.#metrics.polled < maxRecordsPerInvocation) {
          if (deps.clock.now() - lastAssignmentCheck >= deps.settings.assignmentCheckMs) {
            lastAssignmentCheck = deps.clock.now();
            unassigned = !(await this.#stillAssigned());
            if (unassigned) break;
          }
          const batch = await (next ?? this.#pollBatch());
          next = undefined;
          if (batch.envelopes.length === 0) {
            if (deps.clock.now() - lastRecordAt >= deps.settings.maxIdleMs) break;
            await deps.sleep(deps.settings.idlePollMs);
            continue;
          }
          lastRecordAt = deps.clock.now();
          await topics.ensure(topicsOf(batch));
          await sequence.open();
          countBatch(this.#metrics, batch);
          // Decided before the next poll: a boundary request belongs to the batch that made it.
          const slices =
            boundary === 'connector'
              ? planBoundaries(batch.envelopes, context.takeBoundaryRequests(), this.#ignored)
              : undefined;
          const due =
            boundary === 'poll' ||
            (boundary === 'interval' && deps.clock.now() - sequence.openedAt >= interval);
          if (this.#hasTime() && this.#metrics.polled < maxRecordsPerInvocation) {
            next = yieldToIo().then(() => this.#pollBatch());
            next.catch(() => undefined); // its failure surfaces when it is awaited
          }
          if (slices === undefined) {
            await sequence.send(batch.envelopes);
            if (due) await sequence.commit();
          } else {
            const aborted = await dispatchSlices(sequence, batch, slices);
            this.#metrics.aborted += aborted.transactions;
            // What an abort dropped was not written.
            this.#metrics.written -= aborted.produced;
            this.#metrics.deadLettered -= aborted.deadLetters;
          }
        }
      } finally {
        // A batch polled ahead and never sent: the next invocation polls it again.
        await next?.catch(() => undefined);
      }
      await sequence.commit();
      await sequence.promoteLastCommitted();
      await task.commit();
      await this.#stopTask();
      // A pause that landed after the start's read, and was not seen by a check in the loop
      // (the run ended by its deadline, record cap or idleness first): look once more.
      if (!unassigned) await this.#stillAssigned();
      // Paused while running: the enumerator may have shown PAUSED before this invocation wrote
      // RUNNING, so the invocation that noticed the pause says so last (under its lease).
      if (this.#pausedMidRun) {
        await deps.store.status.putTaskStatus(
          ref,
          { state: 'PAUSED', workerId: invocation.workerId },
          this.lease,
        );
      }
      // Nothing polled: the release records the idle streak the next dispatch is deferred by.
      await this.#release(
        this.#metrics.polled > 0
          ? undefined
          : {
              count: (invocation.idleStreak ?? 0) + 1,
              version: connectorRecord.version,
              generation: invocation.generation,
            },
      );
      if (this.#reconciledAt !== undefined) {
        deps.offsetsTopicReconciler?.ended(ref, {
          generation: invocation.generation,
          epoch: this.lease.epoch,
          seq: sequence.committed.seq,
          reconciledAt: this.#reconciledAt,
        });
      }
      return this.#result('completed');
    } catch (error) {
      return this.#fail(error);
    }
  }

  /** Polls the task once and runs the records through the pipeline. */
  #pollBatch(): Promise<PolledBatch> {
    const task = this.#task as SourceTask;
    const pipeline = this.#pipeline as SourceRecordPipeline;
    return pollBatch(task, pipeline, this.#metrics, () => this.deps.clock.now());
  }

  /** A boundary request the runtime ignored: a warning (the logger carries the task). */
  readonly #ignored: IgnoredRequest = (message, fields) => this.deps.logger?.warn(message, fields);

  #hasTime(): boolean {
    return this.deps.clock.now() < this.invocation.deadline;
  }

  async #stillAssigned(): Promise<boolean> {
    const [connector, tasks] = await Promise.all([
      this.deps.store.configs.getConnector(this.invocation.connector),
      this.deps.store.configs.getTaskConfigs(this.invocation.connector),
    ]);
    const entry = tasks.tasks.find((t) => t.task === this.invocation.task);
    const assigned = entry?.generation === this.invocation.generation;
    this.#pausedMidRun = assigned && connector?.targetState === 'PAUSED';
    return connector?.targetState === 'RUNNING' && assigned;
  }

  async #stopTask(): Promise<void> {
    this.#pipeline?.close();
    const task = this.#task;
    this.#task = undefined;
    if (task) await task.stop();
  }

  async #release(idle?: IdleRelease): Promise<void> {
    await this.deps.store.leases.releaseLease(this.lease, idle);
  }

  async #fail(error: unknown): Promise<SourceRunResult> {
    if (error instanceof AbandonedInvocation) throw error;
    const err = error instanceof Error ? error : new Error(String(error));
    const open = this.#sequence?.unwind();
    if (error instanceof FencedError) {
      // A newer invocation or producer owns the task: touch nothing it owns.
      await this.deps.producers.discard(this.#transactionalId);
      await this.#stopTask().catch(() => undefined);
      return this.#result('fenced', err);
    }
    if (error instanceof TransactionOutcomeUnknownError) {
      await this.deps.producers.discard(this.#transactionalId);
      await this.#stopTask().catch(() => undefined);
      await this.#release().catch(() => undefined);
      return this.#result('outcome-unknown', err);
    }
    if (open !== undefined) {
      this.#metrics.aborted += 1;
      await open.abort().catch(() => this.deps.producers.discard(this.#transactionalId));
    }
    // The last transaction committed in Kafka (if no later one promoted it); else recovery does.
    await this.#sequence?.promoteLastCommitted().catch(() => undefined);
    await this.#stopTask().catch(() => undefined);
    if (isRetriable(error)) {
      await this.#release().catch(() => undefined);
      return this.#result('interrupted', err);
    }
    const trace = err.stack ?? `${err.name}: ${err.message}`;
    await this.deps.store.status
      .putTaskStatus(
        { connector: this.invocation.connector, task: this.invocation.task },
        { state: 'FAILED', workerId: this.invocation.workerId, trace },
        this.lease,
      )
      .catch(() => undefined);
    await this.#release().catch(() => undefined);
    return this.#result('failed', err);
  }
}
