/**
 * An in-memory Kafka for unit tests (the Kafka sink's, and the engines the sink
 * runner's tests build over it): topics with logs of transactional records (open, committed or
 * aborted), group offsets committed with transactions, producer epochs that fence older
 * producers of a transactional id, injectable commit failures, and idempotent producers (dead
 * letter queues) whose records are kept in `sent`.
 */
import { FencedError, RetriableError } from '../../shared/connect/errors.js';
import type {
  CommittedRecord,
  IdempotentProducer,
  KafkaAdminPort,
  KafkaClientFactory,
  OutgoingRecord,
  ProducerOptions,
  ProducerTransaction,
  TopicPartitionOffset,
  TopicSpec,
  TransactionalProducer,
} from '../../shared/ports/kafka.js';
import { TransactionOutcomeUnknownError } from '../../shared/ports/kafka-errors.js';

type EntryState = 'open' | 'committed' | 'aborted';

export interface LogEntry {
  readonly record: OutgoingRecord;
  readonly transactionalId: string;
  state: EntryState;
}

/** How the next commit of a transactional id fails. */
export type CommitFailure =
  /** The broker committed, but the answer was lost. */
  | 'lost-after-commit'
  /** The request never arrived; the transaction stays open until the id is initialised again. */
  | 'lost-before-commit';

export class FakeKafka {
  /** Logs by `topic` then partition. */
  readonly logs = new Map<string, LogEntry[][]>();
  /** Committed group offsets: group → `topic-partition` → offset. */
  readonly groups = new Map<string, Map<string, number>>();
  readonly epochs = new Map<string, number>();
  /** Every call in order: `init <id>`, `fetch <group> <topic>`, `commit <id>`, `close <id>`… */
  readonly calls: string[] = [];
  /** Producers built, with their options. */
  readonly built: { id: string; options: ProducerOptions | undefined }[] = [];
  readonly commitFailures = new Map<string, CommitFailure>();
  readonly created: TopicSpec[] = [];
  /** What idempotent producers sent, in order (also appended, committed, to existing topics). */
  readonly sent: OutgoingRecord[] = [];
  /** Runs before each transactional send (after the epoch check passed), e.g. to stage a race. */
  beforeSend: ((transactionalId: string) => Promise<void>) | undefined;

  topic(name: string, partitions: number): this {
    this.logs.set(
      name,
      Array.from({ length: partitions }, () => []),
    );
    return this;
  }

  /** The committed records of a partition, as a read_committed consumer sees them. */
  committed(topic: string, partition: number): OutgoingRecord[] {
    return (this.logs.get(topic)?.[partition] ?? [])
      .filter((e) => e.state === 'committed')
      .map((e) => e.record);
  }

  /** Sets a committed group offset directly. */
  commitGroup(group: string, topic: string, partition: number, offset: number): void {
    const offsets = this.groups.get(group) ?? new Map<string, number>();
    offsets.set(`${topic}-${partition}`, offset);
    this.groups.set(group, offsets);
  }

  groupOffset(group: string, topic: string, partition: number): number | undefined {
    return this.groups.get(group)?.get(`${topic}-${partition}`);
  }

  /** Aborts what `id` left open (what InitProducerId does). */
  #abortOpen(id: string): void {
    for (const partitions of this.logs.values()) {
      for (const log of partitions) {
        for (const e of log)
          if (e.transactionalId === id && e.state === 'open') e.state = 'aborted';
      }
    }
  }

  /** The clients of this cluster, as the engine and the Kafka sink take them. */
  readonly clients: KafkaClientFactory = {
    transactionalProducer: (id, options) => {
      this.built.push({ id, options });
      return new FakeProducer(this, id);
    },
    idempotentProducer: () => new FakeIdempotentProducer(this),
    admin: () => this.admin,
  };

  readonly admin: KafkaAdminPort = {
    listTopics: async () => [...this.logs.keys()],
    partitionCounts: async (topics) =>
      new Map(
        topics.flatMap((t) => {
          const log = this.logs.get(t);
          return log === undefined ? [] : [[t, log.length] as const];
        }),
      ),
    createTopics: async (specs) => {
      const created: string[] = [];
      for (const spec of specs) {
        if (this.logs.has(spec.topic)) continue;
        this.created.push(spec);
        this.topic(spec.topic, spec.partitions ?? 1);
        created.push(spec.topic);
      }
      return created;
    },
    committedOffsets: async (group, topic) => {
      this.calls.push(`fetch ${group} ${topic}`);
      return [...(this.groups.get(group) ?? new Map<string, number>())].flatMap(([id, offset]) => {
        const dash = id.lastIndexOf('-');
        return id.slice(0, dash) === topic
          ? [{ topic, partition: Number(id.slice(dash + 1)), offset }]
          : [];
      });
    },
    endOffsets: async (topic) =>
      (this.logs.get(topic) ?? []).map((log, partition) => ({
        topic,
        partition,
        offset: log.length,
      })),
    offsetsForTimestamp: async () => [],
    setGroupOffsets: async (group, offsets) => {
      const committed = this.groups.get(group) ?? new Map<string, number>();
      for (const o of offsets) committed.set(`${o.topic}-${o.partition}`, o.offset);
      this.groups.set(group, committed);
    },
    readCommitted: async (topic, from = []) => {
      const logs = this.logs.get(topic) ?? [];
      const records: CommittedRecord[] = [];
      const next = logs.map((log, partition) => {
        const start = from.find((p) => p.topic === topic && p.partition === partition)?.offset ?? 0;
        const open = log.findIndex((e) => e.state === 'open');
        const stable = open < 0 ? log.length : open;
        for (let offset = start; offset < stable; offset += 1) {
          const entry = log[offset];
          if (entry?.state !== 'committed') continue;
          const { key, value, timestamp } = entry.record;
          records.push({ partition, offset, key, value, timestamp: timestamp ?? 0 });
        }
        return { topic, partition, offset: Math.max(start, stable) };
      });
      return { records, next };
    },
    transactionalRecordFate: async (position) => {
      const entry = this.logs.get(position.topic)?.[position.partition]?.[position.offset];
      return entry?.state ?? 'open';
    },
    close: async () => {},
  };

  /** @internal used by FakeProducer */
  init(id: string): number {
    const epoch = (this.epochs.get(id) ?? 0) + 1;
    this.epochs.set(id, epoch);
    this.#abortOpen(id);
    this.calls.push(`init ${id}`);
    return epoch;
  }
}

let roundRobin = 0;

/** Sends to the logs, committed (no transaction), and keeps every record in `sent`. */
class FakeIdempotentProducer implements IdempotentProducer {
  constructor(private readonly kafka: FakeKafka) {}

  async connect(): Promise<void> {}

  async send(records: readonly OutgoingRecord[]): Promise<TopicPartitionOffset[]> {
    return records.map((record) => {
      const partitions = this.kafka.logs.get(record.topic);
      if (partitions === undefined) throw new RetriableError(`UNKNOWN_TOPIC ${record.topic}`);
      const partition = record.partition ?? roundRobin++ % partitions.length;
      const log = partitions[partition];
      if (log === undefined) throw new Error(`no partition ${record.topic}-${partition}`);
      this.kafka.sent.push(record);
      log.push({ record: { ...record, partition }, transactionalId: '', state: 'committed' });
      return { topic: record.topic, partition, offset: log.length - 1 };
    });
  }

  async close(): Promise<void> {}
}

class FakeProducer implements TransactionalProducer {
  #epoch = 0;

  constructor(
    private readonly kafka: FakeKafka,
    readonly transactionalId: string,
  ) {}

  async connect(): Promise<void> {
    this.#epoch = this.kafka.init(this.transactionalId);
  }

  checkEpoch(): void {
    if (this.kafka.epochs.get(this.transactionalId) !== this.#epoch) {
      throw new FencedError(`${this.transactionalId} was fenced (PRODUCER_FENCED)`);
    }
  }

  async begin(): Promise<ProducerTransaction> {
    this.checkEpoch();
    return new FakeTransaction(this.kafka, this);
  }

  async close(): Promise<void> {
    this.kafka.calls.push(`close ${this.transactionalId}`);
  }
}

class FakeTransaction implements ProducerTransaction {
  readonly #entries: LogEntry[] = [];
  readonly #offsets: { group: string; offsets: readonly TopicPartitionOffset[] }[] = [];

  constructor(
    private readonly kafka: FakeKafka,
    private readonly producer: FakeProducer,
  ) {}

  async send(records: readonly OutgoingRecord[]): Promise<TopicPartitionOffset[]> {
    const id = this.producer.transactionalId;
    await this.kafka.beforeSend?.(id);
    this.producer.checkEpoch();
    this.kafka.calls.push(`send ${id} ${records.length}`);
    return records.map((record) => {
      const partitions = this.kafka.logs.get(record.topic);
      if (partitions === undefined) throw new RetriableError(`UNKNOWN_TOPIC ${record.topic}`);
      const partition = record.partition ?? roundRobin++ % partitions.length;
      const log = partitions[partition];
      if (log === undefined) throw new Error(`no partition ${record.topic}-${partition}`);
      const entry: LogEntry = {
        record: { ...record, partition },
        transactionalId: id,
        state: 'open',
      };
      log.push(entry);
      this.#entries.push(entry);
      return { topic: record.topic, partition, offset: log.length - 1 };
    });
  }

  async sendOffsets(group: string, offsets: readonly TopicPartitionOffset[]): Promise<void> {
    this.producer.checkEpoch();
    this.kafka.calls.push(
      `sendOffsets ${this.producer.transactionalId} ${group} ${offsets.map((o) => `${o.topic}-${o.partition}=${o.offset}`).join(',')}`,
    );
    this.#offsets.push({ group, offsets });
  }

  async commit(): Promise<void> {
    const id = this.producer.transactionalId;
    const failure = this.kafka.commitFailures.get(id);
    this.kafka.commitFailures.delete(id);
    if (failure === 'lost-before-commit') {
      throw new TransactionOutcomeUnknownError(`commit (${id}): outcome unknown (timeout)`);
    }
    this.producer.checkEpoch();
    this.kafka.calls.push(`commit ${id}`);
    for (const e of this.#entries) e.state = 'committed';
    for (const { group, offsets } of this.#offsets) {
      for (const o of offsets) this.kafka.commitGroup(group, o.topic, o.partition, o.offset);
    }
    if (failure === 'lost-after-commit') {
      throw new TransactionOutcomeUnknownError(`commit (${id}): outcome unknown (timeout)`);
    }
  }

  async abort(): Promise<void> {
    this.kafka.calls.push(`abort ${this.producer.transactionalId}`);
    for (const e of this.#entries) if (e.state === 'open') e.state = 'aborted';
  }
}
