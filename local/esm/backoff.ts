/** How long to wait before redelivering a batch whose invocation failed. */
export interface BackoffSettings {
  /** Delay before the first redelivery, in ms. */
  readonly initialMs: number;
  /** Longest delay between two deliveries, in ms. */
  readonly maxMs: number;
}

/** The stand-in's default: 200 ms, doubling up to 10 s. */
export const DEFAULT_BACKOFF: BackoffSettings = { initialMs: 200, maxMs: 10_000 };

/**
 * The delay before redelivery number `attempt + 1` (attempt 0 is the first failure): the
 * exponential step `initialMs * 2^attempt`, capped at `maxMs`, with "equal jitter" (half
 * fixed, half random) so that several failing mappings do not retry in lockstep.
 *
 * @param random a number in [0, 1) (injected so that tests are deterministic)
 * @example
 * ```ts
 * retryDelayMs(0, DEFAULT_BACKOFF, Math.random); // 100..200
 * retryDelayMs(10, DEFAULT_BACKOFF, Math.random); // 5000..10000
 * ```
 */
export function retryDelayMs(
  attempt: number,
  settings: BackoffSettings,
  random: () => number,
): number {
  const step = Math.min(settings.maxMs, settings.initialMs * 2 ** Math.min(attempt, 30));
  const half = step / 2;
  return Math.round(half + random() * half);
}
