import type { RetryOptions } from 'kafkajs';
import { isCoordinatorAnswer } from './errors.js';

/** Waits `ms` milliseconds. */
export type Sleep = (ms: number) => Promise<void>;

const sleepFor: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `call` again while it fails with a coordinator answer (loading, not available, not the
 * coordinator: `isCoordinatorAnswer`), waiting as kafkajs' retrier does: `initialRetryTime`, then
 * `multiplier` times longer each time up to `maxRetryTime`, at most `retries` times (without
 * kafkajs' random jitter). Any other error, or the last coordinator answer, is thrown as is.
 *
 * For the admin requests kafkajs sends once to the group coordinator it found (OffsetFetch,
 * OffsetCommit): each call looks the coordinator up again. Only for requests that change nothing
 * when repeated.
 *
 * @example
 * const offsets = await retryWhileCoordinatorMoves(() => admin.fetchOffsets({ groupId, topics }), retry);
 */
export async function retryWhileCoordinatorMoves<T>(
  call: () => Promise<T>,
  policy: RetryOptions,
  sleep: Sleep = sleepFor,
): Promise<T> {
  const retries = policy.retries ?? 5;
  const maxWait = policy.maxRetryTime ?? 30_000;
  const multiplier = policy.multiplier ?? 2;
  let wait = Math.min(policy.initialRetryTime ?? 300, maxWait);
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= retries || !isCoordinatorAnswer(error)) throw error;
    }
    await sleep(wait);
    wait = Math.min(wait * multiplier, maxWait);
  }
}
