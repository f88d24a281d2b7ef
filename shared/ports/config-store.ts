/**
 * Connector configs, target states and task configs: what Kafka Connect keeps in its config
 * topic. One connector's config and target state live together; its task configs live apart,
 * as one set under a version, each task carrying its own generation.
 */

/** A connector or task config: string keys to string values, as Kafka Connect stores them. */
export type ConfigMap = Readonly<Record<string, string>>;

/** The user-controlled target state (Kafka Connect's STARTED is RUNNING here). */
export type TargetState = 'RUNNING' | 'PAUSED' | 'STOPPED';

export const TARGET_STATES: readonly TargetState[] = ['RUNNING', 'PAUSED', 'STOPPED'];

/**
 * The legal target-state transitions: `from → allowed targets`. Every state may be set again
 * (pause, resume and stop are idempotent, as in Kafka Connect), and every state may be reached
 * from every other, as Kafka Connect's `AbstractHerder.pauseConnector` / `resumeConnector` /
 * `stopConnector` write any target state over any other. A connector paused from STOPPED is
 * PAUSED with no tasks (stop wrote an empty set, and task configs are generated only while
 * RUNNING), as Connect's `ConnectWorkerIntegrationTest.testPauseStopResume` expects; a resume
 * then generates them. Any pair not listed raises `InvalidTransitionError`.
 */
export const TARGET_STATE_TRANSITIONS: Readonly<Record<TargetState, readonly TargetState[]>> = {
  RUNNING: ['RUNNING', 'PAUSED', 'STOPPED'],
  PAUSED: ['PAUSED', 'RUNNING', 'STOPPED'],
  STOPPED: ['STOPPED', 'RUNNING', 'PAUSED'],
};

/** True when the transition table allows `from → to`. */
export function isLegalTransition(from: TargetState, to: TargetState): boolean {
  return TARGET_STATE_TRANSITIONS[from].includes(to);
}

/** The states from which `to` may be reached (what a conditional write accepts). */
export function statesReaching(to: TargetState): TargetState[] {
  return TARGET_STATES.filter((from) => isLegalTransition(from, to));
}

/**
 * The largest stored item, in bytes (DynamoDB's 400 KB). All task configs of a connector must
 * fit in one item; each adapter measures with its own encoding.
 */
export const MAX_ITEM_BYTES = 400 * 1024;

/** A stored connector: its config, version and target state. */
export interface ConnectorRecord {
  readonly name: string;
  readonly config: ConfigMap;
  /** 1 on create, +1 on every config update (not on target-state changes). */
  readonly version: number;
  readonly targetState: TargetState;
  /** Epoch millis from the store's clock. */
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface CreateConnectorOptions {
  /** KIP-980 `initial_state`. @default 'RUNNING' */
  readonly initialState?: TargetState;
}

export interface ListConnectorsOptions {
  /** Page size, 1..1000. @default 1000 */
  readonly limit?: number;
  /** `nextCursor` of the previous page; absent for the first page. */
  readonly cursor?: string;
}

/** One page of connector names, sorted ascending. */
export interface ConnectorPage {
  readonly names: readonly string[];
  /** Present exactly when more names follow; pass it back as `cursor`. Opaque. */
  readonly nextCursor?: string;
}

export interface DeleteConnectorOptions {
  /**
   * Keep the connector's source and sink offsets (Kafka Connect keeps offsets of a deleted
   * connector, so a connector re-created under the same name resumes). @default false
   */
  readonly keepOffsets?: boolean;
}

/** The outcome of a target-state change. */
export interface TargetStateChange {
  readonly from: TargetState;
  readonly to: TargetState;
}

/** One task's config and the generation it was assigned at. */
export interface TaskConfigEntry {
  readonly task: number;
  readonly config: ConfigMap;
  /**
   * The task-config-set version at which this task's config last changed. A task whose config
   * did not change keeps its generation, so its running invocation is not disturbed.
   */
  readonly generation: number;
}

/** All task configs of a connector. Tasks are numbered 0..n-1 in order. */
export interface TaskConfigSet {
  readonly connector: string;
  /** 0 when no task configs were ever written; +1 on each write that changes something. */
  readonly version: number;
  readonly tasks: readonly TaskConfigEntry[];
  /**
   * The zombie-fencing list: tasks whose config changed or that were removed by a write whose
   * zombie-fencing round has not completed yet (absent or empty: none). While any is listed,
   * invocations of older generations may still be live, so no task of the connector may start
   * (a source partition that moved could be read before its old owner's last transaction is
   * settled). Each write adds the tasks it replaces; `clearFencing` empties the list once they
   * are fenced.
   */
  readonly fencing?: readonly number[];
}

/**
 * Connector configs, target states and task configs.
 *
 * Contract:
 * - Every method is atomic on its own; no method spans more than one stored item except
 *   `deleteConnector` (which removes the config first, so the connector disappears at once).
 * - Writes that can race carry a condition: create only if absent, update only at the
 *   expected version, target changes only along {@link TARGET_STATE_TRANSITIONS}, task configs
 *   only at the expected set version. A lost race raises a typed error (see each method);
 *   an unavailable store raises a retriable `StoreUnavailableError`.
 * - Returned objects are copies: mutating them does not change the store.
 */
export interface ConfigStore {
  /**
   * Stores a new connector at version 1 with the given target state.
   * @throws ConnectorExistsError when the name is taken.
   */
  createConnector(
    name: string,
    config: ConfigMap,
    options?: CreateConnectorOptions,
  ): Promise<ConnectorRecord>;

  /**
   * Replaces the config if the stored version equals `expectedVersion`; the new version is
   * `expectedVersion + 1`. The target state is untouched.
   * @throws ConnectorNotFoundError when the connector does not exist.
   * @throws StaleVersionError (a ConflictError) when another update came first.
   */
  updateConnector(
    name: string,
    config: ConfigMap,
    expectedVersion: number,
  ): Promise<ConnectorRecord>;

  /** The connector, or `undefined` when it does not exist. Strongly consistent. */
  getConnector(name: string): Promise<ConnectorRecord | undefined>;

  /**
   * Connector names in ascending order, one page at a time. May lag a create or delete by a
   * moment on DynamoDB (the listing reads an index).
   */
  listConnectors(options?: ListConnectorsOptions): Promise<ConnectorPage>;

  /**
   * Removes the connector and every item stored under it (task configs, leases, statuses,
   * offsets unless `keepOffsets`, active topics, restart requests). Items of other connectors
   * and the global logger levels are untouched.
   * @throws ConnectorNotFoundError when the connector does not exist.
   */
  deleteConnector(name: string, options?: DeleteConnectorOptions): Promise<void>;

  /**
   * Moves the target state along {@link TARGET_STATE_TRANSITIONS}.
   * @throws ConnectorNotFoundError when the connector does not exist.
   * @throws InvalidTransitionError (an IllegalStateError) for a transition the table forbids.
   */
  setTargetState(name: string, to: TargetState): Promise<TargetStateChange>;

  /**
   * Writes the connector's task configs (task i = `configs[i]`) if the stored set is at
   * `expectedVersion` (0 when none was written). Tasks whose config changed (or that are new)
   * get generation = the new set version; unchanged tasks keep theirs. A set equal to the
   * stored one is not rewritten (the stored set is returned). An empty list is valid (stop).
   * @throws ConnectorNotFoundError when the connector does not exist.
   * @throws StaleVersionError when the stored set is at another version.
   * @throws ItemTooLargeError when the set does not fit in one item ({@link MAX_ITEM_BYTES}).
   */
  putTaskConfigs(
    name: string,
    configs: readonly ConfigMap[],
    expectedVersion: number,
  ): Promise<TaskConfigSet>;

  /** The connector's task configs; version 0 and no tasks when none were written. */
  getTaskConfigs(name: string): Promise<TaskConfigSet>;

  /**
   * Empties the set's `fencing` list after the caller fenced every task on it, if the stored set
   * is still at `expectedVersion` (a newer write may list more tasks). Returns the stored set.
   * @throws StaleVersionError when the stored set is at another version.
   */
  clearFencing(name: string, expectedVersion: number): Promise<TaskConfigSet>;
}

function sameConfig(a: ConfigMap, b: ConfigMap): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => b[key] === a[key]);
}

/**
 * The generation rule every adapter applies: the set that writing `configs` over `current`
 * produces, or `undefined` when nothing changed. Changed or new tasks get generation
 * `current.version + 1`; unchanged tasks keep theirs. Generations therefore never repeat for a
 * task id, even when tasks are removed and added back.
 */
export function nextTaskConfigSet(
  current: TaskConfigSet,
  configs: readonly ConfigMap[],
): TaskConfigSet | undefined {
  const version = current.version + 1;
  const tasks = configs.map((config, task): TaskConfigEntry => {
    const previous = current.tasks[task];
    const generation =
      previous !== undefined && sameConfig(previous.config, config) ? previous.generation : version;
    return { task, config: { ...config }, generation };
  });
  const unchanged =
    tasks.length === current.tasks.length && tasks.every((entry) => entry.generation !== version);
  if (unchanged) return undefined;
  const replaced = current.tasks
    .filter((old) => tasks[old.task]?.generation !== old.generation)
    .map((old) => old.task);
  const fencing = [...new Set([...(current.fencing ?? []), ...replaced])].sort((a, b) => a - b);
  return {
    connector: current.connector,
    version,
    tasks,
    ...(fencing.length === 0 ? {} : { fencing }),
  };
}
