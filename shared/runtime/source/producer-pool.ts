import type {
  IdempotentProducer,
  KafkaClientFactory,
  ProducerTransaction,
  TransactionalProducer,
} from '../../ports/kafka.js';

/**
 * Transactional producers kept across invocations of a warm container, one per transactional
 * id. `get` initialises a new producer (fencing older ones of the same id); `discard` drops one
 * after fencing or an unknown commit outcome, so the next `get` initialises afresh.
 */
export class ProducerPool {
  readonly #producers = new Map<string, Promise<TransactionalProducer>>();
  #idempotent: Promise<IdempotentProducer> | undefined;

  constructor(private readonly kafka: KafkaClientFactory) {}

  get(transactionalId: string): Promise<TransactionalProducer> {
    let entry = this.#producers.get(transactionalId);
    if (entry === undefined) {
      entry = (async () => {
        const producer = this.kafka.transactionalProducer(transactionalId);
        await producer.connect();
        return producer;
      })();
      entry.catch(() => this.#producers.delete(transactionalId));
      this.#producers.set(transactionalId, entry);
    }
    return entry;
  }

  /** Whether a producer for the id is cached (it was initialised by an earlier invocation). */
  has(transactionalId: string): boolean {
    return this.#producers.has(transactionalId);
  }

  async discard(transactionalId: string): Promise<void> {
    const entry = this.#producers.get(transactionalId);
    this.#producers.delete(transactionalId);
    if (entry) await entry.then((p) => p.close()).catch(() => undefined);
  }

  /** The container's idempotent producer (at-least-once mode), shared by every task. */
  idempotent(): Promise<IdempotentProducer> {
    if (this.#idempotent === undefined) {
      const entry = (async () => {
        const producer = this.kafka.idempotentProducer();
        await producer.connect();
        return producer;
      })();
      entry.catch(() => {
        this.#idempotent = undefined;
      });
      this.#idempotent = entry;
    }
    return this.#idempotent;
  }

  async closeAll(): Promise<void> {
    const ids = [...this.#producers.keys()];
    await Promise.all(ids.map((id) => this.discard(id)));
    const idempotent = this.#idempotent;
    this.#idempotent = undefined;
    if (idempotent) await idempotent.then((p) => p.close()).catch(() => undefined);
  }
}

/**
 * At-least-once mode: the batch protocol of {@link ProducerTransaction} over an idempotent
 * producer. Sends are acknowledged (acks=all) when they return, so offsets recorded after them
 * never run ahead of the records; there is no marker and nothing to commit or abort (a crash
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
