import type { ConfigProviderResolver } from '../../config/config-providers.js';
import type { ParsedSourceConnectorConfig } from '../../config/connector-config.js';
import type { PluginRegistry } from '../../connect/plugin.js';
import type { Clock } from '../../ports/clock.js';
import type { KafkaAdminPort } from '../../ports/kafka.js';
import type { Logger } from '../../ports/logger.js';
import type { MetricsSink } from '../../ports/metrics.js';
import type { StateStore } from '../../ports/state-store.js';
import type { UsageAttribution } from '../metering/usage-scopes.js';
import type { SourceRecordPipeline } from '../pipeline/source-pipeline.js';
import type { ActiveTopicTracker } from '../task/active-topics.js';
import type { OffsetsTopicReconciler, ReconcileResult } from './offsets-reconcile.js';
import type { ProducerPool } from './producer-pool.js';
import type { RecoveryOutcome } from './recovery.js';
import type { SourceCheckpoint } from './source-transaction.js';

export interface SourceRuntimeSettings {
  /** Prefix of transactional ids: `<prefix>-<connector>-<task>`. */
  readonly transactionalIdPrefix: string;
  /** The offsets topic when the connector sets no `offsets.storage.topic`. */
  readonly offsetsTopic: string;
  readonly offsetsTopicPartitions: number;
  /** -1 = the broker's default. */
  readonly offsetsTopicReplicationFactor: number;
  /** The lease outlives the invocation's deadline by this much (a crashed holder blocks no longer). */
  readonly leaseMarginMs: number;
  /** Commit interval for `transaction.boundary=interval` when the connector sets none. */
  readonly defaultCommitIntervalMs: number;
  /** End the invocation after this long without records (the next invocation polls again). */
  readonly maxIdleMs: number;
  /** Pause between empty polls. */
  readonly idlePollMs: number;
  /** Stop polling after this many records in one invocation. */
  readonly maxRecordsPerInvocation: number;
  /** How often the task re-reads its target state and generation (a pause or reassignment stops it). */
  readonly assignmentCheckMs: number;
  /**
   * Kafka Connect's worker setting `exactly.once.source.support`: true runs every source task
   * under the exactly-once protocol; false runs them at least once (idempotent producer,
   * offsets recorded after the records are acknowledged), which is faster.
   */
  readonly exactlyOnce: boolean;
  /** At least once: how often offsets are committed (Connect's `offset.flush.interval.ms`). */
  readonly offsetFlushIntervalMs: number;
}

export const defaultSourceRuntimeSettings: SourceRuntimeSettings = {
  transactionalIdPrefix: 'serverless-connect',
  offsetsTopic: 'connect-offsets',
  offsetsTopicPartitions: 25,
  offsetsTopicReplicationFactor: -1,
  leaseMarginMs: 15_000,
  defaultCommitIntervalMs: 60_000,
  maxIdleMs: 2_000,
  idlePollMs: 100,
  maxRecordsPerInvocation: 1_000_000,
  assignmentCheckMs: 5_000,
  exactlyOnce: true,
  offsetFlushIntervalMs: 60_000,
};

export interface SourceRuntimeDeps {
  readonly store: StateStore;
  readonly admin: KafkaAdminPort;
  readonly producers: ProducerPool;
  readonly plugins: PluginRegistry;
  readonly clock: Clock;
  readonly sleep: (ms: number) => Promise<void>;
  readonly buildPipeline: (
    config: ParsedSourceConnectorConfig,
    task: number,
  ) => SourceRecordPipeline;
  readonly settings: SourceRuntimeSettings;
  /**
   * Config providers by name (`env`, `file`, `secretsmanager`, `ssm`): placeholders such as
   * `${env:NAME}` in the connector and task configs are resolved at task start, never stored.
   */
  readonly configProviders?: Readonly<Record<string, ConfigProviderResolver>>;
  /**
   * Where the runner logs what a task asked for and the runtime ignored (e.g. a transaction
   * boundary on a record that is not one of the batch); nothing is logged when absent.
   */
  readonly logger?: Logger;
  /** Where per-invocation task metrics go (CloudWatch EMF in AWS); none when absent. */
  readonly metrics?: MetricsSink;
  /**
   * The container's active topic tracker (KIP-558, built with the worker's
   * `topic.tracking.enable`); no topic is recorded when absent.
   */
  readonly activeTopics?: ActiveTopicTracker;
  /** Test hook: called at each protocol step; throwing abandons the invocation like a crash. */
  readonly checkpoint?: (point: SourceCheckpoint) => Promise<void>;
  /**
   * The container's memory of when its tasks last read the offsets topic (offsets-reconcile.ts);
   * without one, every invocation reads it.
   */
  readonly offsetsTopicReconciler?: OffsetsTopicReconciler;
  /**
   * The metering: whose work the invocation is, and its Kafka traffic (records and bytes).
   * @default none
   */
  readonly usage?: UsageAttribution;
}

export interface SourceInvocation {
  readonly connector: string;
  readonly task: number;
  /** The task-config generation the dispatcher saw; a mismatch means the task was reassigned. */
  readonly generation: number;
  /** Unique per invocation (the Lambda request id): the lease owner. */
  readonly owner: string;
  /** Worker id shown in the task status. */
  readonly workerId: string;
  /** Absolute time (ms, on the injected clock) by which the invocation must have returned. */
  readonly deadline: number;
  /**
   * Idle invocations of the task in a row before this one, as the dispatcher saw them; an idle
   * invocation releases its lease with one more (idle-backoff.ts). @default 0
   */
  readonly idleStreak?: number;
}

export type SourceRunOutcome =
  | 'completed'
  | 'not-running'
  | 'lease-held'
  | 'stale-generation'
  /** The enumerator's zombie-fencing round of a reconfiguration is not complete; nothing ran. */
  | 'awaiting-fencing'
  | 'fenced'
  | 'outcome-unknown'
  /** A retriable error ended the invocation early; the next one carries on. */
  | 'interrupted'
  | 'failed';

export interface SourceRunResult {
  readonly outcome: SourceRunOutcome;
  readonly transactions: number;
  readonly records: number;
  readonly recovery?: RecoveryOutcome;
  /** What the invocation read from the offsets topic and adopted; absent when it did not read it. */
  readonly reconcile?: ReconcileResult;
  readonly error?: Error;
}
