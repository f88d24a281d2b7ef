import type {
  ConfigMap,
  ConfigStore,
  ConnectorRecord,
  TaskConfigSet,
} from '../../ports/config-store.js';
import { StaleVersionError } from '../../ports/errors.js';

const STALE_RETRIES = 5;

/**
 * The connector's config or target state changed while a run was reconciling it (a stop, a
 * pause, a new config): what the run computed is stale, so the run starts over from the new
 * record instead of writing it.
 */
export class ConnectorChangedError extends Error {
  constructor(connector: string) {
    super(`${connector} changed while it was being reconciled`);
    this.name = 'ConnectorChangedError';
  }
}

/** Throws ConnectorChangedError unless the stored record still has `record`'s version and state. */
export async function assertUnchanged(
  configs: Pick<ConfigStore, 'getConnector'>,
  record: ConnectorRecord,
): Promise<void> {
  const now = await configs.getConnector(record.name);
  if (now?.version !== record.version || now.targetState !== record.targetState) {
    throw new ConnectorChangedError(record.name);
  }
}

/**
 * Writes task configs computed from the stored set, again from a fresh read when another run
 * wrote first (the store refuses a stale version), so concurrent runs converge. When the other
 * write came with a change of the connector itself (a stop racing this run), nothing is written
 * and ConnectorChangedError tells the caller to start over.
 */
export async function writeTaskConfigs(
  configs: ConfigStore,
  record: ConnectorRecord,
  compute: (current: TaskConfigSet) => Promise<ConfigMap[]>,
  initial: TaskConfigSet,
): Promise<TaskConfigSet> {
  let current = initial;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await configs.putTaskConfigs(record.name, await compute(current), current.version);
    } catch (error) {
      if (!(error instanceof StaleVersionError) || attempt >= STALE_RETRIES) throw error;
      await assertUnchanged(configs, record);
      current = await configs.getTaskConfigs(record.name);
    }
  }
}
