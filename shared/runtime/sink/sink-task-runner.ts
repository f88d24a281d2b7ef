/**
 * The sink runtime: one Kafka event source mapping batch for one sink connector, written
 * exactly once per connector although the mapping delivers at least once.
 *
 * 1. Decode the batch (`invocation.records`; in Lambda the event source mapping's event).
 * 2. Read the connector, its task configs, the batch's partitions' sink offsets and its task
 *    statuses in one read (`StatusStore.getSinkSnapshot`: a Query and a BatchGetItem in parallel
 *    on DynamoDB). A missing connector fails the
 *    invocation; a PAUSED or STOPPED one, or a partition no task owns yet, throws a
 *    RetriableError so the mapping redelivers later (records are never dropped).
 * 3. Per task owning partitions of the batch, concurrently: refuse while the task is FAILED;
 *    otherwise, on the task instance this container keeps (started anew when the connector
 *    config or task generation changed), skip records below the stored sink offset (the next
 *    offset to read) and past the stopping offset, convert, transform, `open`, `put`, `preCommit`, and store the
 *    offsets `preCommit` returned (sink-batch.ts).
 * 4. A task that fails with a non-retriable error is marked FAILED with the trace. A retriable
 *    failure is counted on the task's status and logged with its cause; the task stays RUNNING
 *    with the error as its trace until the run passes `errors.retry.timeout`, then it is FAILED
 *    (sink-retry.ts). A task that succeeds ends its retry run, or is marked RUNNING when it was
 *    not. Any failure is thrown after every task had its turn, so the mapping redelivers the
 *    batch (tasks that succeeded skip it then).
 *
 * Metrics per connector and partition go to the MetricsSink: records received, written, skipped
 * as duplicates, skipped past the stopping offset, filtered, failed, dead-lettered, write
 * latency (put + preCommit) and `BatchEndOffset` (the partition's last offset in the batch).
 * True consumer lag is the mapping's own `OffsetLag` CloudWatch metric.
 */

import { isRetriable } from '../../connect/errors.js';
import { topicPartitionKey } from '../../connect/records.js';
import type { ConnectorRecord, TaskConfigEntry, TaskConfigSet } from '../../ports/config-store.js';
import { ConnectorNotFoundError } from '../../ports/errors.js';
import type { ConsumedPartition } from '../../ports/kafka.js';
import type { TaskStatus } from '../../ports/status-store.js';
import { recordBytes } from '../metering/record-bytes.js';
import { describeError } from '../pipeline/error-reporter.js';
import { taskPartitionIds } from '../task/task-split.js';
import {
  ConnectorNotRunningError,
  SinkTaskFailedError,
  UnassignedPartitionError,
} from './errors.js';
import { type PartitionTally, type TaskBatchPartition, writeTaskBatch } from './sink-batch.js';
import { countFailedAttempt, markBatchWritten, storedRetryTimeoutMs } from './sink-retry.js';
import type {
  SinkInvocation,
  SinkPartitionSummary,
  SinkRunSummary,
  SinkRuntimeDeps,
} from './sink-runtime-types.js';
import { type StartedSinkTask, startSinkTask, taskIdentity } from './sink-task-start.js';

export * from './sink-runtime-types.js';

/** The task that owns each partition id, from the `serverless.task.partitions` task configs. */
export function partitionOwners(taskSet: TaskConfigSet): Map<string, TaskConfigEntry> {
  const owners = new Map<string, TaskConfigEntry>();
  for (const entry of taskSet.tasks) {
    for (const id of taskPartitionIds(entry.config)) {
      if (id.trim() !== '') owners.set(id.trim(), entry);
    }
  }
  return owners;
}

/** Writes one batch for `invocation.connector`; see the module notes. */
export async function runSinkInvocation(
  deps: SinkRuntimeDeps,
  invocation: SinkInvocation,
): Promise<SinkRunSummary> {
  const { connector } = invocation;
  deps.usage?.assign(connector);
  const event = invocation.records();
  if (event.recordCount === 0) return summarize(connector, []);
  deps.usage?.kafka({ recordsIn: event.recordCount, bytesIn: batchBytes(event.partitions) });
  const withRecords = event.partitions.filter((p) => p.records.length > 0);
  // The state read names the batch's partitions: it reads only their sink offsets.
  const snapshot = await deps.store.status.getSinkSnapshot(connector, withRecords);
  if (snapshot === undefined) throw new ConnectorNotFoundError(connector);
  const { record, tasks: taskSet, sinkOffsets, taskStatuses: statuses } = snapshot;
  if (record.targetState !== 'RUNNING') {
    throw new ConnectorNotRunningError(connector, record.targetState);
  }
  const owners = partitionOwners(taskSet);
  const unowned = withRecords.map(topicPartitionKey).filter((id) => !owners.has(id));
  if (unowned.length > 0) throw new UnassignedPartitionError(connector, unowned);
  await deps.tasks.retain(connector, new Set(taskSet.tasks.map((t) => t.task)));

  const stored = new Map(sinkOffsets.map((o) => [topicPartitionKey(o), o.nextOffset]));
  const statusOf = new Map(statuses.map((s) => [s.task, s]));
  const groups = new Map<number, { entry: TaskConfigEntry; partitions: TaskBatchPartition[] }>();
  const tallies: PartitionTally[] = [];
  for (const batch of withRecords) {
    const id = topicPartitionKey(batch);
    const entry = owners.get(id) as TaskConfigEntry;
    const tally = newTally(batch, entry.task, stored.get(id));
    tallies.push(tally);
    const group = groups.get(entry.task) ?? { entry, partitions: [] };
    groups.set(entry.task, group);
    group.partitions.push({ batch, stored: stored.get(id) ?? 0, tally });
  }

  const outcomes = await Promise.allSettled(
    [...groups.values()].map(({ entry, partitions }) =>
      runTask(deps, invocation, record, entry, partitions, statusOf.get(entry.task)),
    ),
  );
  const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
  publishMetrics(deps, connector, tallies);
  if (failures.length > 0) throw failures.find((e) => !isRetriable(e)) ?? failures[0];
  const summary = summarize(connector, tallies);
  deps.logger.debug('sink batch written', { ...summary });
  return summary;
}

async function runTask(
  deps: SinkRuntimeDeps,
  invocation: SinkInvocation,
  record: ConnectorRecord,
  entry: TaskConfigEntry,
  partitions: readonly TaskBatchPartition[],
  status: TaskStatus | undefined,
): Promise<void> {
  const ref = { connector: record.name, task: entry.task };
  if (status?.state === 'FAILED') {
    await deps.tasks.evict(ref);
    throw new SinkTaskFailedError(ref.connector, ref.task);
  }
  const env = {
    connector: record.name,
    offsets: deps.store.offsets,
    clock: deps.clock,
    sleep: deps.sleep,
    logger: deps.logger,
    deadline: invocation.deadline,
    ...(deps.random === undefined ? {} : { random: deps.random }),
  };
  // KIP-558: the topics this task consumes, recorded as they arrive (never rejects).
  await deps.activeTopics
    ?.forTask(record, entry.task, entry.generation)
    ?.record(partitions.map((p) => p.batch.topic));
  const partitionIds = partitions.map((p) => topicPartitionKey(p.batch)).sort();
  const startedAt = deps.clock.now();
  let started: StartedSinkTask | undefined;
  try {
    const writeMs = await deps.tasks.use(
      ref,
      taskIdentity(record, entry),
      () => startSinkTask(deps, record, entry),
      (task) => {
        started = task;
        return writeTaskBatch(task, partitions, env);
      },
    );
    for (const { tally } of partitions) tally.writeMs = writeMs;
  } catch (error) {
    for (const { tally } of partitions) tally.batchFailed = true;
    if (isRetriable(error)) {
      throw await countFailedAttempt(deps, {
        ref,
        partitions: partitionIds,
        startedAt,
        retryTimeoutMs: started?.config.errors.retryTimeoutMs ?? storedRetryTimeoutMs(record),
        workerId: invocation.workerId,
        error,
      });
    }
    const trace = describeError(error).stackTrace;
    deps.logger.error('sink task failed', { ...ref, error: trace });
    await deps.store.status
      .putTaskStatus(ref, { state: 'FAILED', workerId: invocation.workerId, trace })
      .catch((e: unknown) => deps.logger.warn('could not record the FAILED status', { error: e }));
    throw error;
  }
  await markBatchWritten(deps, ref, status, partitionIds, invocation.workerId);
}

/** The bytes of a batch's records (the metering's Kafka traffic in). */
function batchBytes(partitions: readonly ConsumedPartition[]): number {
  let bytes = 0;
  for (const { records } of partitions) for (const record of records) bytes += recordBytes(record);
  return bytes;
}

function newTally(
  batch: ConsumedPartition,
  task: number,
  stored: number | undefined,
): PartitionTally {
  const last = batch.records[batch.records.length - 1];
  return {
    topic: batch.topic,
    partition: batch.partition,
    task,
    records: batch.records.length,
    written: 0,
    skipped: 0,
    duplicates: 0,
    pastStopping: 0,
    filtered: 0,
    failed: 0,
    dlq: 0,
    batchEndOffset: last?.offset ?? -1,
    writeMs: 0,
    batchFailed: false,
    ...(stored === undefined ? {} : { committedOffset: stored }),
  };
}

function publishMetrics(
  deps: SinkRuntimeDeps,
  connector: string,
  tallies: readonly PartitionTally[],
): void {
  if (deps.metrics === undefined) return;
  for (const t of tallies) {
    deps.metrics.publish(
      { Connector: connector, Topic: t.topic, Partition: String(t.partition) },
      {
        RecordsReceived: { value: t.records, unit: 'Count' },
        RecordsWritten: { value: t.written, unit: 'Count' },
        RecordsSkippedDuplicate: { value: t.duplicates, unit: 'Count' },
        RecordsSkippedPastStopping: { value: t.pastStopping, unit: 'Count' },
        RecordsFiltered: { value: t.filtered, unit: 'Count' },
        RecordsFailed: { value: t.failed, unit: 'Count' },
        RecordsDeadLettered: { value: t.dlq, unit: 'Count' },
        WriteLatency: { value: t.writeMs, unit: 'Milliseconds' },
        BatchEndOffset: { value: t.batchEndOffset, unit: 'None' },
        BatchFailed: { value: t.batchFailed ? 1 : 0, unit: 'Count' },
      },
    );
  }
}

function summarize(connector: string, tallies: readonly PartitionTally[]): SinkRunSummary {
  const partitions: SinkPartitionSummary[] = tallies.map(
    ({ writeMs: _ms, batchFailed: _failed, ...rest }) => rest,
  );
  const sum = (pick: (p: SinkPartitionSummary) => number) =>
    partitions.reduce((total, p) => total + pick(p), 0);
  return {
    connector,
    records: sum((p) => p.records),
    written: sum((p) => p.written),
    skipped: sum((p) => p.skipped),
    dlq: sum((p) => p.dlq),
    partitions,
  };
}
