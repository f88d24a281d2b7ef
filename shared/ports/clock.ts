/**
 * The time source of the state store and the runtime: milliseconds since the Unix epoch.
 * Injected everywhere a decision depends on time (lease expiry, timestamps), so tests move
 * time by hand instead of sleeping. Nothing in `shared/` reads `Date.now()` except
 * {@link systemClock}.
 *
 * @example
 * ```ts
 * const store = createMemoryStateStore({ clock: systemClock });
 * ```
 */
export interface Clock {
  /** The current time in epoch milliseconds. Successive calls never go backwards on one clock. */
  now(): number;
}

/** The wall clock. The only place in `shared/` that reads `Date.now()`. */
export const systemClock: Clock = { now: () => Date.now() };
