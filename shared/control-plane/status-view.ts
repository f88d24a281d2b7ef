/**
 * The status a client sees (`GET /connectors/{c}/status`), derived from what is stored: the
 * target state the user asked for, the statuses the runtime wrote, the current task configs and
 * a pending restart request. Pure: no I/O.
 *
 * Rules (Kafka Connect's observable states, without waiting for a worker to catch up):
 * - target STOPPED: the connector is STOPPED and has no tasks;
 * - target PAUSED: the connector and each task are PAUSED, except FAILED ones (sticky until a
 *   restart, as in Connect);
 * - target RUNNING: the stored states as the runtime wrote them;
 * - an instance with no stored status is UNASSIGNED; tasks are those of the current task configs,
 *   sorted by id;
 * - a restart request just made shows every instance its plan restarts as RESTARTING (KIP-745);
 * - `trace` appears, when non-empty, on FAILED (or RESTARTING after FAILED) entries, and on a
 *   RUNNING sink task whose batch keeps failing with retriable errors (the last error, while the
 *   mapping redelivers it: shared/runtime/sink/sink-retry.ts).
 */
import type { TargetState } from '../ports/config-store.js';
import type { RestartRequest } from '../ports/connector-meta-store.js';
import type { ConnectorState, Status, TaskState, TaskStatus } from '../ports/status-store.js';
import type { ConnectorStateInfo, ConnectorType, InstanceState, TaskStateInfo } from './dto.js';

export interface StatusViewInput {
  readonly name: string;
  readonly type: ConnectorType;
  readonly targetState: TargetState;
  readonly connectorStatus: Status | undefined;
  /** Task ids of the current task configs. */
  readonly taskIds: readonly number[];
  readonly taskStatuses: readonly TaskStatus[];
  /** A restart request whose plan is shown as RESTARTING (the 202 answer of a restart). */
  readonly restart: RestartRequest | undefined;
  /** `worker_id` of instances that have no stored status. */
  readonly defaultWorkerId: string;
}

function instance<S extends ConnectorState>(
  state: S,
  workerId: string,
  trace: string | undefined,
): InstanceState<S> {
  const showTrace =
    trace !== undefined &&
    trace !== '' &&
    (state === 'FAILED' || state === 'RESTARTING' || state === 'RUNNING');
  return showTrace ? { state, worker_id: workerId, trace } : { state, worker_id: workerId };
}

function connectorState(input: StatusViewInput): ConnectorState {
  const stored = input.connectorStatus?.state ?? 'UNASSIGNED';
  if (input.targetState === 'STOPPED') return 'STOPPED';
  if (input.targetState === 'PAUSED') return stored === 'FAILED' ? 'FAILED' : 'PAUSED';
  return stored;
}

function taskState(input: StatusViewInput, stored: TaskState | undefined): TaskState {
  const state = stored ?? 'UNASSIGNED';
  if (input.targetState === 'PAUSED') return state === 'FAILED' ? 'FAILED' : 'PAUSED';
  return state;
}

function restarts(request: RestartRequest | undefined, state: ConnectorState): boolean {
  return request !== undefined && (!request.onlyFailed || state === 'FAILED');
}

/** The connector's status as `GET /connectors/{c}/status` shows it. */
export function connectorStateInfo(input: StatusViewInput): ConnectorStateInfo {
  const worker = (id: string | undefined) =>
    id === undefined || id === '' ? input.defaultWorkerId : id;
  const restart = input.restart;
  const baseState = connectorState(input);
  const connector = instance(
    restarts(restart, baseState) ? 'RESTARTING' : baseState,
    worker(input.connectorStatus?.workerId),
    input.connectorStatus?.trace,
  );
  const byTask = new Map(input.taskStatuses.map((s) => [s.task, s]));
  const ids =
    input.targetState === 'STOPPED' ? [] : [...new Set(input.taskIds)].sort((a, b) => a - b);
  const tasks = ids.map((id): TaskStateInfo => {
    const stored = byTask.get(id);
    const state = taskState(input, stored?.state);
    const restarting = restart?.includeTasks === true && restarts(restart, state);
    return {
      id,
      ...instance(restarting ? 'RESTARTING' : state, worker(stored?.workerId), stored?.trace),
    };
  });
  return { name: input.name, connector, tasks, type: input.type };
}
