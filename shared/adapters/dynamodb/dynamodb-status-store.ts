import type { TopicPartition } from '../../connect/records.js';
import type { Clock } from '../../ports/clock.js';
import type { LeaseFence, TaskRef } from '../../ports/lease-store.js';
import {
  type ConnectorStatusSnapshot,
  type SinkInvocationSnapshot,
  type Status,
  type StatusStore,
  type StatusUpdate,
  type TaskState,
  type TaskStatus,
  truncateTrace,
} from '../../ports/status-store.js';
import { type Item, num, str } from './attributes.js';
import {
  connectorKey,
  decodeConnector,
  decodeStatus,
  decodeTaskConfigs,
  decodeTaskItem,
  versionAttr,
} from './codec.js';
import { SINK_OFFSET_ATTRS, sinkOffsetItemsOf, sinkOffsetsOf } from './dynamodb-offset-store.js';
import { LEASE_FENCE_CONDITION, leaseFenceValues, throwLeaseFenced } from './lease-fence.js';
import type { DynamoTable } from './table.js';
import { ATTR, KEYS, STATE_TABLE } from './table-schema.js';

/**
 * The sort keys from `CONNECTOR` to `TASKS` hold, in order: CONNECTOR, RESTART,
 * SINKOFFSET#… (v3 items only: since v4 they live in shards of their own), STATUS, TASK#…,
 * TASKS (TOPIC#… sort after). The snapshot reads that range in one Query, drops v3 sink offsets
 * with a filter (their `topic` attribute; a filter cannot name the sort key) and projects away
 * the source offsets of TASK# items. The sink snapshot reads the same range without the filter,
 * keeping v3 sink offsets, and at the same time the v4 sink offsets of the batch's partitions
 * (one BatchGetItem); both ignore the RESTART item.
 */
const SNAPSHOT_ATTRS = [
  STATE_TABLE.partitionKey.name,
  STATE_TABLE.sortKey.name,
  ATTR.formatVersion,
  // CONNECTOR
  ATTR.name,
  ATTR.config,
  ATTR.version,
  ATTR.target,
  ATTR.createdAt,
  ATTR.updatedAt,
  // TASKS
  ATTR.tasks,
  ATTR.fencing,
  // STATUS and TASK#n
  ATTR.task,
  ATTR.state,
  ATTR.workerId,
  ATTR.trace,
  ATTR.statusAt,
];

/** {@link SNAPSHOT_ATTRS} and those of SINKOFFSET# items. */
const SINK_SNAPSHOT_ATTRS = [...new Set([...SNAPSHOT_ATTRS, ...SINK_OFFSET_ATTRS])];

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
    fence?: LeaseFence,
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
        ...(fence === undefined ? {} : { condition: LEASE_FENCE_CONDITION }),
        values: {
          ':state': str(stored.state),
          ':workerId': str(stored.workerId),
          ':statusAt': num(stored.updatedAt),
          ':task': num(ref.task),
          ':v': versionAttr(),
          ...(stored.trace === undefined ? {} : { ':trace': str(stored.trace) }),
          ...(fence === undefined ? {} : leaseFenceValues(fence)),
        },
      },
      `write the status of ${ref.connector}-${ref.task}`,
    );
    if (!result.ok && fence !== undefined) throwLeaseFenced(ref, fence, result);
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

  async getConnectorSnapshot(connector: string): Promise<ConnectorStatusSnapshot | undefined> {
    const items = await this.#table.queryBetween(
      KEYS.connectorPk(connector),
      { from: KEYS.connectorSk, to: KEYS.tasksSk },
      `read the status of ${connector}`,
      { projection: SNAPSHOT_ATTRS, filter: `attribute_not_exists(#${ATTR.topic})` },
    );
    return snapshotOf(connector, items);
  }

  async getSinkSnapshot(
    connector: string,
    partitions: readonly TopicPartition[],
  ): Promise<SinkInvocationSnapshot | undefined> {
    const operation = `read the sink state of ${connector}`;
    const [items, moved] = await Promise.all([
      this.#table.queryBetween(
        KEYS.connectorPk(connector),
        { from: KEYS.connectorSk, to: KEYS.tasksSk },
        operation,
        { projection: SINK_SNAPSHOT_ATTRS },
      ),
      sinkOffsetItemsOf(this.#table, connector, partitions, operation),
    ]);
    const snapshot = snapshotOf(connector, items);
    if (snapshot === undefined) return undefined;
    const sortKey = STATE_TABLE.sortKey.name;
    const legacy = items.filter((item) => item[sortKey]?.S?.startsWith(KEYS.sinkOffsetPrefix));
    return { ...snapshot, sinkOffsets: sinkOffsetsOf([...legacy, ...moved], partitions) };
  }
}

/** The snapshot from the items of the CONNECTOR..TASKS range (undefined without CONNECTOR). */
function snapshotOf(
  connector: string,
  items: readonly Item[],
): ConnectorStatusSnapshot | undefined {
  const sortKey = STATE_TABLE.sortKey.name;
  const bySk = (sk: string) => items.find((item) => item[sortKey]?.S === sk);
  const connectorItem = bySk(KEYS.connectorSk);
  if (connectorItem === undefined) return undefined;
  const statusItem = bySk(KEYS.statusSk);
  return {
    record: decodeConnector(connectorItem),
    tasks: decodeTaskConfigs(connector, bySk(KEYS.tasksSk)),
    status: statusItem === undefined ? undefined : decodeStatus(statusItem),
    taskStatuses: items
      .filter((item) => item[sortKey]?.S?.startsWith(KEYS.taskPrefix))
      .map((item) => decodeTaskItem(connector, item))
      .sort((a, b) => a.task - b.task)
      .flatMap(({ task, status }) =>
        status === undefined ? [] : [{ connector, task, ...status }],
      ),
  };
}

function stamp<S extends StatusUpdate>(status: S, now: number): Status<S['state']> {
  return {
    state: status.state,
    workerId: status.workerId,
    ...(status.trace === undefined ? {} : { trace: truncateTrace(status.trace) }),
    updatedAt: now,
  };
}
