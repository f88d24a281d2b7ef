import type {
  KafkaClientFactory,
  ProducerTransaction,
  TransactionalProducer,
} from '../shared/ports/kafka.js';
import { percentile, saveResult } from './harness.js';

/**
 * Where a benchmark's time goes: durations of named steps (a task's poll, a Kafka send, a state
 * write…), recorded by the wrappers around what ours calls, then printed as p50/p99/total.
 */
export class Timings {
  readonly #steps = new Map<string, number[]>();

  record(step: string, ms: number): void {
    const list = this.#steps.get(step) ?? [];
    list.push(ms);
    this.#steps.set(step, list);
  }

  async time<T>(step: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.record(step, performance.now() - started);
    }
  }

  clear(): void {
    this.#steps.clear();
  }

  /** Prints p50/p99/total per step and saves `<name>-steps.json`. */
  async report(name: string): Promise<void> {
    const steps = [...this.#steps].map(([step, ms]) => ({
      step,
      count: ms.length,
      p50: Number(percentile(ms, 50).toFixed(2)),
      p99: Number(percentile(ms, 99).toFixed(2)),
      totalMs: Math.round(ms.reduce((a, b) => a + b, 0)),
    }));
    for (const { step, count, p50, p99, totalMs } of steps) {
      console.log(
        `${name}: ${step.padEnd(22)} p50=${p50}ms p99=${p99}ms total=${totalMs}ms (n=${count})`,
      );
    }
    await saveResult(`${name}-steps`, steps);
  }
}

/** `inner`, timing its transactional producers' initialisation and every transaction step. */
export function timedKafkaFactory(inner: KafkaClientFactory, timings: Timings): KafkaClientFactory {
  const wrapTx = (tx: ProducerTransaction): ProducerTransaction => ({
    send: (records) => timings.time('kafka send', () => tx.send(records)),
    sendOffsets: (group, offsets) =>
      timings.time('kafka sendOffsets', () => tx.sendOffsets(group, offsets)),
    commit: () => timings.time('kafka commit', () => tx.commit()),
    abort: () => tx.abort(),
  });
  return {
    idempotentProducer: (options) => inner.idempotentProducer(options),
    admin: (options) => inner.admin(options),
    transactionalProducer: (id, options): TransactionalProducer => {
      const producer = inner.transactionalProducer(id, options);
      return {
        transactionalId: producer.transactionalId,
        connect: () => timings.time('kafka producer init', () => producer.connect()),
        begin: async () => wrapTx(await timings.time('kafka begin', () => producer.begin())),
        close: () => producer.close(),
      };
    },
  };
}

/**
 * `target` with the methods `steps` names timed under their step names; every other member
 * as it is (methods bound to `target`: private fields need the real `this`).
 */
export function timedMethods<T extends object>(
  target: T,
  steps: Readonly<Partial<Record<keyof T & string, string>>>,
  timings: Timings,
): T {
  return new Proxy(target, {
    get: (inner, prop) => {
      const value: unknown = Reflect.get(inner, prop, inner);
      if (typeof value !== 'function') return value;
      const step = typeof prop === 'string' ? steps[prop as keyof T & string] : undefined;
      if (step === undefined) return value.bind(inner);
      return (...args: unknown[]) => timings.time(step, () => value.apply(inner, args));
    },
  });
}
