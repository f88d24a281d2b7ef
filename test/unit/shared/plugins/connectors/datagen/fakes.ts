import type {
  OffsetStorageReader,
  SourceTaskContext,
  TransactionContext,
} from '../../../../../../shared/connect/context.js';
import type { SourcePartition, SourceRecord } from '../../../../../../shared/connect/records.js';

/** A clock the test moves by hand. */
export class FakeClock {
  constructor(public time = 1_000_000) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

/** Stored offsets keyed by datagen partition: the last committed seq. */
export function offsetReader(lastSeq: ReadonlyMap<number, number>): OffsetStorageReader {
  const offsetOf = (partition: SourcePartition) => {
    const seq = lastSeq.get(Number(partition['datagen.partition']));
    return seq === undefined ? null : { seq };
  };
  return {
    offset: async (partition) => offsetOf(partition),
    offsets: async (partitions) =>
      partitions.map((partition) => ({ partition, offset: offsetOf(partition) })),
  };
}

/** Records every transaction request. */
export class RecordingTransactionContext implements TransactionContext {
  readonly commits: (SourceRecord | undefined)[] = [];
  readonly aborts: (SourceRecord | undefined)[] = [];
  commitTransaction(record?: SourceRecord): void {
    this.commits.push(record);
  }
  abortTransaction(record?: SourceRecord): void {
    this.aborts.push(record);
  }
}

export function taskContext(
  props: Readonly<Record<string, string>>,
  lastSeq: ReadonlyMap<number, number> = new Map(),
  transactionContext: TransactionContext | null = null,
): SourceTaskContext {
  return {
    configs: () => props,
    offsetStorageReader: offsetReader(lastSeq),
    transactionContext,
    pluginMetrics: () => ({ gauge: () => {} }),
  };
}

/** The (partition, seq) of each record, from its source partition and offset. */
export function positions(records: readonly SourceRecord[] | null): [number, number][] {
  return (records ?? []).map((r) => [
    Number(r.sourcePartition?.['datagen.partition']),
    Number(r.sourceOffset?.seq),
  ]);
}
