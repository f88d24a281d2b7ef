/**
 * The enumerator: the serverless stand-in for Kafka Connect's leader worker and Flink's split
 * enumerator. Each run compares every connector's desired state (config, target state, restart
 * requests, the partitions it subscribes to) with what is stored and running, and converges:
 * task configs with generations, task and connector status, source-task dispatch, sink
 * mappings. Every step is idempotent and every write that can race is conditional, so two runs
 * at once converge and an interrupted run leaves a state the next run completes.
 */
import { resolvePlaceholders } from '../../config/config-providers.js';
import { parseConnectorConfig } from '../../config/connector-config.js';
import { parseKafkaSubscription } from '../../config/kafka-subscription-config.js';
import type { Connector } from '../../connect/connector.js';
import type { ConfigMap, ConnectorRecord, TaskConfigSet } from '../../ports/config-store.js';
import type { PendingRestart } from '../../ports/connector-meta-store.js';
import type { ConnectorState, TaskState, TaskStatus } from '../../ports/status-store.js';
import { mapLimit } from '../task/concurrency.js';
import { taskStoppingOffsets } from '../task/task-split.js';
import {
  type ConnectorReport,
  DEFAULT_ENUMERATOR_SETTINGS,
  type EnumeratorDeps,
  type EnumeratorSettings,
  type ReconcileOptions,
} from './enumerator-types.js';
import { realignMappingGroup } from './mapping-rewind.js';
import { PartitionDiscovery, startingPositions, stoppingOffsets } from './partition-discovery.js';
import { syncMappings } from './sink-mappings.js';
import { dispatchSourceTasks } from './source-dispatch.js';
import {
  boundedFinished,
  generateTaskConfigs,
  reverseTransform,
  storedPartitions,
  withPartitions,
} from './task-configs.js';
import { assertUnchanged, ConnectorChangedError, writeTaskConfigs } from './write-task-configs.js';
import { fenceZombies } from './zombie-fencing.js';

const STALE_RETRIES = 5;

/** The worker id of a bounded sink task that has written everything up to its stopping offsets. */
export const BOUNDED_FINISHED_WORKER = 'finished: stopping offsets reached';

/** How many of `statuses` are in each state. */
function countStates(statuses: readonly TaskStatus[]): Partial<Record<TaskState, number>> {
  const counts: Partial<Record<TaskState, number>> = {};
  for (const { state } of statuses) counts[state] = (counts[state] ?? 0) + 1;
  return counts;
}

const traceOf = (error: unknown): string =>
  error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);

export class Enumerator {
  constructor(private readonly deps: EnumeratorDeps) {}

  /** Reconciles every connector, then removes mappings of connectors that no longer exist. */
  async reconcileAll(): Promise<ConnectorReport[]> {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.deps.store.configs.listConnectors(
        cursor === undefined ? {} : { cursor },
      );
      names.push(...page.names);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const reports = await mapLimit(names, this.deps.settings.connectorConcurrency, (name) =>
      this.reconcile(name).catch((error: unknown): ConnectorReport => {
        this.deps.logger.error('reconcile failed; the next run retries', {
          connector: name,
          error: traceOf(error),
        });
        return {
          connector: name,
          state: 'UNASSIGNED',
          tasks: 0,
          dispatched: [],
          error: String(error),
        };
      }),
    );
    const known = new Set(names);
    const orphans = (await this.deps.mappings.list()).filter((m) => !known.has(m.connector));
    for (const connector of new Set(orphans.map((m) => m.connector))) {
      // The listing may lag a create: confirm with a strongly consistent read first.
      if ((await this.deps.store.configs.getConnector(connector)) === undefined) {
        reports.push(await this.#deleted(connector));
      }
    }
    return reports;
  }

  /**
   * Reconciles one connector (after a nudge or an event, or as part of `reconcileAll`), metered
   * as work for that connector.
   */
  async reconcile(name: string, options: ReconcileOptions = {}): Promise<ConnectorReport> {
    const work = async (): Promise<ConnectorReport> => {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await this.#reconcileOnce(name, options);
        } catch (error) {
          // The connector changed under this run (a stop, a new config): start over from it.
          if (!(error instanceof ConnectorChangedError) || attempt >= STALE_RETRIES) throw error;
        }
      }
    };
    return this.deps.usage === undefined ? work() : this.deps.usage.attribute(name, work);
  }

  async #reconcileOnce(name: string, options: ReconcileOptions): Promise<ConnectorReport> {
    const { store } = this.deps;
    const record = await store.configs.getConnector(name);
    if (record === undefined) return this.#deleted(name);
    const restart = await store.restarts.getRestartRequest(name);
    let taskSet = await store.configs.getTaskConfigs(name);
    let statuses = await store.status.listTaskStatuses(name);
    if (restart !== undefined) await this.#beginRestart(record, restart, taskSet, statuses);

    let report: ConnectorReport;
    if (record.targetState === 'STOPPED') {
      taskSet = await writeTaskConfigs(store.configs, record, async () => [], taskSet);
      taskSet = await fenceZombies(this.deps, name, taskSet, 'source');
      report = await this.#reconcileStopped(record, taskSet);
    } else {
      report = await this.#reconcileStarted(record, taskSet, options);
    }
    statuses = await store.status.listTaskStatuses(name);
    report = { ...report, taskStates: countStates(statuses) };
    if (restart !== undefined) {
      await store.restarts.completeRestart(name, restart.seq);
      report = { ...report, restart: restart.seq };
    }
    this.deps.logger.debug('reconciled', { ...report, statuses: statuses.length });
    return report;
  }

  async #deleted(connector: string): Promise<ConnectorReport> {
    this.deps.discovery.forget(connector);
    const existing = await this.deps.mappings.list(connector);
    for (const mapping of existing) await this.deps.mappings.delete(mapping);
    return {
      connector,
      state: 'DELETED',
      tasks: 0,
      dispatched: [],
      mappings: { created: 0, updated: 0, deleted: existing.length },
    };
  }

  /** Marks what the request restarts as RESTARTING and revokes the leases of running tasks. */
  async #beginRestart(
    record: ConnectorRecord,
    restart: PendingRestart,
    taskSet: TaskConfigSet,
    statuses: readonly TaskStatus[],
  ): Promise<void> {
    const { store, settings } = this.deps;
    const connectorStatus = await store.status.getConnectorStatus(record.name);
    if (!restart.onlyFailed || connectorStatus?.state === 'FAILED') {
      await store.status.putConnectorStatus(record.name, {
        state: 'RESTARTING',
        workerId: settings.workerId,
      });
    }
    if (!restart.includeTasks) return;
    const stateOf = new Map(statuses.map((s) => [s.task, s.state]));
    const tasks = taskSet.tasks.filter(
      (t) => !restart.onlyFailed || stateOf.get(t.task) === 'FAILED',
    );
    await mapLimit(tasks, settings.dispatchConcurrency, async ({ task }) => {
      const ref = { connector: record.name, task };
      await store.leases.revokeLease(ref);
      await store.status.putTaskStatus(ref, { state: 'RESTARTING', workerId: settings.workerId });
    });
  }

  async #reconcileStopped(
    record: ConnectorRecord,
    taskSet: TaskConfigSet,
  ): Promise<ConnectorReport> {
    const { store } = this.deps;
    for (const status of await store.status.listTaskStatuses(record.name)) {
      await store.status.removeTaskStatus(status);
    }
    const mappings = await syncMappings(
      this.deps.mappings,
      record.name,
      undefined,
      false,
      this.deps.settings.mappings,
    );
    await this.#putConnectorState(record.name, 'STOPPED');
    return {
      connector: record.name,
      state: 'STOPPED',
      taskConfigVersion: taskSet.version,
      tasks: 0,
      dispatched: [],
      ...(mappings === undefined ? {} : { mappings }),
    };
  }

  async #reconcileStarted(
    record: ConnectorRecord,
    current: TaskConfigSet,
    options: ReconcileOptions,
  ): Promise<ConnectorReport> {
    const { plugins } = this.deps;
    const name = record.name;
    let kind: 'source' | 'sink' | undefined;
    let taskSet = current;
    let topics: string[] | undefined;
    let failure: unknown;
    try {
      const resolved = await resolvePlaceholders(record.config, this.deps.configProviders ?? {});
      const className = resolved['connector.class'] ?? '';
      const descriptor = plugins.resolve(className);
      if (descriptor.type !== 'source' && descriptor.type !== 'sink') {
        throw new Error(`${className} is a ${descriptor.type}, not a connector`);
      }
      kind = descriptor.type;
      const config = parseConnectorConfig(resolved, kind);
      // Task configs are generated only while RUNNING, as Kafka Connect's leader does
      // (`DistributedHerder.reconfigureConnector` skips a target other than STARTED): a PAUSED
      // connector keeps the tasks it has (none after a stop, or when created PAUSED) until resumed.
      if (record.targetState === 'RUNNING') {
        const connector = descriptor.create() as Connector;
        const generated = await generateTaskConfigs(connector, config, resolved);
        const configs = reverseTransform(record.config, resolved, generated);
        if (kind === 'source') {
          const compute = async () => configs;
          taskSet = await writeTaskConfigs(this.deps.store.configs, record, compute, taskSet);
        } else {
          const written = await this.#writeSinkTaskConfigs(record, resolved, configs, taskSet);
          taskSet = written.taskSet;
          topics = written.topics;
        }
      }
      taskSet = await fenceZombies(this.deps, name, taskSet, kind);
    } catch (error) {
      if (error instanceof ConnectorChangedError) throw error;
      failure = error;
      this.deps.logger.warn('connector failed', { connector: name, error: traceOf(error) });
    }
    // A stop or pause that landed during this run must not be undone by its dispatch or mappings.
    await assertUnchanged(this.deps.store.configs, record);
    const paused = record.targetState === 'PAUSED';
    // A bounded sink whose partitions all reached their stopping offsets has ended: its
    // mappings are disabled and its tasks say so in their worker id.
    // (Its sink offsets are read only when some partition has a stopping offset.)
    const bounded = taskSet.tasks.some((t) => taskStoppingOffsets(t.config).size > 0);
    const finished =
      kind === 'sink' &&
      bounded &&
      boundedFinished(taskSet.tasks, await this.deps.store.offsets.getSinkOffsets(name));
    await this.#reconcileTaskStatuses(name, taskSet, kind, paused, finished);
    const { dispatched, deferred } =
      kind === 'source' && !paused
        ? await dispatchSourceTasks(this.deps, record, taskSet, options.immediate === true)
        : { dispatched: [], deferred: [] };
    const mappings =
      kind === 'sink'
        ? await syncMappings(
            this.deps.mappings,
            name,
            topics,
            !paused && failure === undefined && !finished,
            this.deps.settings.mappings,
            (m) => realignMappingGroup(this.deps.admin, this.deps.store.offsets, m),
          )
        : undefined;
    const state: ConnectorState = failure !== undefined ? 'FAILED' : paused ? 'PAUSED' : 'RUNNING';
    await this.#putConnectorState(
      name,
      state,
      failure === undefined ? undefined : traceOf(failure),
    );
    return {
      connector: name,
      state,
      ...(kind === undefined ? {} : { kind }),
      taskConfigVersion: taskSet.version,
      tasks: taskSet.tasks.length,
      dispatched,
      ...(deferred.length === 0 ? {} : { deferred }),
      ...(mappings === undefined ? {} : { mappings }),
      ...(failure === undefined ? {} : { error: String(failure) }),
    };
  }

  /** Sink task configs carry their partitions; a first assignment seeds starting offsets. */
  async #writeSinkTaskConfigs(
    record: ConnectorRecord,
    resolved: ConfigMap,
    configs: readonly ConfigMap[],
    initial: TaskConfigSet,
  ): Promise<{ taskSet: TaskConfigSet; topics: string[] }> {
    const { admin, discovery, clock, store } = this.deps;
    const subscription = parseKafkaSubscription(resolved);
    let partitions: ReturnType<typeof storedPartitions> = [];
    let first = false;
    const name = record.name;
    const taskSet = await writeTaskConfigs(
      store.configs,
      record,
      async (current) => {
        const known = storedPartitions(current.tasks);
        first = known.length === 0;
        partitions = [
          ...(await discovery.partitions(admin, name, subscription, clock.now(), known)).partitions,
        ];
        const stopping = first
          ? await stoppingOffsets(admin, subscription, partitions)
          : new Map(current.tasks.flatMap((t) => [...taskStoppingOffsets(t.config)]));
        return withPartitions(configs, partitions, current.tasks, stopping);
      },
      initial,
    );
    if (first && partitions.length > 0) {
      const committed = new Set(
        (await store.offsets.getSinkOffsets(name)).map((o) => `${o.topic}-${o.partition}`),
      );
      const seeds = await startingPositions(admin, subscription, partitions, committed);
      for (const [id, nextOffset] of seeds) {
        const dash = id.lastIndexOf('-');
        await store.offsets.commitSinkOffset(name, {
          topic: id.slice(0, dash),
          partition: Number(id.slice(dash + 1)),
          nextOffset,
        });
      }
    }
    return { taskSet, topics: [...new Set(storedPartitions(taskSet.tasks).map((p) => p.topic))] };
  }

  /**
   * New tasks show UNASSIGNED until they first run; removed tasks are forgotten; a paused
   * connector's tasks show PAUSED, a running sink connector's tasks RUNNING (the mapping feeds
   * them). FAILED stays until a restart.
   */
  async #reconcileTaskStatuses(
    name: string,
    taskSet: TaskConfigSet,
    kind: 'source' | 'sink' | undefined,
    paused: boolean,
    finished = false,
  ): Promise<void> {
    const { store, settings } = this.deps;
    const statuses = await store.status.listTaskStatuses(name);
    const byTask = new Map(statuses.map((s) => [s.task, s]));
    const count = taskSet.tasks.length;
    for (const status of statuses) {
      if (status.task >= count) await store.status.removeTaskStatus(status);
    }
    await mapLimit(taskSet.tasks, settings.dispatchConcurrency, async ({ task }) => {
      const state = byTask.get(task)?.state;
      let next: TaskState | undefined;
      if (state === 'FAILED') next = undefined;
      else if (paused) next = 'PAUSED';
      else if (kind === 'sink') next = 'RUNNING';
      else if (state === undefined || state === 'PAUSED') next = 'UNASSIGNED';
      const marked = finished && byTask.get(task)?.workerId !== BOUNDED_FINISHED_WORKER;
      if (next !== undefined && (next !== state || marked)) {
        await store.status.putTaskStatus(
          { connector: name, task },
          { state: next, workerId: finished ? BOUNDED_FINISHED_WORKER : settings.workerId },
        );
      }
    });
  }

  async #putConnectorState(name: string, state: ConnectorState, trace?: string): Promise<void> {
    const { store, settings } = this.deps;
    const current = await store.status.getConnectorStatus(name);
    if (current?.state === state && current.trace === trace) return;
    await store.status.putConnectorStatus(name, {
      state,
      workerId: settings.workerId,
      ...(trace === undefined ? {} : { trace }),
    });
  }
}

export {
  type ConnectorReport,
  DEFAULT_ENUMERATOR_SETTINGS,
  type EnumeratorDeps,
  type EnumeratorSettings,
  PartitionDiscovery,
  type ReconcileOptions,
};
