/**
 * The sink task instances a warm container keeps across invocations, one per connector task,
 * with calls on each serialised (a task's `put` calls never overlap, even when two mappings of
 * the connector invoke the same container at once, as the local runtime may).
 */
import { isRetriable } from '../../connect/errors.js';
import type { TaskRef } from '../../ports/lease-store.js';
import { type Logger, silentLogger } from '../../ports/logger.js';
import { type StartedSinkTask, stopSinkTask } from './sink-task-start.js';

const keyOf = (ref: TaskRef) => `${ref.connector}\u0000${ref.task}`;

export interface SinkTaskCacheOptions {
  /** Where failures to close or stop a task are logged. @default silentLogger */
  readonly logger?: Logger;
}

/**
 * Started sink tasks by connector task.
 *
 * - {@link use} runs `work` on the instance whose identity (connector config version and task
 *   generation) is `identity`, starting one first when there is none or the cached one has
 *   another identity (that one is stopped first).
 * - When `work` (or the start) throws a non-retriable error, the instance is stopped and
 *   forgotten: a failed task is restarted from scratch after a restart request.
 * - {@link closeAll} stops every instance (the local runtime calls it on shutdown).
 */
export class SinkTaskCache {
  readonly #entries = new Map<string, StartedSinkTask>();
  readonly #locks = new Map<string, Promise<unknown>>();
  readonly #stop: (started: StartedSinkTask) => Promise<void>;

  constructor(options: SinkTaskCacheOptions = {}) {
    const logger = options.logger ?? silentLogger;
    this.#stop = (started) => stopSinkTask(started, logger);
  }

  /** The number of started instances (for tests and logs). */
  get size(): number {
    return this.#entries.size;
  }

  /** The cached instance of `ref`, if any. */
  peek(ref: TaskRef): StartedSinkTask | undefined {
    return this.#entries.get(keyOf(ref));
  }

  async use<R>(
    ref: TaskRef,
    identity: string,
    start: () => Promise<StartedSinkTask>,
    work: (started: StartedSinkTask) => Promise<R>,
  ): Promise<R> {
    const key = keyOf(ref);
    return this.#exclusive(key, async () => {
      let started = this.#entries.get(key);
      if (started !== undefined && started.identity !== identity) {
        this.#entries.delete(key);
        await this.#stop(started);
        started = undefined;
      }
      if (started === undefined) {
        started = await start();
        this.#entries.set(key, started);
      }
      try {
        return await work(started);
      } catch (error) {
        if (!isRetriable(error)) {
          this.#entries.delete(key);
          await this.#stop(started);
        }
        throw error;
      }
    });
  }

  /** Stops and forgets the instance of `ref` (its task failed elsewhere, or was removed). */
  async evict(ref: TaskRef): Promise<void> {
    const key = keyOf(ref);
    await this.#exclusive(key, async () => {
      const started = this.#entries.get(key);
      this.#entries.delete(key);
      if (started !== undefined) await this.#stop(started);
    });
  }

  /** Stops every instance of `connector` whose task is not in `keep`. */
  async retain(connector: string, keep: ReadonlySet<number>): Promise<void> {
    const gone = [...this.#entries.values()].filter(
      (s) => s.ref.connector === connector && !keep.has(s.ref.task),
    );
    await Promise.all(gone.map((s) => this.evict(s.ref)));
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((s) => this.evict(s.ref)));
  }

  async #exclusive<R>(key: string, fn: () => Promise<R>): Promise<R> {
    const previous = this.#locks.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.#locks.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.#locks.get(key) === tail) this.#locks.delete(key);
    }
  }
}
