import { randomUUID } from 'node:crypto';
import { LOCAL_FUNCTION_MEMORY_MB } from '../../local/esm/lambda-context.js';
import type { Engine } from '../../shared/engine/engine.js';
import { enumerate } from '../../shared/engine/enumerate.js';
import type { SourceTaskInvocation, SourceTaskInvoker } from '../../shared/ports/dispatch.js';
import type { Metering } from '../../shared/runtime/metering/metering.js';
import {
  runSourceInvocation,
  type SourceRunResult,
} from '../../shared/runtime/source/source-task-runner.js';
import type { SimulatedClock } from './simulated-clock.js';

/** An invoker that queues the enumerator's dispatches for {@link runSchedule} to run. */
export function queueInvoker(): { invoker: SourceTaskInvoker; queue: SourceTaskInvocation[] } {
  const queue: SourceTaskInvocation[] = [];
  return {
    queue,
    invoker: {
      invoke: async (invocation) => {
        queue.push(invocation);
      },
    },
  };
}

/** One source invocation the schedule ran: when (simulated), what it was sent, what it did. */
export interface ScheduledInvocation {
  readonly at: number;
  /** Its duration on the simulated clock (what the metering bills, less its own write). */
  readonly ms: number;
  readonly invocation: SourceTaskInvocation;
  readonly result: SourceRunResult;
}

export interface ScheduleOptions {
  readonly engine: Engine;
  readonly clock: SimulatedClock;
  /** Where the engine's invoker queued dispatches ({@link queueInvoker}). */
  readonly queue: SourceTaskInvocation[];
  /** The schedule's period (EventBridge's rate). */
  readonly periodMs: number;
  /** How many scheduled runs. */
  readonly ticks: number;
  /** A source invocation's time budget. @default 60 s */
  readonly budgetMs?: number;
  /** Called before each scheduled run (e.g. to report progress). */
  readonly beforeTick?: (tick: number, at: number) => void | Promise<void>;
  /**
   * The metering of each function's container (a Lambda function's containers are its own).
   * @default the engine's, for both
   */
  readonly metering?: (fn: 'enumerator' | 'source-task') => Metering;
  /**
   * Called after each scheduled run and the source invocations it dispatched, with those
   * invocations (e.g. to run what else the deployment does in that minute).
   */
  readonly afterTick?: (tick: number, ran: readonly ScheduledInvocation[]) => Promise<void>;
}

/**
 * The schedule of a deployment on a simulated clock: every `periodMs` one enumerator run over
 * every connector (`enumerate`, as the enumerator function runs it), then each source invocation
 * it dispatched (`runSourceInvocation`, as the source-task function runs it, on the engine's
 * producers: a warm container), one after the other; each metered by its function's metering as
 * the function's invocation (functions/_middleware/metering.ts), at the functions' default memory.
 * The time between runs is skipped.
 */
export async function runSchedule(options: ScheduleOptions): Promise<ScheduledInvocation[]> {
  const { engine, clock, queue, periodMs } = options;
  const budgetMs = options.budgetMs ?? 60_000;
  const meteringOf = options.metering ?? (() => engine.metering);
  const ran: ScheduledInvocation[] = [];
  const start = clock.now();
  for (let tick = 0; tick < options.ticks; tick += 1) {
    clock.advanceTo(start + tick * periodMs);
    await options.beforeTick?.(tick, clock.now());
    await meteringOf('enumerator').run(
      { function: 'enumerator', memoryMb: LOCAL_FUNCTION_MEMORY_MB.enumerator },
      () => enumerate(engine, { kind: 'all' }),
    );
    const ranThisTick: ScheduledInvocation[] = [];
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const invocation = next;
      const at = clock.now();
      let ms = 0;
      const result = await meteringOf('source-task').run(
        { function: 'source-task', memoryMb: LOCAL_FUNCTION_MEMORY_MB['source-task'] },
        async () => {
          const outcome = await runSourceInvocation(engine.source, {
            ...invocation,
            owner: randomUUID(),
            workerId: 'simulated',
            deadline: clock.now() + budgetMs,
          });
          ms = clock.now() - at;
          return outcome;
        },
      );
      ranThisTick.push({ at, ms, invocation, result });
    }
    ran.push(...ranThisTick);
    await options.afterTick?.(tick, ranThisTick);
  }
  return ran;
}
