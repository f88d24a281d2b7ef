/**
 * Source connectors and tasks (Kafka Connect's `SourceConnector`, `SourceTask`,
 * `ExactlyOnceSupport`, `ConnectorTransactionBoundaries`, `SourceTask.TransactionBoundary`).
 */
import { Connector, type Task } from './connector.js';
import type { SourceTaskContext } from './context.js';
import { ConfigError } from './errors.js';
import type { SourcePartitionOffset, SourceRecord } from './records.js';

/** Whether a connector can run with exactly-once delivery (KIP-618). */
export type ExactlyOnceSupport = 'SUPPORTED' | 'UNSUPPORTED';

/** Whether a connector's tasks can define their own transaction boundaries (KIP-618). */
export type ConnectorTransactionBoundaries = 'SUPPORTED' | 'UNSUPPORTED';

/**
 * When a source task's transactions commit under exactly-once support (KIP-618):
 * `poll` after every non-empty poll batch (the default), `interval` every
 * `transaction.boundary.interval.ms`, `connector` when the task asks through its
 * `TransactionContext`.
 */
export type TransactionBoundary = 'poll' | 'interval' | 'connector';

/** The connector config key selecting the {@link TransactionBoundary}. */
export const TRANSACTION_BOUNDARY_CONFIG = 'transaction.boundary';
export const DEFAULT_TRANSACTION_BOUNDARY: TransactionBoundary = 'poll';
export const TRANSACTION_BOUNDARIES: readonly TransactionBoundary[] = Object.freeze([
  'poll',
  'interval',
  'connector',
] as const);

/**
 * Parses a `transaction.boundary` value, trimmed and case-insensitive (Connect's
 * `TransactionBoundary.fromProperty`); `null`, `undefined` and `''` give the default.
 * Throws ConfigError for anything else.
 */
export function parseTransactionBoundary(value: string | null | undefined): TransactionBoundary {
  const text = (value ?? '').trim().toLowerCase();
  if (text === '') return DEFAULT_TRANSACTION_BOUNDARY;
  const found = TRANSACTION_BOUNDARIES.find((b) => b === text);
  if (found === undefined) {
    throw new ConfigError(
      `Invalid value ${value} for configuration ${TRANSACTION_BOUNDARY_CONFIG}: must be one of ${TRANSACTION_BOUNDARIES.join(', ')}`,
      TRANSACTION_BOUNDARY_CONFIG,
    );
  }
  return found;
}

/** Where Kafka stored a record (Kafka's producer `RecordMetadata`). */
export interface RecordMetadata {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** Milliseconds since the epoch, or `null` when the broker returned none. */
  readonly timestamp: number | null;
}

/**
 * A connector that reads from an external system into Kafka. See {@link Connector} for the
 * lifecycle. The exactly-once methods are called on a fresh, unstarted instance with the
 * connector config, before it is created or when it is validated.
 */
export abstract class SourceConnector extends Connector {
  abstract override createTask(): SourceTask;

  /**
   * Whether this connector, with `config`, can deliver exactly once; `null` (the default)
   * means unknown, which `exactly.once.support=required` rejects.
   */
  exactlyOnceSupport(_config: Readonly<Record<string, string>>): ExactlyOnceSupport | null {
    return null;
  }

  /** Whether the tasks can define transaction boundaries; needed for `transaction.boundary=connector`. */
  canDefineTransactionBoundaries(
    _config: Readonly<Record<string, string>>,
  ): ConnectorTransactionBoundaries {
    return 'UNSUPPORTED';
  }

  /**
   * Called before the runtime alters (`offset` set) or resets (`offset` null) the committed
   * offsets of a STOPPED connector (`PATCH`/`DELETE /connectors/{name}/offsets`). Throw a
   * ConnectError to refuse. Resolve `true` when the connector acknowledges the change,
   * `false` (the default) when it does not implement this.
   */
  async alterOffsets(
    _config: Readonly<Record<string, string>>,
    _offsets: readonly SourcePartitionOffset[],
  ): Promise<boolean> {
    return false;
  }
}

/**
 * A task that reads records from an external system.
 *
 * Lifecycle (driven by the source task runner, one invocation at a time per task, guarded by
 * a lease):
 * 1. A fresh instance from `SourceConnector.createTask()`.
 * 2. `start(props, context)` once: read the committed offsets through
 *    `context.offsetStorageReader` and position the reader after them.
 * 3. `poll()` repeatedly until the invocation's time budget is spent. Calls never overlap.
 * 4. `commitRecord(record, metadata)` for each record once Kafka acknowledged it (or once it
 *    was filtered out by a transformation: `metadata` is then `null`), and `commit()` after
 *    offsets were committed. Both are informational: the runtime already stored the offsets.
 * 5. `stop()` once, last. It may be called while a `poll()` is pending (the deadline is near);
 *    `poll` must then resolve promptly, with `null` or the records it has.
 *
 * Records are never mutated by the runtime; records returned by `poll` must not be mutated by
 * the task afterwards either.
 */
export abstract class SourceTask implements Task {
  abstract version(): string;

  /** Starts the task; `props` is its task config, `context` valid until `stop` returns. */
  abstract start(
    props: Readonly<Record<string, string>>,
    context: SourceTaskContext,
  ): Promise<void>;

  /**
   * The next records, or `null` (or `[]`) when none are available now. Should resolve within
   * about a second even when there is no data, so the runner can honour its deadline and
   * commit. Throwing a RetriableError retries the poll; any other error fails the task.
   */
  abstract poll(): Promise<SourceRecord[] | null>;

  /** Called after the offsets of the records returned so far were committed. */
  async commit(): Promise<void> {}

  /**
   * Called once per record after Kafka acknowledged it (`metadata` set) or after a
   * transformation dropped it (`metadata` null). Use to acknowledge messages at the source.
   */
  async commitRecord(_record: SourceRecord, _metadata: RecordMetadata | null): Promise<void> {}

  /** Stops the task and releases its resources. */
  abstract stop(): Promise<void>;
}
