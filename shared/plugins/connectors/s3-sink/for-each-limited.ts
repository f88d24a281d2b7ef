import type { ConnectError } from 'serverless-connect/connect';

/**
 * Runs `work` over `items`, at most `limit` at a time, starting no new item after a failure;
 * rejects with the worst failure: a non-retriable one (access denied: the task must fail) wins
 * over a retriable one.
 */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const worker = async () => {
    while (next < items.length && failures.length === 0) {
      const item = items[next++] as T;
      await work(item).catch((error: unknown) => {
        failures.push(error);
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  const fatal = failures.find((e) => !(e as Partial<ConnectError>).retriable);
  if (failures.length > 0) throw fatal ?? failures[0];
}
