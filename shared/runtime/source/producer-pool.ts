import type { KafkaClientFactory, TransactionalProducer } from '../../ports/kafka.js';

/**
 * Transactional producers kept across invocations of a warm container, one per transactional
 * id. `get` initialises a new producer (fencing older ones of the same id); `discard` drops one
 * after fencing or an unknown commit outcome, so the next `get` initialises afresh.
 */
export class ProducerPool {
  readonly #producers = new Map<string, Promise<TransactionalProducer>>();

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

  async closeAll(): Promise<void> {
    const ids = [...this.#producers.keys()];
    await Promise.all(ids.map((id) => this.discard(id)));
  }
}
