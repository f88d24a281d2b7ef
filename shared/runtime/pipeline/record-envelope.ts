/**
 * The envelope a record travels in, from where the task got it to where its offset is committed
 * (Kafka Connect's `SubmittedRecords.SubmittedRecord` and `InternalSinkRecord`): the original,
 * what the pipeline made of it, and its position. Whoever holds a record's envelope holds its
 * original: there are no parallel arrays to keep in step and no map to find it again.
 *
 * - A source record: `poll` → {@link SourceEnvelope} (original, index in the poll batch) → the
 *   pipeline sets its outgoing record or its dead letters → the transaction sends both and
 *   notes where the outgoing record was written → `commitRecord(original, metadata)`.
 * - A sink record: the ESM batch → {@link SinkEnvelope} (the consumed record, whose topic,
 *   partition and offset are its position) → the pipeline sets the {@link InternalSinkRecord}
 *   for `put`, which carries the consumed record to the errant record reporter and the DLQ.
 */
import {
  type RecordChanges,
  SinkRecord,
  type SinkRecordInit,
  type SourceRecord,
} from '../../connect/records.js';
import type { ConsumedRecord, OutgoingRecord, TopicPartitionOffset } from '../../ports/kafka.js';

const NO_RECORDS: readonly OutgoingRecord[] = Object.freeze([]);

/**
 * One polled source record. The pipeline fills `outgoing` and `deadLetters`; the transaction
 * fills `written`.
 */
export class SourceEnvelope {
  /**
   * The record to produce; `null` when a transformation dropped the record or a tolerated
   * failure skipped it. Set by the pipeline.
   */
  outgoing: OutgoingRecord | null = null;
  /**
   * The dead letters of the record's tolerated failure (empty unless it failed with a DLQ
   * topic set); they go into the transaction that takes the record. Set by the pipeline.
   */
  deadLetters: readonly OutgoingRecord[] = NO_RECORDS;
  /** Where `outgoing` was written, once its transaction sent it. Set by the transaction. */
  written: TopicPartitionOffset | undefined = undefined;

  constructor(
    /** The record as `poll` returned it (the very object: boundary requests name it). */
    readonly original: SourceRecord,
    /** Its position in the poll batch. */
    readonly index: number,
  ) {}
}

/** What became of a consumed record: given to `put`, dropped by a transformation, or failed. */
export type SinkOutcome = 'put' | 'filtered' | 'failed';

/** One consumed record of an ESM batch. The pipeline fills `outcome`, `record`, `deadLettered`. */
export class SinkEnvelope {
  /** What became of the record; `undefined` until the pipeline ran. */
  outcome: SinkOutcome | undefined = undefined;
  /** The record for `put` when `outcome` is `put` (it carries `original`), else `null`. */
  record: InternalSinkRecord | null = null;
  /** True when the record failed and went to the dead letter queue. */
  deadLettered = false;

  constructor(
    /** The record as consumed; its topic, partition and offset are its position. */
    readonly original: ConsumedRecord,
  ) {}
}

/** The init that makes a copy of `record`. */
function initOf(record: SinkRecord): SinkRecordInit {
  return { ...record, kafkaPartition: record.kafkaPartition ?? record.originalKafkaPartition };
}

/**
 * The SinkRecord a sink task's `put` receives (Connect's `InternalSinkRecord`): a SinkRecord
 * that also carries the record as consumed, so that reporting it as errant sends the original
 * bytes to the dead letter queue without converting anything back. Copies made with
 * `newRecord` carry it too. As in Connect, it does not `equals` a plain SinkRecord.
 */
export class InternalSinkRecord extends SinkRecord {
  readonly #consumed: ConsumedRecord;

  constructor(init: SinkRecordInit, consumed: ConsumedRecord) {
    super(init);
    this.#consumed = consumed;
    if (new.target === InternalSinkRecord) Object.freeze(this);
  }

  /** The record as consumed from Kafka, before conversion and transformations. */
  get consumed(): ConsumedRecord {
    return this.#consumed;
  }

  /** `record` as the record `put` gets for `consumed` (itself when it already carries it). */
  static carrying(record: SinkRecord, consumed: ConsumedRecord): InternalSinkRecord {
    return record instanceof InternalSinkRecord && record.#consumed === consumed
      ? record
      : new InternalSinkRecord(initOf(record), consumed);
  }

  override newRecord(changes: RecordChanges = {}): this {
    return new InternalSinkRecord(initOf(super.newRecord(changes)), this.#consumed) as this;
  }

  /** Printed as a SinkRecord (tasks log the records they get). */
  override toString(): string {
    return `SinkRecord${super.toString().slice(InternalSinkRecord.name.length)}`;
  }
}
