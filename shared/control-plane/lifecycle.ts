/**
 * Status and lifecycle: status reads, pause, resume, stop, and restarts of connectors
 * (KIP-745) and tasks. Target-state changes only record what the user wants and nudge the
 * enumerator, which brings the runtime there; status answers derive from the stored state at
 * once (see status-view.ts).
 */
import { StaleVersionError, TaskNotFoundError } from '../ports/errors.js';
import type { ConnectorStateInfo, TaskStateInfo } from './dto.js';
import { RestConflictError, RestNotFoundError } from './errors.js';
import {
  isStorableName,
  readSnapshot,
  type ServiceContext,
  snapshotStatus,
} from './service-context.js';

/** Attempts at writing the empty task-config set of a stop before answering 409. */
const STOP_ATTEMPTS = 5;

/** `POST /connectors/{c}/restart` query parameters (both default false). */
export interface RestartOptions {
  readonly includeTasks: boolean;
  readonly onlyFailed: boolean;
}

export class LifecycleApi {
  readonly #ctx: ServiceContext;

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
  }

  /** `GET /connectors/{c}/status`. */
  async status(name: string): Promise<ConnectorStateInfo> {
    return snapshotStatus(this.#ctx, await readSnapshot(this.#ctx, name));
  }

  /** `GET /connectors/{c}/tasks/{t}/status`: 404 for a task not in the current task configs. */
  async taskStatus(name: string, task: number): Promise<TaskStateInfo> {
    const status = await this.status(name);
    const found = status.tasks.find((t) => t.id === task);
    if (found === undefined)
      throw new RestNotFoundError(`No status found for task ${name}-${task}`);
    return found;
  }

  /**
   * `PUT /connectors/{c}/pause`: target PAUSED (idempotent), from STOPPED too, as in Kafka
   * Connect: a connector paused from STOPPED is PAUSED with no tasks until it is resumed (the
   * enumerator generates task configs only while RUNNING).
   */
  async pause(name: string): Promise<void> {
    this.#assertStorable(name);
    await this.#ctx.store.configs.setTargetState(name, 'PAUSED');
    this.#ctx.nudge(name);
  }

  /** `PUT /connectors/{c}/resume`: target RUNNING (idempotent); tasks come back from STOPPED. */
  async resume(name: string): Promise<void> {
    this.#assertStorable(name);
    await this.#ctx.store.configs.setTargetState(name, 'RUNNING');
    this.#ctx.nudge(name);
  }

  /**
   * `PUT /connectors/{c}/stop` (KIP-875): target STOPPED, then an empty task-config set, so
   * the connector has no tasks and its offsets may be altered. The target is written first so
   * the enumerator never regenerates tasks in between.
   */
  async stop(name: string): Promise<void> {
    this.#assertStorable(name);
    await this.#ctx.store.configs.setTargetState(name, 'STOPPED');
    await this.#clearTaskConfigs(name);
    this.#ctx.nudge(name);
  }

  async #clearTaskConfigs(name: string): Promise<void> {
    for (let attempt = 0; attempt < STOP_ATTEMPTS; attempt += 1) {
      const current = await this.#ctx.store.configs.getTaskConfigs(name);
      if (current.tasks.length === 0) return;
      try {
        await this.#ctx.store.configs.putTaskConfigs(name, [], current.version);
        return;
      } catch (error) {
        if (!(error instanceof StaleVersionError)) throw error;
      }
    }
    throw new RestConflictError(`The tasks of connector ${name} kept changing; retry the stop`);
  }

  /**
   * `POST /connectors/{c}/restart`: records the request for the enumerator. Returns
   * `undefined` for a plain restart (204), else the status with every instance the plan
   * restarts shown as RESTARTING (202).
   */
  async restart(name: string, options: RestartOptions): Promise<ConnectorStateInfo | undefined> {
    const snapshot = await readSnapshot(this.#ctx, name);
    const request = { includeTasks: options.includeTasks, onlyFailed: options.onlyFailed };
    await this.#ctx.store.restarts.requestRestart(name, request);
    this.#ctx.nudge(name);
    if (!options.includeTasks && !options.onlyFailed) return undefined;
    return snapshotStatus(this.#ctx, snapshot, request);
  }

  /**
   * `POST /connectors/{c}/tasks/{t}/restart`: takes the task from its invocation (the lease
   * is revoked, so a running invocation is fenced), marks it RESTARTING (an unfenced write, as
   * the status port allows the control plane) and nudges the enumerator, which dispatches it
   * again, as it does for the tasks of a connector restart.
   */
  async restartTask(name: string, task: number): Promise<void> {
    const snapshot = await readSnapshot(this.#ctx, name);
    const configured =
      snapshot.record.targetState !== 'STOPPED' &&
      snapshot.tasks.tasks.some((t) => t.task === task);
    if (!configured) throw new TaskNotFoundError(name, task);
    const ref = { connector: name, task };
    await this.#ctx.store.leases.revokeLease(ref);
    await this.#ctx.store.status.putTaskStatus(ref, {
      state: 'RESTARTING',
      workerId: this.#ctx.workerId,
    });
    this.#ctx.nudge(name);
  }

  #assertStorable(name: string): void {
    if (!isStorableName(name)) throw new RestNotFoundError(`Connector ${name} not found`);
  }
}
