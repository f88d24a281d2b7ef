import type { ReconcileTrigger } from '../../shared/ports/dispatch.js';
import type { Logger } from '../../shared/ports/logger.js';
import type { ConnectorReport } from '../../shared/runtime/enumerator/enumerator.js';

/**
 * What the reconciler drives: the enumerator function's handler (local/runtime/start.ts), or the
 * `Enumerator` itself. Each run logs its own line.
 */
export interface Reconciles {
  reconcile(connector: string): Promise<ConnectorReport>;
  reconcileAll(): Promise<ConnectorReport[]>;
}

export interface LocalReconcilerOptions {
  /** A full run (every connector) this often, as EventBridge's schedule does in AWS. */
  readonly intervalMs: number;
  /** Nudges within this window are reconciled together in one run. */
  readonly debounceMs: number;
  readonly logger: Logger;
}

/**
 * The local stand-in for both enumerator triggers: the schedule (a full run every
 * `intervalMs`) and the REST API's nudges (the `ReconcileTrigger` the control plane is given),
 * calling the enumerator in this process instead of through Lambda `Invoke`.
 *
 * Nudges are debounced and coalesced: the connectors nudged while a run is pending or running
 * are reconciled by the next run, and runs never overlap (the enumerator tolerates concurrent
 * runs, but one at a time keeps the local logs readable). A run that fails is logged; the next
 * nudge or the schedule tries again.
 *
 * @example
 * ```ts
 * const reconciler = new LocalReconciler(enumerator, { intervalMs: 10_000, debounceMs: 50, logger });
 * reconciler.start();
 * const service = new ConnectService({ store, plugins, reconcile: reconciler, clock, logger }, options);
 * // ...
 * await reconciler.close();
 * ```
 */
export class LocalReconciler implements ReconcileTrigger {
  readonly #target: Reconciles;
  readonly #options: LocalReconcilerOptions;
  readonly #pending = new Set<string>();
  #all = false;
  #debounce: NodeJS.Timeout | undefined;
  #schedule: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #closed = false;
  #runs = 0;

  constructor(target: Reconciles, options: LocalReconcilerOptions) {
    this.#target = target;
    this.#options = options;
  }

  /** Runs completed so far (for tests and the console). */
  get runs(): number {
    return this.#runs;
  }

  /** Queues a run for `connector` (every connector when omitted). Resolves at once. */
  async nudge(connector?: string): Promise<void> {
    if (this.#closed) return;
    if (connector === undefined) this.#all = true;
    else this.#pending.add(connector);
    if (this.#debounce !== undefined) return;
    this.#debounce = setTimeout(() => {
      this.#debounce = undefined;
      this.#kick();
    }, this.#options.debounceMs);
    this.#debounce.unref();
  }

  /** Starts the schedule. */
  start(): void {
    if (this.#closed || this.#schedule !== undefined) return;
    this.#schedule = setInterval(() => {
      void this.nudge();
    }, this.#options.intervalMs);
    this.#schedule.unref();
  }

  /** Reconciles every connector now and resolves when that run (and any queued) has ended. */
  async runNow(): Promise<void> {
    if (this.#closed) return;
    this.#all = true;
    this.#kick();
    await this.whenIdle();
  }

  /** Resolves once no run is running or queued. */
  async whenIdle(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  /** Stops the schedule and the nudges, then waits for the run in progress. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#debounce);
    clearInterval(this.#schedule);
    this.#debounce = undefined;
    this.#schedule = undefined;
    await this.whenIdle();
  }

  #kick(): void {
    if (this.#running !== undefined || this.#closed) return;
    this.#running = this.#loop().finally(() => {
      this.#running = undefined;
      if (this.#all || this.#pending.size > 0) this.#kick();
    });
  }

  async #loop(): Promise<void> {
    while (!this.#closed && (this.#all || this.#pending.size > 0)) {
      const all = this.#all;
      const names = [...this.#pending];
      this.#all = false;
      this.#pending.clear();
      try {
        await (all
          ? this.#target.reconcileAll()
          : Promise.all(names.map((name) => this.#target.reconcile(name))));
      } catch (error) {
        this.#options.logger.warn('enumerator run failed; the next run retries', {
          connectors: all ? 'all' : names,
          error,
        });
      }
      this.#runs += 1;
    }
  }
}
