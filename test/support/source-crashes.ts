/**
 * Source task invocations that crash, as the crash campaigns play them: each invocation runs in a
 * warm or a cold container (an engine, as a Lambda container builds it, with its producers) and
 * dies, with some chance, at a random step of the exactly-once protocol (a `SourceCheckpoint`),
 * on a random visit of it. A dead invocation does nothing more: no abort, no task `stop()`, no
 * lease release; its container goes with it and its lease expires (the clock jumps).
 */
import type { SourceConnector } from '../../shared/connect/source.js';
import {
  createEngine,
  DEFAULT_ENGINE_SETTINGS,
  type Engine,
  type EnginePorts,
} from '../../shared/engine/engine.js';
import type { Clock } from '../../shared/ports/clock.js';
import {
  AbandonedInvocation,
  runSourceInvocation,
  type SourceRunResult,
  type SourceRuntimeSettings,
} from '../../shared/runtime/source/source-task-runner.js';
import type { SourceCheckpoint } from '../../shared/runtime/source/source-transaction.js';

/** Where an invocation can die: every step of the source transaction protocol. */
export const SOURCE_CHECKPOINTS: readonly SourceCheckpoint[] = [
  'before-send',
  'after-send',
  'after-pending',
  'after-commit',
  'after-promote',
];

/** How long a dead holder's lease is left to expire: the clock jumps this far after a crash. */
const LEASE_EXPIRY_JUMP_MS = 120_000;

/** The wall clock plus a skew the campaign moves forward (leases of dead invocations expire). */
export interface SkewedClock extends Clock {
  skew: number;
}

export function skewedClock(): SkewedClock {
  const clock = { skew: 0, now: () => Date.now() + clock.skew };
  return clock;
}

export interface CrashingSourceOptions {
  /** The state store and Kafka clients every container's engine is built over. */
  readonly ports: Pick<EnginePorts, 'store' | 'kafka'>;
  /** The clock of the store's leases too (a crash moves it on). */
  readonly clock: SkewedClock;
  readonly random: () => number;
  /** The connector and the generation of its task 0's config. */
  readonly connector: string;
  readonly generation: number;
  /** Each invocation's time budget (ms). */
  readonly budgetMs: number;
  readonly source?: Partial<SourceRuntimeSettings>;
  /**
   * Called after a crash, before the next invocation: what the dead container's end closes
   * besides its engine (a Lambda's sockets closing with it).
   */
  readonly afterCrash?: () => Promise<void>;
}

/**
 * Stores `config` as a connector, with the task configs its connector class gives for one task
 * (as the enumerator would); returns task 0's generation.
 */
export async function storeSourceConnector(
  ports: Pick<EnginePorts, 'store' | 'kafka'>,
  config: Readonly<Record<string, string>> & { readonly name: string },
): Promise<number> {
  const engine = createEngine(ports, DEFAULT_ENGINE_SETTINGS);
  try {
    await ports.store.configs.createConnector(config.name, config);
    const className = config['connector.class'] ?? '';
    const connector = engine.plugins.resolve(className, 'source').create() as SourceConnector;
    await connector.start(config, { requestTaskReconfiguration: () => {}, raiseError: () => {} });
    const tasks = await connector.taskConfigs(1);
    await connector.stop();
    const set = await ports.store.configs.putTaskConfigs(config.name, tasks, 0);
    return set.tasks[0]?.generation ?? 0;
  } finally {
    await engine.close();
  }
}

/** What one randomized invocation did. */
export type CrashingOutcome =
  | { readonly crashed: true; readonly at: string }
  | { readonly crashed: false; readonly result: SourceRunResult };

/** Task 0 of a source connector, invoked again and again; see the module notes. */
export class CrashingSource {
  crashes = 0;
  invocations = 0;
  /** Crashes by protocol step. */
  readonly crashPoints = new Map<SourceCheckpoint, number>();
  readonly #options: CrashingSourceOptions;
  /** The crash plan of the invocation under way: called at each protocol step. */
  #crashPlan: (point: SourceCheckpoint) => Promise<void> = async () => {};
  #warm: Engine;

  constructor(options: CrashingSourceOptions) {
    this.#options = options;
    this.#warm = this.#container();
  }

  /** The warm container's engine (to create topics, read plugins). */
  get engine(): Engine {
    return this.#warm;
  }

  /** A Lambda container: an engine over the campaign's state and broker. */
  #container(): Engine {
    const { ports, clock, source } = this.#options;
    return createEngine(
      { ...ports, clock, checkpoint: (point) => this.#crashPlan(point) },
      { ...DEFAULT_ENGINE_SETTINGS, ...(source === undefined ? {} : { source }) },
    );
  }

  /** The warm container goes (it died, or Lambda recycled it): the next one starts cold. */
  async #recycle(): Promise<void> {
    await this.#warm.close();
    this.#warm = this.#container();
  }

  #run(plan: (point: SourceCheckpoint) => Promise<void>): Promise<SourceRunResult> {
    const { connector, generation, clock, budgetMs } = this.#options;
    this.#crashPlan = plan;
    this.invocations += 1;
    return runSourceInvocation(this.#warm.source, {
      connector,
      task: 0,
      generation,
      owner: `inv-${this.invocations}`,
      workerId: 'campaign',
      deadline: clock.now() + budgetMs,
    });
  }

  /**
   * One invocation, in a cold container three times in ten; three in four crash at a random
   * protocol step, on one of its first four visits (so some crash before they reach it and end
   * normally).
   */
  async invoke(): Promise<CrashingOutcome> {
    const next = this.#options.random;
    if (next() < 0.3) await this.#recycle();
    const point =
      next() < 0.25
        ? undefined
        : SOURCE_CHECKPOINTS[Math.floor(next() * SOURCE_CHECKPOINTS.length)];
    const visit = 1 + Math.floor(next() * 4);
    let visits = 0;
    try {
      const result = await this.#run(async (p) => {
        if (p === point && ++visits === visit) throw new Error(`crash at ${p} #${visit}`);
      });
      return { crashed: false, result };
    } catch (error) {
      if (!(error instanceof AbandonedInvocation)) throw error;
      this.crashes += 1;
      if (point !== undefined) this.crashPoints.set(point, (this.crashPoints.get(point) ?? 0) + 1);
      this.#options.clock.skew += LEASE_EXPIRY_JUMP_MS;
      await this.#recycle();
      await this.#options.afterCrash?.();
      return { crashed: true, at: `${point} #${visit}` };
    }
  }

  /** One invocation that does not crash. */
  clean(): Promise<SourceRunResult> {
    return this.#run(async () => {});
  }

  /**
   * A clean invocation that settles whatever the last crash left; a retriable interruption (an
   * undecided transaction under load) is retried, as the next dispatch would.
   * @throws Error unless one completes
   */
  async settle(): Promise<SourceRunResult> {
    let last = await this.clean();
    for (let retry = 0; last.outcome === 'interrupted' && retry < 3; retry += 1) {
      last = await this.clean();
    }
    if (last.outcome !== 'completed') {
      throw new Error(`final invocation ended ${last.outcome}: ${last.error?.message ?? ''}`);
    }
    return last;
  }

  async close(): Promise<void> {
    await this.#warm.close();
  }
}
