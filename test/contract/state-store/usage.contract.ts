import { describe, expect, it } from 'vitest';
import type { Usage } from '../../../shared/ports/metering.js';
import { emptyUsage } from '../../../shared/runtime/metering/usage.js';
import { seedConnector } from './fixtures.js';
import type { StateStoreFactory } from './harness.js';

const HOUR = 3_600_000;
const H0 = Date.UTC(2026, 11, 2, 13);
const usage = (fields: Partial<Usage>): Usage => ({ ...emptyUsage(), ...fields });
const all = { fromHour: 0, toHour: H0 + 1000 * HOUR };

export function usageContract(factory: StateStoreFactory): void {
  describe('usage', () => {
    it('adds every counter to the hour, fractions included, and reads the hours in order', async () => {
      // Prepare
      const { store } = await factory();
      // Act
      await store.usage.addUsage('c', H0 + HOUR, usage({ invocations: 1, lambdaMs: 20 }));
      await store.usage.addUsage(
        'c',
        H0,
        usage({ invocations: 1, lambdaMs: 120, lambdaMbMs: 122_880, kafkaRecordsOut: 500 }),
      );
      await store.usage.addUsage(
        'c',
        H0,
        usage({ invocations: 0.25, lambdaMs: 30.5, dynamoReads: 2, dynamoReadUnits: 1.5 }),
      );
      // Assess
      expect(await store.usage.readUsage('c', all)).toEqual([
        {
          hour: H0,
          usage: usage({
            invocations: 1.25,
            lambdaMs: 150.5,
            lambdaMbMs: 122_880,
            dynamoReads: 2,
            dynamoReadUnits: 1.5,
            kafkaRecordsOut: 500,
          }),
        },
        { hour: H0 + HOUR, usage: usage({ invocations: 1, lambdaMs: 20 }) },
      ]);
    });

    it('counts every one of concurrent adds', async () => {
      // Prepare
      const { store } = await factory();
      // Act
      await Promise.all(
        Array.from({ length: 8 }, () =>
          store.usage.addUsage('c', H0, usage({ invocations: 1, s3Tier1Requests: 3 })),
        ),
      );
      // Assess
      expect(await store.usage.readUsage('c', all)).toEqual([
        { hour: H0, usage: usage({ invocations: 8, s3Tier1Requests: 24 }) },
      ]);
    });

    it('reads only the hours of the range, inclusive', async () => {
      // Prepare
      const { store } = await factory();
      for (const offset of [-1, 0, 1, 2, 3]) {
        await store.usage.addUsage('c', H0 + offset * HOUR, usage({ apiCalls: offset + 10 }));
      }
      // Act
      const hours = await store.usage.readUsage('c', { fromHour: H0, toHour: H0 + 2 * HOUR });
      // Assess
      expect(hours.map((h) => [h.hour - H0, h.usage.apiCalls])).toEqual([
        [0, 10],
        [HOUR, 11],
        [2 * HOUR, 12],
      ]);
    });

    it('keeps each connector and the shared line apart, and reads [] for none', async () => {
      // Prepare
      const { store } = await factory();
      await store.usage.addUsage('a', H0, usage({ invocations: 1 }));
      await store.usage.addUsage('ab', H0, usage({ invocations: 2 }));
      await store.usage.addUsage(undefined, H0, usage({ invocations: 3 }));
      // Act
      const [a, ab, shared, none] = await Promise.all([
        store.usage.readUsage('a', all),
        store.usage.readUsage('ab', all),
        store.usage.readUsage(undefined, all),
        store.usage.readUsage('ghost', all),
      ]);
      // Assess
      expect([a, ab, shared].map((hours) => hours.map((h) => h.usage.invocations))).toEqual([
        [1],
        [2],
        [3],
      ]);
      expect(none).toEqual([]);
    });

    it('keeps what a connector consumed after the connector is deleted', async () => {
      // Prepare
      const { store } = await factory();
      await seedConnector(store, 'c');
      await store.usage.addUsage('c', H0, usage({ invocations: 5 }));
      // Act
      await store.configs.deleteConnector('c');
      // Assess
      expect((await store.usage.readUsage('c', all))[0]?.usage.invocations).toBe(5);
    });
  });
}
