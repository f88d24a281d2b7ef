import { resolvePlaceholders } from '../../connect/config-providers.js';
import { parseConnectorConfig } from '../../connect/connector-config.js';
import { FencedError, isRetriable } from '../../connect/errors.js';
import type { SourceRecord } from '../../connect/records.js';
import type { SourceConnector, SourceTask } from '../../connect/source.js';
import { LeaseHeldError, StaleGenerationError, TargetNotRunningError } from '../../ports/errors.js';
import type { OutgoingRecord, ProducerTransaction } from '../../ports/kafka.js';
import { TransactionOutcomeUnknownError } from '../../ports/kafka-errors.js';
import type { Lease } from '../../ports/lease-store.js';
import type { CommittedSourceOffsets } from '../../ports/offset-store.js';
import { adminOptionsOf } from './admin-overrides.js';
import { checkExactlyOnceRequirements } from './exactly-once-requirements.js';
import { ensureOffsetsTopic } from './offsets-topic-creation.js';
import type { SourceRecordPipeline } from './pipeline.js';
import { producerOptionsOf } from './producer-overrides.js';
import { untransacted } from './producer-pool.js';
import { pendingFate, type RecoveryOutcome, recoverSourceOffsets } from './recovery.js';
import type {
  SourceInvocation,
  SourceRunOutcome,
  SourceRunResult,
  SourceRuntimeDeps,
} from './source-runtime-types.js';
import { SourceTaskContextImpl } from './source-task-context.js';
import { type SourceCheckpoint, SourceTransaction } from './source-transaction.js';
import { TopicCreator } from './topic-creator.js';

export { checkExactlyOnceRequirements } from './exactly-once-requirements.js';
export * from './source-runtime-types.js';

/** Thrown by the checkpoint hook's wrapper: the invocation stops dead, no cleanup (a crash). */
export class AbandonedInvocation extends Error {}

/** Names derived from the connector and task, shared by the runner, recovery and tools. */
export function transactionalIdOf(prefix: string, connector: string, task: number): string {
  return `${prefix}-${connector}-${task}`;
}

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

class SourceSession {
  readonly #transactionalId: string;
  #transactions = 0;
  #records = 0;
  #task: SourceTask | undefined;
  #pipeline: SourceRecordPipeline | undefined;
  #open: SourceTransaction | undefined;
  #recovery: RecoveryOutcome | undefined;

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

  #written = 0;
  #skipped = 0;
  #deadLettered = 0;
  #aborted = 0;
  #commitMs: number[] = [];
  #emitLagMs = 0;

  /** Flink/Connect-style task metrics of this invocation, published once when it ends. */
  #publishMetrics(outcome: SourceRunOutcome): void {
    const commits = this.#commitMs;
    this.deps.metrics?.publish(
      { Connector: this.invocation.connector, Task: String(this.invocation.task) },
      {
        RecordsPolled: { value: this.#records, unit: 'Count' },
        RecordsWritten: { value: this.#written, unit: 'Count' },
        RecordsSkipped: { value: this.#skipped, unit: 'Count' },
        RecordsDeadLettered: { value: this.#deadLettered, unit: 'Count' },
        TransactionsCommitted: { value: this.#transactions, unit: 'Count' },
        TransactionsAborted: { value: this.#aborted, unit: 'Count' },
        CommitLatencyAvg: {
          value: commits.length === 0 ? 0 : commits.reduce((a, b) => a + b, 0) / commits.length,
          unit: 'Milliseconds',
        },
        CommitLatencyMax: { value: Math.max(0, ...commits), unit: 'Milliseconds' },
        EmitLagMax: { value: this.#emitLagMs, unit: 'Milliseconds' },
        InvocationFailed: { value: outcome === 'failed' ? 1 : 0, unit: 'Count' },
      },
    );
  }

  #result(outcome: SourceRunOutcome, error?: Error): SourceRunResult {
    this.#publishMetrics(outcome);
    return {
      outcome,
      transactions: this.#transactions,
      records: this.#records,
      ...(this.#recovery === undefined ? {} : { recovery: this.#recovery }),
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
      const connectorRecord = await deps.store.configs.getConnector(invocation.connector);
      const taskSet = await deps.store.configs.getTaskConfigs(invocation.connector);
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
        { ref, fence: this.lease, markerGroup: this.#transactionalId, markerTopic: offsetsTopic },
      );
      this.#recovery = recovered.outcome;
      await deps.store.status.putTaskStatus(
        ref,
        { state: 'RUNNING', workerId: invocation.workerId },
        this.lease,
      );

      let recoveredOffsets: CommittedSourceOffsets = recovered.committed;
      const context = new SourceTaskContextImpl({
        config: taskConfig,
        own: () => recoveredOffsets.offsets,
        offsets: deps.store.offsets,
        ref,
        connectorDefinesBoundaries: config.transactionBoundary === 'connector',
        pendingFateOf: (task, pending) =>
          pendingFate(
            admin,
            {
              markerGroup: transactionalIdOf(
                deps.settings.transactionalIdPrefix,
                invocation.connector,
                task,
              ),
              markerTopic: offsetsTopic,
            },
            pending,
          ),
      });
      this.#task = connector.createTask();
      await this.#task.start(taskConfig, context);

      // At least once, offsets are committed on an interval (Connect's offset.flush.interval.ms)
      // and records sent as they are polled; exactly once, per transaction.boundary.
      const boundary = deps.settings.exactlyOnce ? config.transactionBoundary : 'interval';
      const interval = deps.settings.exactlyOnce
        ? (config.transactionBoundaryIntervalMs ?? deps.settings.defaultCommitIntervalMs)
        : deps.settings.offsetFlushIntervalMs;
      const flushAt = deps.settings.exactlyOnce ? 5_000 : 1;
      const scope = {
        ref,
        fence: this.lease,
        connector: invocation.connector,
        offsetsTopic,
        markerGroup: this.#transactionalId,
        offsets: deps.store.offsets,
        checkpoint: (point: SourceCheckpoint) => this.#checkpoint(point),
        now: () => deps.clock.now(),
      };
      let openedAt = 0;
      let lastRecordAt = deps.clock.now();
      let lastAssignmentCheck = deps.clock.now();
      while (this.#hasTime() && this.#records < deps.settings.maxRecordsPerInvocation) {
        if (deps.clock.now() - lastAssignmentCheck >= deps.settings.assignmentCheckMs) {
          lastAssignmentCheck = deps.clock.now();
          if (!(await this.#stillAssigned())) break;
        }
        const polled = (await this.#task.poll()) ?? [];
        if (polled.length === 0) {
          if (deps.clock.now() - lastRecordAt >= deps.settings.maxIdleMs) break;
          await deps.sleep(deps.settings.idlePollMs);
          continue;
        }
        lastRecordAt = deps.clock.now();
        const { produced, deadLetters } = await this.#process(polled);
        await topics.ensure(
          [...produced, ...deadLetters].flatMap((r) => (r === null ? [] : [r.topic])),
        );
        if (this.#open === undefined) {
          this.#open = new SourceTransaction(scope, await begin(), recoveredOffsets, flushAt);
          openedAt = deps.clock.now();
        }
        await this.#open.send(polled, produced, deadLetters);
        this.#records += polled.length;
        const due =
          boundary === 'poll' ||
          (boundary === 'interval' && deps.clock.now() - openedAt >= interval) ||
          (boundary === 'connector' && context.takeCommitRequest());
        if (due) recoveredOffsets = await this.#commitOpen();
      }
      if (this.#open !== undefined) recoveredOffsets = await this.#commitOpen();
      await this.#task.commit();
      await this.#stopTask();
      await this.#release();
      return this.#result('completed');
    } catch (error) {
      return this.#fail(error);
    }
  }

  async #commitOpen(): Promise<CommittedSourceOffsets> {
    const open = this.#open;
    if (open === undefined) throw new Error('no open transaction');
    this.#open = undefined;
    if (open.isEmpty) {
      await open.abort();
      return (
        (await this.deps.store.offsets.getSourceOffsets(this.lease)).committed ?? {
          seq: 0,
          offsets: [],
        }
      );
    }
    const started = this.deps.clock.now();
    const { committed, acknowledged } = await open.commit();
    this.#commitMs.push(this.deps.clock.now() - started);
    this.#transactions += 1;
    for (const { record, metadata } of acknowledged) {
      await this.#task?.commitRecord(record, metadata);
    }
    return committed;
  }

  async #process(polled: readonly SourceRecord[]) {
    const produced: (OutgoingRecord | null)[] = [];
    const deadLetters: OutgoingRecord[] = [];
    const now = this.deps.clock.now();
    for (const record of polled) {
      if (record.timestamp !== null)
        this.#emitLagMs = Math.max(this.#emitLagMs, now - record.timestamp);
      const result = await (this.#pipeline as SourceRecordPipeline).process(record);
      if (result.kind === 'produce') {
        produced.push(result.record);
        this.#written += 1;
      } else {
        produced.push(null);
        deadLetters.push(...result.deadLetters);
        this.#skipped += 1;
        this.#deadLettered += result.deadLetters.length;
      }
    }
    return { produced, deadLetters };
  }

  #hasTime(): boolean {
    return this.deps.clock.now() < this.invocation.deadline;
  }

  async #stillAssigned(): Promise<boolean> {
    const [connector, tasks] = await Promise.all([
      this.deps.store.configs.getConnector(this.invocation.connector),
      this.deps.store.configs.getTaskConfigs(this.invocation.connector),
    ]);
    const entry = tasks.tasks.find((t) => t.task === this.invocation.task);
    return connector?.targetState === 'RUNNING' && entry?.generation === this.invocation.generation;
  }

  async #stopTask(): Promise<void> {
    this.#pipeline?.close();
    const task = this.#task;
    this.#task = undefined;
    if (task) await task.stop();
  }

  async #release(): Promise<void> {
    await this.deps.store.leases.releaseLease(this.lease);
  }

  async #fail(error: unknown): Promise<SourceRunResult> {
    if (error instanceof AbandonedInvocation) throw error;
    const err = error instanceof Error ? error : new Error(String(error));
    const open = this.#open;
    this.#open = undefined;
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
      this.#aborted += 1;
      await open.abort().catch(() => this.deps.producers.discard(this.#transactionalId));
    }
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
