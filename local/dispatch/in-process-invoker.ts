import { randomUUID } from 'node:crypto';
import type { SourceTaskInvocation, SourceTaskInvoker } from '../../shared/ports/dispatch.js';
import type { KafkaClientFactory } from '../../shared/ports/kafka.js';
import type { Logger } from '../../shared/ports/logger.js';
import { ProducerPool } from '../../shared/runtime/source/producer-pool.js';
import {
  runSourceInvocation,
  type SourceRunResult,
  type SourceRuntimeDeps,
} from '../../shared/runtime/source/source-task-runner.js';

export interface InProcessInvokerOptions {
  /** How long one invocation may run (Lambda's remaining time minus the safety margin). */
  readonly budgetMs: number;
  readonly logger: Logger;
  /** Called with each ended invocation (tests and the local runtime's console). */
  readonly onResult?: (invocation: SourceTaskInvocation, result: SourceRunResult) => void;
}

/**
 * Runs source-task invocations in this process, as the local runtime's stand-in for Lambda's
 * asynchronous Invoke: `invoke` returns at once and the invocation runs in the background with
 * its own owner id and deadline, exactly as the source-task function would.
 */
export class InProcessSourceInvoker implements SourceTaskInvoker {
  readonly #running = new Set<Promise<void>>();

  constructor(
    private readonly deps: Omit<SourceRuntimeDeps, 'producers'>,
    private readonly kafka: KafkaClientFactory,
    private readonly options: InProcessInvokerOptions,
  ) {}

  async invoke(invocation: SourceTaskInvocation): Promise<void> {
    // Like a Lambda container, each invocation has its producers to itself: two invocations of
    // one task (an old generation being fenced, a new one starting) never share a producer.
    const producers = new ProducerPool(this.kafka);
    const run = runSourceInvocation(
      { ...this.deps, producers },
      {
        ...invocation,
        owner: randomUUID(),
        workerId: `local-${invocation.connector}-${invocation.task}`,
        deadline: Date.now() + this.options.budgetMs,
      },
    )
      .then((result) => {
        this.options.onResult?.(invocation, result);
        if (result.error !== undefined) {
          this.options.logger.warn('source task invocation ended with an error', {
            ...invocation,
            outcome: result.outcome,
            error: result.error.message,
          });
        }
      })
      .catch((error: unknown) => {
        this.options.logger.error('source task invocation crashed', {
          ...invocation,
          error: error instanceof Error ? error.message : String(error),
        });
      })
      .finally(async () => {
        await producers.closeAll().catch(() => undefined);
        this.#running.delete(run);
      });
    this.#running.add(run);
  }

  /** Invocations still running. */
  get running(): number {
    return this.#running.size;
  }

  /** Waits until every invocation started so far (and any they started) has ended. */
  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }
}
