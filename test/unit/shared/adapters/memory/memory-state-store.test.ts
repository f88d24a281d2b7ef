import { createMemoryStateStore } from '../../../../../shared/adapters/memory/memory-state-store.js';
import {
  describeStateStoreContract,
  ManualClock,
} from '../../../../contract/state-store.contract.js';

describeStateStoreContract('memory', async () => {
  const clock = new ManualClock();
  const store = createMemoryStateStore({ clock });
  return { store, clock, countItems: async (connector) => store.countItems(connector) };
});
