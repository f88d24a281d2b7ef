/**
 * How the control plane and the enumerator set work in motion: a nudge that makes the
 * enumerator reconcile soon, the asynchronous invocation of a source task, and the Kafka event
 * source mappings that feed sink tasks. In AWS these are Lambda API calls; locally they run in
 * the same process.
 */

/** One source-task invocation, as the enumerator dispatches it. */
export interface SourceTaskInvocation {
  readonly connector: string;
  readonly task: number;
  /** The generation of the task config the invocation must run (its lease checks it). */
  readonly generation: number;
  /**
   * How many invocations of the task in a row delivered no record before this one (the idle
   * back-off's streak, which the invocation continues when it is idle too). @default 0
   */
  readonly idleStreak?: number;
}

/**
 * Starts source-task invocations.
 *
 * Contract: `invoke` returns once the invocation is queued (asynchronous, like Lambda's
 * `InvocationType: Event`), not when it ends. An invocation that finds the task leased by
 * another live invocation ends at once, so a duplicate dispatch is harmless.
 */
export interface SourceTaskInvoker {
  invoke(invocation: SourceTaskInvocation): Promise<void>;
}

/**
 * Asks the enumerator to reconcile soon (after a config or target-state change), without
 * waiting for its schedule.
 *
 * Contract: fire-and-forget and idempotent; a lost nudge only delays the change until the next
 * scheduled run, so callers may ignore a failure after logging it.
 */
export interface ReconcileTrigger {
  /** Reconcile `connector`, or every connector when omitted. */
  nudge(connector?: string): Promise<void>;
}

/** Where a sink mapping starts reading a topic it has no committed group offset for. */
export type MappingStartingPosition = 'TRIM_HORIZON' | 'LATEST';

/** The desired Kafka event source mapping of one sink connector and one topic. */
export interface SinkMappingSpec {
  readonly connector: string;
  readonly topic: string;
  /** The mapping's Kafka consumer group (unique per mapping, as AWS requires). */
  readonly groupId: string;
  readonly startingPosition: MappingStartingPosition;
  /** Records per invocation, at most. */
  readonly batchSize: number;
  /** Seconds the mapping may wait to fill a batch. */
  readonly maxBatchingWindowSeconds: number;
  readonly enabled: boolean;
}

/** A mapping as it exists. */
export interface SinkMapping extends SinkMappingSpec {
  /** The mapping's id (Lambda's UUID; local ids are opaque too). */
  readonly id: string;
}

/**
 * The Kafka event source mappings of sink connectors.
 *
 * Contract: `list` returns what exists for the connector; `create`, `update` and `delete` act
 * on one mapping and are safe to repeat (creating a mapping that exists with the same topic and
 * group returns it; deleting a missing one succeeds). Mappings are identified by connector and
 * topic.
 */
export interface SinkMappingPort {
  /** The connector's mappings, or every mapping of this deployment when omitted. */
  list(connector?: string): Promise<SinkMapping[]>;
  create(spec: SinkMappingSpec): Promise<SinkMapping>;
  /** Changes what may change in place: enabled, batch size and window. */
  update(mapping: SinkMapping, spec: SinkMappingSpec): Promise<SinkMapping>;
  delete(mapping: SinkMapping): Promise<void>;
}

/** An object an S3 notification announced (S3 sources reading it are dispatched at once). */
export interface CreatedObject {
  readonly bucket: string;
  readonly key: string;
}

/**
 * What one enumerator run reconciles: every connector (the schedule, or any other event), the
 * named ones (a nudge, the state table's stream), or the S3 sources reading announced objects.
 */
export type EnumeratorRunScope =
  | { readonly kind: 'all' }
  | { readonly kind: 'connectors'; readonly connectors: readonly string[] }
  | { readonly kind: 'created-objects'; readonly objects: readonly CreatedObject[] };
