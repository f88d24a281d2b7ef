/**
 * Kafka Connect's active topic tracking (KIP-558), runtime side: the topics each connector
 * writes to (source) or consumes (sink), kept in the state store for
 * `GET /connectors/{c}/topics`.
 *
 * Apache's `WorkerTask.recordActiveTopic` looks the topic up in the status store's in-memory
 * view and writes only when it is not there. A Lambda container has no such view, so the
 * tracker keeps, per task, the topics it has already recorded: a record costs a set lookup, and
 * a topic costs one conditional write (`TopicStore.recordActiveTopic`) per task and container.
 *
 * The set belongs to one incarnation of the task (the connector's creation time and the task's
 * generation). Active topics are reset only while the connector is STOPPED with no task
 * configs, so every task that runs after a reset has a new generation, starts with an empty set
 * and records its topics again; a connector deleted and created again under the same name has
 * a new creation time.
 *
 * Recording is best effort, as in Apache (a failed status write is logged there): a failed
 * write is logged and the topic is tried again with the next records, and never fails a
 * transaction or a batch.
 *
 * @example
 * ```ts
 * const tracker = new ActiveTopicTracker(store.topics, { enabled: true, logger });
 * const topics = tracker.forTask(connectorRecord, 0, entry.generation);
 * if (topics?.isNew('orders')) await topics.record(['orders']);
 * ```
 */
import type { ConnectorRecord } from '../../ports/config-store.js';
import type { TopicStore } from '../../ports/connector-meta-store.js';
import { type Logger, silentLogger } from '../../ports/logger.js';

export interface ActiveTopicTrackerOptions {
  /** Connect's worker setting `topic.tracking.enable`: false records nothing. @default true */
  readonly enabled?: boolean;
  /** Where failed writes are logged. @default silentLogger */
  readonly logger?: Logger;
}

/** The active topics of one task incarnation, as this container knows them. */
export class TaskActiveTopics {
  readonly #known = new Set<string>();
  /** Writes under way, so concurrent calls for one topic share one write. */
  readonly #writing = new Map<string, Promise<void>>();

  constructor(
    private readonly store: TopicStore,
    private readonly connector: string,
    private readonly task: number,
    private readonly logger: Logger,
  ) {}

  /** Whether `topic` still has to be recorded by this task (a set lookup). */
  isNew(topic: string): boolean {
    return !this.#known.has(topic);
  }

  /**
   * Records each of `topics` this task has not recorded yet: one conditional write per new
   * topic, none for a known one. Never rejects: a failed write is logged and the topic stays
   * new, so the next call tries it again.
   */
  async record(topics: Iterable<string>): Promise<void> {
    const writes = new Set<Promise<void>>();
    for (const topic of topics) {
      if (this.#known.has(topic)) continue;
      let write = this.#writing.get(topic);
      if (write === undefined) {
        write = this.#write(topic);
        this.#writing.set(topic, write);
      }
      writes.add(write);
    }
    if (writes.size > 0) await Promise.all(writes);
  }

  async #write(topic: string): Promise<void> {
    try {
      await this.store.recordActiveTopic(this.connector, topic);
      this.#known.add(topic);
    } catch (error) {
      this.logger.warn('could not record an active topic; it is tried again later', {
        connector: this.connector,
        task: this.task,
        topic,
        error,
      });
    } finally {
      this.#writing.delete(topic);
    }
  }
}

interface Incarnation {
  readonly id: string;
  readonly topics: TaskActiveTopics;
}

/**
 * The active topics of every task a container (or the local runtime) runs. Build one per
 * container and share it between invocations.
 */
export class ActiveTopicTracker {
  readonly #store: TopicStore;
  readonly #enabled: boolean;
  readonly #logger: Logger;
  readonly #tasks = new Map<string, Incarnation>();

  constructor(store: TopicStore, options: ActiveTopicTrackerOptions = {}) {
    this.#store = store;
    this.#enabled = options.enabled ?? true;
    this.#logger = options.logger ?? silentLogger;
  }

  /**
   * The active topics of task `task` of `connector` at `generation`, or `undefined` when topic
   * tracking is disabled. Another incarnation than the one last seen starts from an empty set.
   */
  forTask(
    connector: Pick<ConnectorRecord, 'name' | 'createdAt'>,
    task: number,
    generation: number,
  ): TaskActiveTopics | undefined {
    if (!this.#enabled) return undefined;
    const key = `${connector.name}\u0000${task}`;
    const id = `${connector.createdAt}/${generation}`;
    const current = this.#tasks.get(key);
    if (current?.id === id) return current.topics;
    const topics = new TaskActiveTopics(this.#store, connector.name, task, this.#logger);
    this.#tasks.set(key, { id, topics });
    return topics;
  }
}
