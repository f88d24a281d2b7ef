/**
 * The in-memory stand-ins of the runtime's contexts: what a worker hands a connector and its
 * tasks. The offset store keeps the committed offset of each source partition, as Connect's
 * offset backing store does.
 */
import type {
  ConnectorContext,
  OffsetStorageReader,
  PluginMetrics,
  PluginMetricUnit,
  SinkTaskContext,
  SourceOffset,
  SourcePartition,
  SourcePartitionOffset,
  SourceRecord,
  SourceTaskContext,
  TopicPartition,
  TransactionContext,
} from '../connect/index.js';
import { canonical } from './check.js';

/** A connector context that records what the connector asks. */
export class RecordingConnectorContext implements ConnectorContext {
  readonly raised: Error[] = [];
  reconfigurations = 0;
  requestTaskReconfiguration(): void {
    this.reconfigurations++;
  }
  raiseError(error: Error): void {
    this.raised.push(error);
  }
}

/** Committed source offsets, keyed by the canonical text of their source partition. */
export class MemoryOffsetStore {
  readonly #offsets = new Map<string, SourcePartitionOffset>();

  put(partition: SourcePartition, offset: SourceOffset | null): void {
    this.#offsets.set(canonical(partition), { partition, offset });
  }

  get(partition: SourcePartition): SourceOffset | null {
    return this.#offsets.get(canonical(partition))?.offset ?? null;
  }

  /** A reader over what is committed when it is called (Connect's `OffsetStorageReader`). */
  reader(): OffsetStorageReader {
    return {
      offset: async (partition) => this.get(partition),
      offsets: async (partitions) =>
        partitions.map((partition) => ({ partition, offset: this.get(partition) })),
    };
  }
}

/** One transaction request of a task. */
export interface TransactionRequest {
  readonly kind: 'commit' | 'abort';
  readonly record: SourceRecord | undefined;
}

/** A TransactionContext that queues the task's requests until the worker takes them. */
export class RecordingTransactionContext implements TransactionContext {
  #requests: TransactionRequest[] = [];
  total = 0;
  commitTransaction(record?: SourceRecord): void {
    this.#requests.push({ kind: 'commit', record });
    this.total++;
  }
  abortTransaction(record?: SourceRecord): void {
    this.#requests.push({ kind: 'abort', record });
    this.total++;
  }
  /** The requests made since the last call. */
  take(): TransactionRequest[] {
    const taken = this.#requests;
    this.#requests = [];
    return taken;
  }
}

/** PluginMetrics that keeps the last value of each gauge, for tests to read. */
export class RecordingPluginMetrics implements PluginMetrics {
  readonly gauges = new Map<string, { value: number; unit: PluginMetricUnit }>();
  gauge(name: string, value: number, unit: PluginMetricUnit = 'None'): void {
    this.gauges.set(name, { value, unit });
  }
}

export function sourceTaskContext(
  props: Readonly<Record<string, string>>,
  store: MemoryOffsetStore,
  transactions: TransactionContext | null = null,
  gauges: PluginMetrics = new RecordingPluginMetrics(),
): SourceTaskContext {
  return {
    configs: () => props,
    offsetStorageReader: store.reader(),
    transactionContext: transactions,
    pluginMetrics: () => gauges,
  };
}

/** A sink task context without error reporting, recording the task's offset requests. */
export class KitSinkTaskContext implements SinkTaskContext {
  readonly #props: Readonly<Record<string, string>>;
  readonly offsetRequests = new Map<string, number>();
  #assignment: TopicPartition[] = [];
  readonly errantRecordReporter = null;

  constructor(props: Readonly<Record<string, string>>) {
    this.#props = props;
  }
  configs(): Readonly<Record<string, string>> {
    return this.#props;
  }
  offset(partition: TopicPartition, offset: number): void {
    this.offsetRequests.set(`${partition.topic}-${partition.partition}`, offset);
  }
  timeout(_timeoutMs: number): void {}
  assignment(): TopicPartition[] {
    return [...this.#assignment];
  }
  assign(partitions: readonly TopicPartition[]): void {
    this.#assignment = [...partitions];
  }
  pause(..._partitions: TopicPartition[]): void {}
  resume(..._partitions: TopicPartition[]): void {}
  requestCommit(): void {}
}
