import type { TopicPartition } from '../../connect/records.js';
import type { Clock } from '../../ports/clock.js';
import type { LeaseFence, TaskRef } from '../../ports/lease-store.js';
import {
  type ConnectorStatusSnapshot,
  type SinkInvocationSnapshot,
  type Status,
  type StatusStore,
  type StatusUpdate,
  type TaskRetryAttempt,
  type TaskRetryOutcome,
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
import { SINK_OFFSET_ATTRS, sinkOffsetItemsOf, sinkOffsetsOf } from './dynamodb-sink-offsets.js';
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
  ATTR.retryPartitions,
  ATTR.retrySince,
  ATTR.retryAttempts,
];

/** The attributes of a sink task's retry run, which every status write removes. */
const RETRY_ATTRS = [ATTR.retryPartitions, ATTR.retrySince, ATTR.retryAttempts];

/**
 * `contains(#retryPartitions, :p0) OR …` over `partitions`, and their values: true when the
 * stored run shares a partition with them.
 */
function sharesPartition(partitions: readonly string[]) {
  if (partitions.length === 0) throw new Error('a retry run names at least one partition');
  return {
    condition: `(${partitions.map((_, i) => `contains(#${ATTR.retryPartitions}, :p${i})`).join(' OR ')})`,
    values: Object.fromEntries(partitions.map((p, i) => [`:p${i}`, str(p)])),
  };
}

const NOT_FAILED = `(attribute_not_exists(#${ATTR.state}) OR #${ATTR.state} <> :failed)`;

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
    const remove = [...RETRY_ATTRS, ...(stored.trace === undefined ? [ATTR.trace] : [])];
    const result = await this.#table.update(
      connectorKey(ref.connector, KEYS.taskSk(ref.task)),
      {
        update: `SET ${set.join(', ')} REMOVE ${remove.map((a) => `#${a}`).join(', ')}`,
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

  async recordTaskRetry(ref: TaskRef, attempt: TaskRetryAttempt): Promise<TaskRetryOutcome> {
    const now = this.#clock.now();
    const shared = sharesPartition(attempt.partitions);
    const result = await this.#table.update(
      connectorKey(ref.connector, KEYS.taskSk(ref.task)),
      {
        update:
          `SET #${ATTR.state} = :running, #${ATTR.workerId} = :workerId, ` +
          `#${ATTR.statusAt} = :statusAt, #${ATTR.task} = :task, #${ATTR.formatVersion} = :v, ` +
          `#${ATTR.trace} = :trace, #${ATTR.retrySince} = if_not_exists(#${ATTR.retrySince}, :since) ` +
          `ADD #${ATTR.retryPartitions} :partitions, #${ATTR.retryAttempts} :one`,
        condition: `${NOT_FAILED} AND (attribute_not_exists(#${ATTR.retryPartitions}) OR ${shared.condition})`,
        values: {
          ':running': str('RUNNING'),
          ':failed': str('FAILED'),
          ':workerId': str(attempt.workerId),
          ':statusAt': num(now),
          ':task': num(ref.task),
          ':v': versionAttr(),
          ':trace': str(truncateTrace(attempt.trace)),
          ':since': num(attempt.startedAt),
          ':partitions': { SS: [...new Set(attempt.partitions)] },
          ':one': num(1),
          ...shared.values,
        },
      },
      `count a failed attempt of ${ref.connector}-${ref.task}`,
    );
    const item = result.ok ? result.item : result.old;
    const status = item === undefined ? undefined : decodeTaskItem(ref.connector, item).status;
    return { counted: result.ok, status: status === undefined ? undefined : { ...ref, ...status } };
  }

  async endTaskRetry(
    ref: TaskRef,
    partitions: readonly string[],
    workerId: string,
  ): Promise<boolean> {
    const shared = sharesPartition(partitions);
    const result = await this.#table.update(
      connectorKey(ref.connector, KEYS.taskSk(ref.task)),
      {
        update:
          `SET #${ATTR.state} = :running, #${ATTR.workerId} = :workerId, ` +
          `#${ATTR.statusAt} = :statusAt, #${ATTR.formatVersion} = :v ` +
          `REMOVE #${ATTR.trace}, ${RETRY_ATTRS.map((a) => `#${a}`).join(', ')}`,
        condition: `${NOT_FAILED} AND ${shared.condition}`,
        values: {
          ':running': str('RUNNING'),
          ':failed': str('FAILED'),
          ':workerId': str(workerId),
          ':statusAt': num(this.#clock.now()),
          ':v': versionAttr(),
          ...shared.values,
        },
      },
      `end the retry run of ${ref.connector}-${ref.task}`,
      { returnValues: 'NONE', readOldOnFailure: false },
    );
    return result.ok;
  }

  async removeTaskStatus(ref: TaskRef): Promise<void> {
    await this.#table.update(
      connectorKey(ref.connector, KEYS.taskSk(ref.task)),
      {
        update: `REMOVE #${ATTR.state}, #${ATTR.workerId}, #${ATTR.statusAt}, #${ATTR.trace}, ${RETRY_ATTRS.map((a) => `#${a}`).join(', ')}`,
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
