import type {
  OffsetStorageReader,
  PluginMetrics,
  SourceTaskContext,
  TransactionContext,
} from '../../connect/context.js';
import { RetriableError } from '../../connect/errors.js';
import type {
  SourcePartition,
  SourcePartitionOffset,
  SourceRecord,
} from '../../connect/records.js';
import type { TaskRef } from '../../ports/lease-store.js';
import type {
  OffsetStore,
  PendingSourceOffsets,
  SourceOffsetEntry,
  TaskSourceOffsets,
} from '../../ports/offset-store.js';
import type { PendingFate } from '../task/source-transaction-fate.js';
import { sourcePartitionKey } from './offsets-topic.js';
import type { BoundaryKind, BoundaryRequest } from './transaction-boundaries.js';

const noRequests: readonly BoundaryRequest[] = Object.freeze([]);
const dropGauges: PluginMetrics = { gauge: () => {} };

export interface SourceTaskContextOptions {
  readonly config: Readonly<Record<string, string>>;
  /** This task's committed offsets (recovered, then updated after each commit). */
  readonly own: () => readonly SourceOffsetEntry[];
  readonly offsets: OffsetStore;
  readonly ref: TaskRef;
  readonly connectorDefinesBoundaries: boolean;
  /**
   * The fate of another task's pending transaction (see recovery.ts). A task of an older
   * generation may have committed a transaction it could not promote before it was fenced; its
   * offsets count when it committed.
   */
  readonly pendingFateOf?: (task: number, pending: PendingSourceOffsets) => Promise<PendingFate>;
  /** Where the task's own gauges go (published with the invocation's metrics); dropped when absent. */
  readonly pluginMetrics?: PluginMetrics;
}

/**
 * The context a source task sees. Offsets come from the task's own committed offsets first;
 * a source partition the task never committed (it moved here from another task after a
 * reconfiguration) is looked up in the other tasks' committed offsets of the connector.
 */
export class SourceTaskContextImpl implements SourceTaskContext {
  readonly offsetStorageReader: OffsetStorageReader;
  readonly transactionContext: TransactionContext | null;
  #requests: BoundaryRequest[] = [];
  #others: Promise<SourceOffsetEntry[]> | undefined;

  constructor(private readonly options: SourceTaskContextOptions) {
    this.offsetStorageReader = {
      offset: async (partition) => (await this.#lookup([partition]))[0]?.offset ?? null,
      offsets: (partitions) => this.#lookup(partitions),
    };
    this.transactionContext = options.connectorDefinesBoundaries
      ? {
          commitTransaction: (record?: SourceRecord) => this.#request('commit', record),
          abortTransaction: (record?: SourceRecord) => this.#request('abort', record),
        }
      : null;
  }

  configs(): Readonly<Record<string, string>> {
    return this.options.config;
  }

  pluginMetrics(): PluginMetrics {
    return this.options.pluginMetrics ?? dropGauges;
  }

  #request(kind: BoundaryKind, record: SourceRecord | undefined): void {
    this.#requests.push(record === undefined ? { kind } : { kind, record });
  }

  /**
   * The `TransactionContext` requests the task made since the last call, in order (the runner
   * takes them after each poll: they belong to the batch that poll returned).
   */
  takeBoundaryRequests(): readonly BoundaryRequest[] {
    const requests = this.#requests;
    if (requests.length === 0) return noRequests;
    this.#requests = [];
    return requests;
  }

  /**
   * Another task's offsets as they stand once its last transaction is settled: its pending
   * offsets when that transaction committed, else its committed ones. An undecided transaction
   * ends this invocation (retriable); the enumerator fenced its producer, so it resolves soon.
   */
  async #settledOffsets(other: TaskSourceOffsets): Promise<readonly SourceOffsetEntry[]> {
    const committed = other.committed?.offsets ?? [];
    const pending = other.pending;
    const fateOf = this.options.pendingFateOf;
    if (pending === undefined || pending.seq <= (other.committed?.seq ?? 0) || !fateOf) {
      return committed;
    }
    const fate = await fateOf(other.task, pending);
    if (fate.decided === 'open') {
      this.#others = undefined;
      throw new RetriableError(
        `${other.connector}-${other.task}: its last transaction (offsets ${pending.seq}) is still undecided; ` +
          `source partitions moving from it wait until it is`,
      );
    }
    return fate.decided === 'committed' ? pending.offsets : committed;
  }

  /**
   * Per partition, the entry advanced last (its `at` stamp) among this task's committed offsets
   * and the other tasks' (read once per invocation: only a partition's owner advances it, and
   * older owners are fenced before a new one runs). Entries without a stamp count as oldest;
   * on a tie this task's own entry wins.
   */
  async #lookup(partitions: readonly SourcePartition[]): Promise<SourcePartitionOffset[]> {
    this.#others ??= this.options.offsets
      .listSourceOffsets(this.options.ref.connector)
      .then((all) =>
        Promise.all(
          all.filter((t) => t.task !== this.options.ref.task).map((t) => this.#settledOffsets(t)),
        ),
      )
      .then((lists) => lists.flat());
    const best = new Map<string, SourceOffsetEntry>();
    const consider = (entry: SourceOffsetEntry, preferOnTie: boolean) => {
      const key = sourcePartitionKey(entry.partition);
      const current = best.get(key);
      const a = entry.at ?? 0;
      const b = current?.at ?? 0;
      if (current === undefined || a > b || (a === b && preferOnTie)) best.set(key, entry);
    };
    for (const entry of await this.#others) consider(entry, false);
    for (const entry of this.options.own()) consider(entry, true);
    return partitions.flatMap((partition) => {
      const offset = best.get(sourcePartitionKey(partition))?.offset ?? null;
      return offset === null ? [] : [{ partition, offset }];
    });
  }
}
