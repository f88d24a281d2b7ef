import type { Clock } from '../../../shared/ports/clock.js';
import type { StateStore } from '../../../shared/ports/state-store.js';

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  #now: number;

  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  advance(ms: number): void {
    this.#now += ms;
  }
}

/** A fresh, empty store driven by `clock`, and a way to count its raw items. */
export interface StateStoreHarness {
  readonly store: StateStore;
  readonly clock: ManualClock;
  /** How many stored items belong to the connector (DynamoDB items of its partition). */
  countItems(connector: string): Promise<number>;
}

/** Builds a fresh, isolated harness for each test. */
export type StateStoreFactory = () => Promise<StateStoreHarness>;
