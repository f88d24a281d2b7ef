import type { Clock } from '../../shared/ports/clock.js';

/**
 * Real time plus time skipped: `now()` moves with the wall clock while code runs (so the real
 * I/O of an invocation, against dynalite and the broker, takes the time it takes) and jumps
 * forward when a waiter sleeps or the driver skips to the next schedule tick. Given to the engine
 * as its clock and its `sleep`, and to the state store, it runs a day of schedule ticks and idle
 * waits in minutes, through the same code, with durations the metering can bill.
 */
export class SimulatedClock implements Clock {
  #skipped = 0;

  now(): number {
    return Date.now() + this.#skipped;
  }

  /** Skips `ms` ahead (nothing when `ms` is not positive). */
  advance(ms: number): void {
    if (ms > 0) this.#skipped += ms;
  }

  /** Skips ahead to `at`, if it is later. */
  advanceTo(at: number): void {
    this.advance(at - this.now());
  }

  /** The engine's sleep: the time passes at once (after a turn of the event loop). */
  readonly sleep = async (ms: number): Promise<void> => {
    this.advance(ms);
    await new Promise<void>((resolve) => setImmediate(resolve));
  };
}
