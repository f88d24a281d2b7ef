import { describe, expect, it } from 'vitest';
import type { TaskRetryAttempt } from '../../../shared/ports/status-store.js';
import { seedConnector } from './fixtures.js';
import type { StateStoreFactory } from './harness.js';

const ref = { connector: 'c', task: 0 };

/** A failed attempt at a batch of `partitions`, begun at `startedAt`. */
const attempt = (
  startedAt: number,
  partitions: string[] = ['orders-0'],
  trace = 'RetriableError: throttled',
): TaskRetryAttempt => ({ workerId: 'fn-1', trace, partitions, startedAt });

export function taskRetryContract(factory: StateStoreFactory): void {
  describe('sink task retry runs', () => {
    it('counts failed attempts from the first one on, keeping the task RUNNING with the last trace', async () => {
      // Prepare
      const { store, clock } = await factory();
      await seedConnector(store, 'c');
      const first = clock.now() - 500;
      // Act
      await store.status.recordTaskRetry(ref, attempt(first));
      clock.advance(1_000);
      const second = await store.status.recordTaskRetry(
        ref,
        attempt(clock.now(), ['orders-1', 'orders-0'], 'RetriableError: still throttled'),
      );
      // Assess
      expect(second.counted).toBe(true);
      const status = await store.status.getTaskStatus(ref);
      expect(status).toMatchObject({
        state: 'RUNNING',
        workerId: 'fn-1',
        trace: 'RetriableError: still throttled',
        retry: { partitions: ['orders-0', 'orders-1'], since: first, attempts: 2 },
      });
      expect(second.status).toEqual(status);
      const snapshot = await store.status.getSinkSnapshot('c', [{ topic: 'orders', partition: 0 }]);
      expect(snapshot?.taskStatuses).toEqual([status]);
    });

    it('leaves a run of other partitions and a FAILED task as they are', async () => {
      // Prepare
      const { store, clock } = await factory();
      await seedConnector(store, 'c');
      await store.status.recordTaskRetry(ref, attempt(clock.now()));
      const failedRef = { connector: 'c', task: 1 };
      await store.status.putTaskStatus(failedRef, { state: 'FAILED', workerId: 'w', trace: 'x' });
      // Act
      const other = await store.status.recordTaskRetry(ref, attempt(clock.now(), ['orders-1']));
      const failed = await store.status.recordTaskRetry(failedRef, attempt(clock.now()));
      // Assess
      expect(other.counted).toBe(false);
      expect(other.status?.retry).toEqual({
        partitions: ['orders-0'],
        since: clock.now(),
        attempts: 1,
      });
      expect(failed).toEqual({
        counted: false,
        status: await store.status.getTaskStatus(failedRef),
      });
      expect(failed.status).toMatchObject({ state: 'FAILED', trace: 'x' });
      expect(failed.status).not.toHaveProperty('retry');
    });

    it('ends a run when a batch sharing one of its partitions is written, and not otherwise', async () => {
      // Prepare
      const { store, clock } = await factory();
      await seedConnector(store, 'c');
      await store.status.recordTaskRetry(ref, attempt(clock.now(), ['orders-0', 'orders-1']));
      // Act
      const unrelated = await store.status.endTaskRetry(ref, ['orders-2'], 'fn-2');
      const ended = await store.status.endTaskRetry(ref, ['orders-1'], 'fn-2');
      const again = await store.status.endTaskRetry(ref, ['orders-1'], 'fn-2');
      // Assess
      expect([unrelated, ended, again]).toEqual([false, true, false]);
      const status = await store.status.getTaskStatus(ref);
      expect(status).toMatchObject({ state: 'RUNNING', workerId: 'fn-2' });
      expect(status).not.toHaveProperty('trace');
      expect(status).not.toHaveProperty('retry');
    });

    it('ends a run with any status write, so a restarted task counts afresh', async () => {
      // Prepare
      const { store, clock } = await factory();
      await seedConnector(store, 'c');
      await store.status.recordTaskRetry(ref, attempt(clock.now()));
      // Act
      await store.status.putTaskStatus(ref, { state: 'RESTARTING', workerId: 'enumerator' });
      clock.advance(60_000);
      await store.status.recordTaskRetry(ref, attempt(clock.now()));
      // Assess
      expect((await store.status.getTaskStatus(ref))?.retry).toEqual({
        partitions: ['orders-0'],
        since: clock.now(),
        attempts: 1,
      });
    });

    it('loses no attempt of invocations racing on the same task', async () => {
      // Prepare
      const { store, clock } = await factory();
      await seedConnector(store, 'c');
      // Act
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          store.status.recordTaskRetry(
            ref,
            attempt(clock.now() + i, [`orders-${i % 2}`, 'orders-9']),
          ),
        ),
      );
      // Assess
      expect(outcomes.every((o) => o.counted)).toBe(true);
      const retry = (await store.status.getTaskStatus(ref))?.retry;
      expect(retry?.attempts).toBe(6);
      expect(retry?.partitions).toEqual(['orders-0', 'orders-1', 'orders-9']);
    });
  });
}
