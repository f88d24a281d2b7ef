import type { Clock } from '../../ports/clock.js';
import type { Fence, TaskRef } from '../../ports/lease-store.js';
import {
  type Status,
  type StatusStore,
  type StatusUpdate,
  type TaskState,
  type TaskStatus,
  truncateTrace,
} from '../../ports/status-store.js';
import { num, str } from './attributes.js';
import { connectorKey, decodeStatus, decodeTaskItem, versionAttr } from './codec.js';
import { FENCE_CONDITION, fenced, fenceValues } from './fence.js';
import type { DynamoTable } from './table.js';
import { ATTR, KEYS } from './table-schema.js';

/** StatusStore over `STATUS` (connector) and `TASK#n` (task) items. */
export class DynamoDbStatusStore implements StatusStore {
  readonly #table: DynamoTable;
  readonly #clock: Clock;

  constructor(table: DynamoTable, clock: Clock) {
    this.#table = table;
    this.#clock = clock;
  }

  async putConnectorStatus(connector: string, status: StatusUpdate): Promise<Status> {
    const stored = stamp(status, this.#clock.now());
    await this.#table.put(
      {
        ...connectorKey(connector, KEYS.statusSk),
        [ATTR.formatVersion]: versionAttr(),
        [ATTR.state]: str(stored.state),
        [ATTR.workerId]: str(stored.workerId),
        [ATTR.statusAt]: num(stored.updatedAt),
        ...(stored.trace === undefined ? {} : { [ATTR.trace]: str(stored.trace) }),
      },
      {},
      `write the status of ${connector}`,
    );
    return stored;
  }

  async getConnectorStatus(connector: string): Promise<Status | undefined> {
    const item = await this.#table.get(
      connectorKey(connector, KEYS.statusSk),
      `read the status of ${connector}`,
    );
    return item === undefined ? undefined : decodeStatus(item);
  }

  async putTaskStatus(
    ref: TaskRef,
    status: StatusUpdate<TaskState>,
    fence?: Fence,
  ): Promise<TaskStatus> {
    const stored = stamp(status, this.#clock.now());
    const set = [
      `#${ATTR.state} = :state`,
      `#${ATTR.workerId} = :workerId`,
      `#${ATTR.statusAt} = :statusAt`,
      `#${ATTR.task} = :task`,
      `#${ATTR.formatVersion} = :v`,
      ...(stored.trace === undefined ? [] : [`#${ATTR.trace} = :trace`]),
    ];
    const result = await this.#table.update(
      connectorKey(ref.connector, KEYS.taskSk(ref.task)),
      {
        update: `SET ${set.join(', ')}${stored.trace === undefined ? ` REMOVE #${ATTR.trace}` : ''}`,
        ...(fence === undefined ? {} : { condition: FENCE_CONDITION }),
        values: {
          ':state': str(stored.state),
          ':workerId': str(stored.workerId),
          ':statusAt': num(stored.updatedAt),
          ':task': num(ref.task),
          ':v': versionAttr(),
          ...(stored.trace === undefined ? {} : { ':trace': str(stored.trace) }),
          ...(fence === undefined ? {} : fenceValues(fence)),
        },
      },
      `write the status of ${ref.connector}-${ref.task}`,
    );
    if (!result.ok && fence !== undefined) fenced(ref, fence, result);
    return { ...ref, ...stored };
  }

  async getTaskStatus(ref: TaskRef): Promise<TaskStatus | undefined> {
    const item = await this.#table.get(
      connectorKey(ref.connector, KEYS.taskSk(ref.task)),
      `read the status of ${ref.connector}-${ref.task}`,
    );
    const status = item === undefined ? undefined : decodeTaskItem(ref.connector, item).status;
    return status === undefined ? undefined : { ...ref, ...status };
  }

  async removeTaskStatus(ref: TaskRef): Promise<void> {
    await this.#table.update(
      connectorKey(ref.connector, KEYS.taskSk(ref.task)),
      {
        update: `REMOVE #${ATTR.state}, #${ATTR.workerId}, #${ATTR.statusAt}, #${ATTR.trace}`,
        condition: `attribute_exists(#${ATTR.state})`,
      },
      `remove the status of ${ref.connector}-${ref.task}`,
    );
  }

  async listTaskStatuses(connector: string): Promise<TaskStatus[]> {
    const items = await this.#table.query(
      KEYS.connectorPk(connector),
      KEYS.taskPrefix,
      `list task statuses of ${connector}`,
    );
    return items
      .map((item) => decodeTaskItem(connector, item))
      .sort((a, b) => a.task - b.task)
      .flatMap(({ task, status }) =>
        status === undefined ? [] : [{ connector, task, ...status }],
      );
  }
}

function stamp<S extends StatusUpdate>(status: S, now: number): Status<S['state']> {
  return {
    state: status.state,
    workerId: status.workerId,
    ...(status.trace === undefined ? {} : { trace: truncateTrace(status.trace) }),
    updatedAt: now,
  };
}
