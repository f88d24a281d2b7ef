import { describe } from 'vitest';
import { configContract } from './state-store/configs.contract.js';
import { deleteContract } from './state-store/delete.contract.js';
import type { StateStoreFactory } from './state-store/harness.js';
import { kafkaEntryContract } from './state-store/kafka-entry.contract.js';
import { leaseContract } from './state-store/leases.contract.js';
import { metaContract } from './state-store/meta.contract.js';
import { offsetContract } from './state-store/offsets.contract.js';
import { statusContract } from './state-store/status.contract.js';
import { taskRetryContract } from './state-store/task-retry.contract.js';
import { usageContract } from './state-store/usage.contract.js';

export {
  ManualClock,
  type StateStoreFactory,
  type StateStoreHarness,
} from './state-store/harness.js';

/**
 * The StateStore contract: every adapter (memory, DynamoDB) runs this same suite.
 *
 * @example
 * ```ts
 * describeStateStoreContract('memory', async () => {
 *   const clock = new ManualClock();
 *   const store = createMemoryStateStore({ clock });
 *   return { store, clock, countItems: async (c) => store.countItems(c) };
 * });
 * ```
 */
export function describeStateStoreContract(adapter: string, factory: StateStoreFactory): void {
  describe(`StateStore contract (${adapter})`, () => {
    configContract(factory);
    leaseContract(factory);
    statusContract(factory);
    taskRetryContract(factory);
    offsetContract(factory);
    kafkaEntryContract(factory);
    deleteContract(factory);
    metaContract(factory);
    usageContract(factory);
  });
}
