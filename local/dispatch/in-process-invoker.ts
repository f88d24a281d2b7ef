import { SAFETY_MARGIN_MS } from '../../functions/_middleware/invocation.js';
import {
  type SourceTaskResult,
  type SourceTaskServices,
  sourceTaskHandler,
} from '../../functions/source-task/handler.js';
import type { SourceTaskInvocation, SourceTaskInvoker } from '../../shared/ports/dispatch.js';
import type { KafkaClientFactory } from '../../shared/ports/kafka.js';
import type { Logger } from '../../shared/ports/logger.js';
import { ProducerPool } from '../../shared/runtime/source/producer-pool.js';
import { localLambdaContext } from '../esm/lambda-context.js';

export interface InProcessInvokerOptions {
  /** How long one invocation may work (Lambda's remaining time minus the safety margin). */
  readonly budgetMs: number;
  readonly logger: Logger;
  /** Called with each ended invocation (tests and the local runtime's console). */
  readonly onResult?: (invocation: SourceTaskInvocation, result: SourceTaskResult) => void;
}

/**
 * Runs source-task invocations in this process, as the local runtime's stand-in for Lambda's
 * asynchronous Invoke: `invoke` returns at once and the source-task function's own handler
 * (functions/source-task) runs in the background with the event the enumerator sends and a
 * Lambda context whose remaining time is the budget plus the handler's safety margin.
 *
 * Like a Lambda container, each invocation has its producers to itself: two invocations of one
 * task (an old generation being fenced, a new one starting) never share a producer.
 * `services(producers)` gives the handler the source runtime over those producers.
 */
export class InProcessSourceInvoker implements SourceTaskInvoker {
  readonly #running = new Set<Promise<void>>();

  constructor(
    private readonly services: (producers: ProducerPool) => SourceTaskServices,
    private readonly kafka: () => KafkaClientFactory,
    private readonly options: InProcessInvokerOptions,
  ) {}

  async invoke(invocation: SourceTaskInvocation): Promise<void> {
    const producers = new ProducerPool(this.kafka());
    const handler = sourceTaskHandler(() => this.services(producers));
    const context = localLambdaContext({
      functionName: 'source-task',
      timeoutMs: this.options.budgetMs + SAFETY_MARGIN_MS,
    });
    const run = handler(invocation, context)
      .then((result) => {
        this.options.onResult?.(invocation, result);
        if (result.error !== undefined) {
          this.options.logger.warn('source task invocation ended with an error', {
            ...invocation,
            outcome: result.outcome,
            error: result.error,
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
