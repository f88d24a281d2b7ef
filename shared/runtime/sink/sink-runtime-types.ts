import type { ConfigProviderResolver } from '../../config/config-providers.js';
import type { PluginRegistry } from '../../connect/plugin.js';
import type { Clock } from '../../ports/clock.js';
import type { ConsumedBatch, KafkaAdminPort } from '../../ports/kafka.js';
import type { Logger } from '../../ports/logger.js';
import type { MetricsSink } from '../../ports/metrics.js';
import type { StateStore } from '../../ports/state-store.js';
import type { UsageAttribution } from '../metering/usage-scopes.js';
import type { DeadLetterSink } from '../pipeline/dead-letter.js';
import type { ActiveTopicTracker } from '../task/active-topics.js';
import type { ConnectorAliasResolver } from './function-alias.js';
import type { SinkTaskCache } from './sink-task-cache.js';

/** What the sink runtime needs; built once per container by the composition root. */
export interface SinkRuntimeDeps {
  readonly store: StateStore;
  readonly plugins: PluginRegistry;
  readonly clock: Clock;
  readonly sleep: (ms: number) => Promise<void>;
  readonly logger: Logger;
  /** The started tasks this container keeps across invocations (close it on shutdown). */
  readonly tasks: SinkTaskCache;
  /**
   * Where dead letter records go (an idempotent producer; sink DLQ writes are not transactional).
   * Required for connectors that set `errors.deadletterqueue.topic.name`: without it their tasks
   * fail to start.
   */
  readonly deadLetters?: DeadLetterSink;
  /** Creates a missing dead letter topic when a task starts, as Connect does; skipped when absent. */
  readonly admin?: Pick<KafkaAdminPort, 'createTopics'>;
  /** Config providers by name: `${provider:path:key}` placeholders are resolved at task start. */
  readonly configProviders?: Readonly<Record<string, ConfigProviderResolver>>;
  /** Per-partition batch metrics (CloudWatch EMF in AWS); none when absent. */
  readonly metrics?: MetricsSink;
  /** Uniform in [0, 1), for retry jitter. @default Math.random */
  readonly random?: () => number;
  /**
   * The container's active topic tracker (KIP-558, built with the worker's
   * `topic.tracking.enable`); no topic is recorded when absent.
   */
  readonly activeTopics?: ActiveTopicTracker;
  /**
   * The metering: whose work the invocation is, and its Kafka traffic (records and bytes).
   * @default none
   */
  readonly usage?: UsageAttribution;
}

/** The sink function's services: the runtime plus the alias-to-connector resolver. */
export interface SinkFunctionDeps extends SinkRuntimeDeps {
  readonly aliases: ConnectorAliasResolver;
}

/** One invocation of the sink function. */
export interface SinkInvocation {
  /** The connector (from the function alias the mapping invoked). */
  readonly connector: string;
  /**
   * The batch's records, decoded when called (the Lambda composition passes the event source
   * mapping's event through `shared/adapters/lambda/esm-event.ts`). Called once, after the
   * state read has started, so the read travels while the event is decoded; throws a DataError
   * or ConfigError for a malformed event.
   */
  readonly records: () => ConsumedBatch;
  /** Absolute time (ms, on the injected clock) by which the invocation must have returned. */
  readonly deadline: number;
  /** Shown in task statuses (the Lambda log stream). */
  readonly workerId: string;
}

/** What one partition of the batch came to. */
export interface SinkPartitionSummary {
  readonly topic: string;
  readonly partition: number;
  readonly task: number;
  /** Records of the partition in the event. */
  readonly records: number;
  /** Records given to `put`. */
  readonly written: number;
  /** Not given to the pipeline: `duplicates` + `pastStopping`. */
  readonly skipped: number;
  /** At or below the stored sink offset (a redelivery). */
  readonly duplicates: number;
  /** At or beyond the partition's stopping offset (bounded mode). */
  readonly pastStopping: number;
  /** Dropped by a transformation. */
  readonly filtered: number;
  /** Failed and skipped under `errors.tolerance=all` (in the pipeline or reported by the task). */
  readonly failed: number;
  /** Of those, sent to the dead letter queue. */
  readonly dlq: number;
  /** The last offset of the partition in the event. */
  readonly batchEndOffset: number;
  /** The stored sink offset (the next offset to read) after the batch, when there is one. */
  readonly committedOffset?: number;
}

/** The handler's result: for logs and tests. */
export interface SinkRunSummary {
  readonly connector: string;
  readonly records: number;
  readonly written: number;
  readonly skipped: number;
  readonly dlq: number;
  readonly partitions: readonly SinkPartitionSummary[];
}
