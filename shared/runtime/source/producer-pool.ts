import type {
  AdminOptions,
  IdempotentProducer,
  KafkaAdminPort,
  KafkaClientFactory,
  ProducerOptions,
  ProducerTransaction,
  TransactionalProducer,
} from '../../ports/kafka.js';

/** Admin clients with overrides kept per container; past this, the least recently used is closed. */
const MAX_OVERRIDDEN_ADMINS = 16;

/**
 * Kafka clients kept across invocations of a warm container: transactional producers, one per
 * transactional id; the idempotent producer; and the admin clients of connectors that set
 * `admin.override.*`. `get` initialises a new producer (fencing older ones of the same id);
 * `discard` drops one after fencing or an unknown commit outcome, so the next `get`
 * initialises afresh.
 */
export class ProducerPool {
  readonly #admins = new Map<string, KafkaAdminPort>();
  readonly #producers = new Map<
    string,
    { key: string; producer: Promise<TransactionalProducer> }
  >();
  #idempotent: { key: string; producer: Promise<IdempotentProducer> } | undefined;

  constructor(private readonly kafka: KafkaClientFactory) {}

  /** The producer of `transactionalId` with `options`; a cached one with other options is replaced. */
  async get(
    transactionalId: string,
    options: ProducerOptions = {},
  ): Promise<TransactionalProducer> {
    const key = JSON.stringify(options);
    const cached = this.#producers.get(transactionalId);
    if (cached !== undefined && cached.key === key) return cached.producer;
    if (cached !== undefined) await this.discard(transactionalId);
    const producer = (async () => {
      const created = this.kafka.transactionalProducer(transactionalId, options);
      await created.connect();
      return created;
    })();
    producer.catch(() => {
      if (this.#producers.get(transactionalId)?.producer === producer) {
        this.#producers.delete(transactionalId);
      }
    });
    this.#producers.set(transactionalId, { key, producer });
    return producer;
  }

  /** Whether a producer for the id is cached (it was initialised by an earlier invocation). */
  has(transactionalId: string): boolean {
    return this.#producers.has(transactionalId);
  }

  async discard(transactionalId: string): Promise<void> {
    const entry = this.#producers.get(transactionalId);
    this.#producers.delete(transactionalId);
    if (entry) await entry.producer.then((p) => p.close()).catch(() => undefined);
  }

  /** The container's idempotent producer (at-least-once mode), shared by every task. */
  async idempotent(options: ProducerOptions = {}): Promise<IdempotentProducer> {
    const key = JSON.stringify(options);
    if (this.#idempotent !== undefined && this.#idempotent.key === key) {
      return this.#idempotent.producer;
    }
    const previous = this.#idempotent;
    const producer = (async () => {
      const created = this.kafka.idempotentProducer(options);
      await created.connect();
      return created;
    })();
    producer.catch(() => {
      if (this.#idempotent?.producer === producer) this.#idempotent = undefined;
    });
    this.#idempotent = { key, producer };
    if (previous) await previous.producer.then((p) => p.close()).catch(() => undefined);
    return producer;
  }

  /**
   * The admin client for a connector's `admin.override.*` settings, shared by every connector
   * with the same settings (connectors without overrides use the worker's admin client, not
   * this). Built unconnected on first use, connected by its first call.
   */
  admin(options: AdminOptions): KafkaAdminPort {
    const key = JSON.stringify(options);
    const cached = this.#admins.get(key);
    if (cached !== undefined) {
      this.#admins.delete(key);
      this.#admins.set(key, cached);
      return cached;
    }
    const created = this.kafka.admin(options);
    this.#admins.set(key, created);
    for (const [oldKey, oldest] of this.#admins) {
      if (this.#admins.size <= MAX_OVERRIDDEN_ADMINS) break;
      this.#admins.delete(oldKey);
      void oldest.close().catch(() => undefined);
    }
    return created;
  }

  async closeAll(): Promise<void> {
    const admins = [...this.#admins.values()];
    this.#admins.clear();
    await Promise.all(admins.map((a) => a.close().catch(() => undefined)));
    const ids = [...this.#producers.keys()];
    await Promise.all(ids.map((id) => this.discard(id)));
    const idempotent = this.#idempotent;
    this.#idempotent = undefined;
    if (idempotent) await idempotent.producer.then((p) => p.close()).catch(() => undefined);
  }
}

/**
 * At-least-once mode: the batch protocol of {@link ProducerTransaction} over an idempotent
 * producer. Sends are acknowledged (acks=all) when they return, so offsets recorded after them
 * never run ahead of the records; there is nothing to commit or abort (a crash
 * may repeat the last batch, never lose it).
 */
export function untransacted(producer: IdempotentProducer): ProducerTransaction {
  return {
    send: (records) => producer.send(records),
    sendOffsets: async () => {},
    commit: async () => {},
    abort: async () => {},
  };
}
