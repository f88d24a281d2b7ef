import type {
  OffsetStorageReader,
  SourceTaskContext,
  TransactionContext,
} from '../../connect/context.js';
import type {
  SourceOffset,
  SourcePartition,
  SourcePartitionOffset,
  SourceRecord,
} from '../../connect/records.js';
import type { TaskRef } from '../../ports/lease-store.js';
import type { OffsetStore } from '../../ports/offset-store.js';
import { sourcePartitionKey } from './offsets-topic.js';

export interface SourceTaskContextOptions {
  readonly config: Readonly<Record<string, string>>;
  /** This task's committed offsets (recovered, then updated after each commit). */
  readonly own: () => readonly SourcePartitionOffset[];
  readonly offsets: OffsetStore;
  readonly ref: TaskRef;
  readonly connectorDefinesBoundaries: boolean;
}

/**
 * The context a source task sees. Offsets come from the task's own committed offsets first;
 * a source partition the task never committed (it moved here from another task after a
 * reconfiguration) is looked up in the other tasks' committed offsets of the connector.
 */
export class SourceTaskContextImpl implements SourceTaskContext {
  readonly offsetStorageReader: OffsetStorageReader;
  readonly transactionContext: TransactionContext | null;
  #commitRequested = false;

  constructor(private readonly options: SourceTaskContextOptions) {
    this.offsetStorageReader = {
      offset: async (partition) => (await this.#lookup([partition]))[0]?.offset ?? null,
      offsets: (partitions) => this.#lookup(partitions),
    };
    this.transactionContext = options.connectorDefinesBoundaries
      ? {
          commitTransaction: (_record?: SourceRecord) => {
            this.#commitRequested = true;
          },
          abortTransaction: (_record?: SourceRecord) => {
            // Aborting connector-defined transactions is not supported yet: the records stay in
            // the open transaction, which commits at the next boundary.
          },
        }
      : null;
  }

  configs(): Readonly<Record<string, string>> {
    return this.options.config;
  }

  /** True once per commit request made by the task since the last call. */
  takeCommitRequest(): boolean {
    const requested = this.#commitRequested;
    this.#commitRequested = false;
    return requested;
  }

  async #lookup(partitions: readonly SourcePartition[]): Promise<SourcePartitionOffset[]> {
    const known = new Map<string, SourceOffset | null>();
    for (const entry of this.options.own())
      known.set(sourcePartitionKey(entry.partition), entry.offset);
    const missing = partitions.filter((p) => !known.has(sourcePartitionKey(p)));
    if (missing.length > 0) {
      const all = await this.options.offsets.listSourceOffsets(this.options.ref.connector);
      for (const task of all) {
        if (task.task === this.options.ref.task) continue;
        for (const entry of task.committed?.offsets ?? []) {
          const key = sourcePartitionKey(entry.partition);
          if (!known.has(key)) known.set(key, entry.offset);
        }
      }
    }
    return partitions
      .map((partition) => ({ partition, offset: known.get(sourcePartitionKey(partition)) ?? null }))
      .filter((entry) => entry.offset !== null);
  }
}
