/**
 * What a connector author gives the kit: the subject of the checks. A subject describes the
 * connector's configs and, for the behavioural checks, sets up a fresh in-memory world (the
 * connector over fakes of its external system) for every check.
 */
import type {
  ConnectorTransactionBoundaries,
  ExactlyOnceSupport,
  SinkConnector,
  SinkRecord,
  SourceConnector,
  SourcePartitionOffset,
  SourceRecord,
  TopicPartition,
} from '../connect/index.js';

/** Connector config strings, as the runtime passes them. */
export type ConnectorConfig = Readonly<Record<string, string>>;

/** A config the connector must reject, and the key whose `ConfigValue` must carry the error. */
export interface InvalidConfig {
  readonly config: ConnectorConfig;
  readonly field: string;
}

/**
 * A failure the subject provokes in its world (a failing fake, a corrupt stored offset): the
 * connector must surface it as a ConnectError whose message names the cause.
 */
export interface ExpectedFailure {
  /** What the error message must contain (a string) or match (a RegExp). */
  readonly cause: string | RegExp;
  /** Source only: offsets the kit stores before the task starts (e.g. a corrupt one). */
  readonly storedOffsets?: readonly SourcePartitionOffset[];
}

/** What every subject gives. */
export interface ConnectorSubject {
  /** A config with which the connector has work to do in the subject's world. */
  readonly validConfig: ConnectorConfig;
  /** Configs to reject, each with the field expected to carry the error. At least one. */
  readonly invalidConfigs: readonly InvalidConfig[];
  /** The `maxTasks` values `taskConfigs` is asked for. @default [1, 2, 3, 8] */
  readonly maxTasks?: readonly number[];
}

/** A fresh source world for one check. */
export interface SourceFixture {
  /** A fresh, unstarted connector over this world's fakes (call it any number of times). */
  connector(): SourceConnector;
}

/** A source connector under test, over worlds of type `F`. */
export interface SourceConnectorSubject<F extends SourceFixture = SourceFixture>
  extends ConnectorSubject {
  /** A fresh world: fakes holding a finite amount of data, so the source runs dry. */
  setUp(): F | Promise<F>;
  /**
   * Makes `fixture`'s world fail from now on (or gives corrupt offsets for the kit to store),
   * and says what the error must name. Omit only when nothing the connector does can fail.
   */
  injectFailure?(fixture: F): ExpectedFailure;
  /**
   * The record's identity within its source partition (a sequence number, an object key and
   * line…): two records with the same identity are the same record, delivered twice.
   */
  identity(record: SourceRecord): string;
  /** What `exactlyOnceSupport(validConfig)` is documented to answer. */
  readonly exactlyOnceSupport: ExactlyOnceSupport | null;
  /** What `canDefineTransactionBoundaries(validConfig)` is documented to answer. */
  readonly transactionBoundaries: ConnectorTransactionBoundaries;
  /**
   * Extra config for a run with `transaction.boundary=connector`, for the task to define
   * boundaries (e.g. `{ 'transaction.records': '3' }`). @default {}
   */
  readonly transactionBoundaryConfig?: ConnectorConfig;
  /** The seed of the random stop and commit points. @default 42 */
  readonly seed?: number;
  /** Polls after which a run that has not run dry fails. @default 2000 */
  readonly maxPolls?: number;
  /** Empty polls in a row that mean the source ran dry. @default 3 */
  readonly idlePolls?: number;
}

/**
 * A sink's documented delivery guarantee under replays: `exactly-once` (each record's effect
 * appears once, whatever is redelivered), `idempotent` (rewriting converges to the state one
 * delivery gives), `at-least-once` (every record appears, duplicates allowed).
 */
export type SinkGuarantee = 'exactly-once' | 'idempotent' | 'at-least-once';

/** A fresh sink world for one check. */
export interface SinkFixture {
  /** A fresh, unstarted connector over this world's fakes. */
  connector(): SinkConnector;
  /**
   * What the external system holds, one entry per written record or item, in a comparable
   * form (plain data; order does not matter; leave out what differs between runs, such as
   * write times).
   */
  read(): Promise<readonly unknown[]>;
}

/** A sink connector under test, over worlds of type `F`. */
export interface SinkConnectorSubject<F extends SinkFixture = SinkFixture>
  extends ConnectorSubject {
  setUp(): F | Promise<F>;
  /** Makes `fixture`'s external system fail from now on, and says what the error must name. */
  injectFailure?(fixture: F): ExpectedFailure;
  readonly guarantee: SinkGuarantee;
  /** The partitions the kit delivers records of (topics the valid config consumes). */
  readonly topicPartitions: readonly TopicPartition[];
  /** The record consumed from `tp` at `offset`, as the converters would give it to `put`. */
  record(tp: TopicPartition, offset: number): SinkRecord;
  /** Records per partition. @default 12 */
  readonly recordsPerPartition?: number;
  /** The seed of the random batch splits. @default 42 */
  readonly seed?: number;
}
