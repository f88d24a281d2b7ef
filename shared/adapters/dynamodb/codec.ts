import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { ConnectError } from '../../connect/errors.js';
import type {
  ConfigMap,
  ConnectorRecord,
  TargetState,
  TaskConfigSet,
} from '../../ports/config-store.js';
import type { IdleStreak, Lease } from '../../ports/lease-store.js';
import type {
  CommittedSourceOffsets,
  OffsetRecordPosition,
  PendingSourceOffsets,
  SinkOffset,
  SourceOffsetEntry,
} from '../../ports/offset-store.js';
import type { Status, TaskState, TaskStatus } from '../../ports/status-store.js';
import { type Item, malformed, num, optN, optS, reqN, reqS, str } from './attributes.js';
import { ATTR, ITEM_FORMAT_VERSION, KEYS, STATE_TABLE } from './table-schema.js';

/**
 * Domain values ⇄ DynamoDB items, versioned by the `v` attribute.
 *
 * - v1 (and items without `v`): config maps and task-config lists stored as JSON strings (S).
 * - v2: config maps as native maps (M of S) and task configs as a list of maps (L of M), so
 *   the console shows them; JSON strings remain for source offsets, whose values are arbitrary
 *   JSON.
 * - v3: a `SINKOFFSET#` item's `offset` is the next offset to read (Kafka's committed
 *   offset); up to v2 it was the last record written. {@link decodeSinkOffset} reads an older
 *   item as `offset + 1` and {@link sinkOffsetCommit} compares against it the same way: the
 *   only two places that know the old meaning. Other item kinds are the same in v2 and v3.
 * - v4 (current): `SINKOFFSET#` items move from the connector's partition to the sharded
 *   partitions of {@link sinkOffsetKey} (table-schema.ts); their attributes are unchanged. The
 *   offset store still reads a connector's v3 items where they are ({@link legacySinkOffsetKey})
 *   and takes, per topic-partition, the further of the two; the first v4 commit of a partition
 *   deletes its v3 item once it is behind, and marks the connector's `TASKS` item v4, so that
 *   code before v4, which would not see the moved offsets, refuses the connector rather than
 *   rewinding it. Other item kinds are the same in v3 and v4.
 * - Within v4, `TASK#` items gained the optional idle-streak attributes (`idleCount`, `idleAt`,
 *   `idleVersion`, `idleGeneration`): absent reads as no streak, and code that predates them
 *   ignores them (it dispatches the task every run, as before), so no new version.
 * Older items are read as they are and upgraded when next rewritten. An item from a newer
 * format than this code knows is refused rather than misread.
 */

/** The first format whose sink offset items hold the next offset to read. */
const SINK_NEXT_OFFSET_VERSION = 3;

export function formatVersion(item: Item): number {
  const version = optN(item, ATTR.formatVersion) ?? 1;
  if (version > ITEM_FORMAT_VERSION) {
    throw new ConnectError(
      `State item ${item.pk?.S ?? '?'} / ${item.sk?.S ?? '?'} has format v${version}; this runtime reads up to v${ITEM_FORMAT_VERSION} (upgrade it)`,
    );
  }
  return version;
}

export function keyOf(pk: string, sk: string): Item {
  return { [STATE_TABLE.partitionKey.name]: str(pk), [STATE_TABLE.sortKey.name]: str(sk) };
}

export function connectorKey(connector: string, sk: string): Item {
  return keyOf(KEYS.connectorPk(connector), sk);
}

export const versionAttr = (): AttributeValue => num(ITEM_FORMAT_VERSION);

/**
 * A config map as a DynamoDB map of strings; as a JSON string (which `decodeConfig` also reads)
 * when it has a `__proto__` key, which the AWS SDK cannot carry in a map (its (de)serializers
 * assign map entries to plain objects, where that key sets the prototype instead).
 */
export function encodeConfig(config: ConfigMap): AttributeValue {
  if (Object.hasOwn(config, '__proto__')) return { S: JSON.stringify(config) };
  return { M: Object.fromEntries(Object.entries(config).map(([k, v]) => [k, str(v)])) };
}

function decodeConfig(item: Item, value: AttributeValue | undefined): ConfigMap {
  if (value?.S !== undefined) return parseJson(item, value.S) as ConfigMap;
  if (value?.M === undefined) throw malformed(item, 'config map missing');
  return Object.fromEntries(
    Object.entries(value.M).map(([k, v]) => {
      if (v.S === undefined) throw malformed(item, `config value ${k} is not a string`);
      return [k, v.S];
    }),
  );
}

export function decodeConnector(item: Item): ConnectorRecord {
  formatVersion(item);
  return {
    name: optS(item, ATTR.name) ?? reqS(item, ATTR.pk).slice(KEYS.connectorPk('').length),
    config: decodeConfig(item, item[ATTR.config]),
    version: reqN(item, ATTR.version),
    targetState: (optS(item, ATTR.target) ?? 'RUNNING') as TargetState,
    createdAt: optN(item, ATTR.createdAt) ?? 0,
    updatedAt: optN(item, ATTR.updatedAt) ?? 0,
  };
}

export function encodeConnector(record: ConnectorRecord): Item {
  return {
    ...connectorKey(record.name, KEYS.connectorSk),
    [ATTR.formatVersion]: versionAttr(),
    [STATE_TABLE.connectorIndex.partitionKey.name]: str(KEYS.connectorListPk),
    [STATE_TABLE.connectorIndex.sortKey.name]: str(record.name),
    [ATTR.name]: str(record.name),
    [ATTR.config]: encodeConfig(record.config),
    [ATTR.version]: num(record.version),
    [ATTR.target]: str(record.targetState),
    [ATTR.createdAt]: num(record.createdAt),
    [ATTR.updatedAt]: num(record.updatedAt),
  };
}

export function encodeTaskConfigs(set: TaskConfigSet, now: number): Item {
  return {
    ...connectorKey(set.connector, KEYS.tasksSk),
    [ATTR.formatVersion]: versionAttr(),
    [ATTR.version]: num(set.version),
    [ATTR.updatedAt]: num(now),
    [ATTR.tasks]: {
      L: set.tasks.map((entry) => ({
        M: { [ATTR.config]: encodeConfig(entry.config), [ATTR.generation]: num(entry.generation) },
      })),
    },
    ...(set.fencing === undefined || set.fencing.length === 0
      ? {}
      : { [ATTR.fencing]: { L: set.fencing.map((task) => num(task)) } }),
  };
}

export function decodeTaskConfigs(connector: string, item: Item | undefined): TaskConfigSet {
  if (item === undefined) return { connector, version: 0, tasks: [] };
  formatVersion(item);
  const raw = item[ATTR.tasks];
  const entries: { config: ConfigMap; generation: number }[] =
    raw?.S !== undefined
      ? (parseJson(item, raw.S) as { config: ConfigMap; generation: number }[])
      : (raw?.L ?? []).map((entry) => {
          const fields = entry.M ?? {};
          return {
            config: decodeConfig(item, fields[ATTR.config]),
            generation: Number(fields[ATTR.generation]?.N ?? Number.NaN),
          };
        });
  const fencing = (item[ATTR.fencing]?.L ?? []).map((entry) => Number(entry.N ?? Number.NaN));
  if (fencing.some((task) => !Number.isInteger(task))) {
    throw malformed(item, `${ATTR.fencing} must list task numbers`);
  }
  return {
    connector,
    version: reqN(item, ATTR.version),
    tasks: entries.map((entry, task) => ({
      task,
      config: entry.config,
      generation: entry.generation,
    })),
    ...(fencing.length === 0 ? {} : { fencing }),
  };
}

/** What a `TASK#n` item holds, decoded. */
export interface TaskItem {
  readonly task: number;
  readonly epoch: number | undefined;
  readonly lease: Lease | undefined;
  readonly idle: IdleStreak | undefined;
  readonly status: Omit<TaskStatus, 'connector' | 'task'> | undefined;
  readonly committed: CommittedSourceOffsets | undefined;
  readonly pending: PendingSourceOffsets | undefined;
}

export function decodeTaskItem(connector: string, item: Item): TaskItem {
  formatVersion(item);
  const task = optN(item, ATTR.task) ?? Number((item.sk?.S ?? '').slice(KEYS.taskPrefix.length));
  const epoch = optN(item, ATTR.epoch);
  const owner = optS(item, ATTR.owner);
  const state = optS(item, ATTR.state) as TaskState | undefined;
  const trace = optS(item, ATTR.trace);
  const retryAttempts = optN(item, ATTR.retryAttempts);
  const committedSeq = optN(item, ATTR.committedSeq);
  const pendingSeq = optN(item, ATTR.pendingSeq);
  const idleCount = optN(item, ATTR.idleCount);
  return {
    task,
    epoch,
    idle:
      idleCount === undefined
        ? undefined
        : {
            count: idleCount,
            endedAt: reqN(item, ATTR.idleAt),
            version: reqN(item, ATTR.idleVersion),
            generation: reqN(item, ATTR.idleGeneration),
          },
    lease:
      owner === undefined
        ? undefined
        : {
            connector,
            task,
            owner,
            epoch: epoch ?? 0,
            generation: reqN(item, ATTR.leaseGeneration),
            expiresAt: reqN(item, ATTR.expiresAt),
          },
    status:
      state === undefined
        ? undefined
        : {
            state,
            workerId: optS(item, ATTR.workerId) ?? '',
            ...(trace === undefined ? {} : { trace }),
            updatedAt: optN(item, ATTR.statusAt) ?? 0,
            ...(retryAttempts === undefined
              ? {}
              : {
                  retry: {
                    partitions: [...(item[ATTR.retryPartitions]?.SS ?? [])].sort(),
                    since: optN(item, ATTR.retrySince) ?? 0,
                    attempts: retryAttempts,
                  },
                }),
          },
    committed:
      committedSeq === undefined
        ? undefined
        : { seq: committedSeq, offsets: decodeJsonAttr(item, ATTR.committedOffsets, []) },
    pending:
      pendingSeq === undefined
        ? undefined
        : {
            seq: pendingSeq,
            offsets: decodeJsonAttr<SourceOffsetEntry[]>(item, ATTR.pendingOffsets, []),
            positions: decodeJsonAttr<OffsetRecordPosition[]>(item, ATTR.pendingPositions, []),
          },
  };
}

/** Where a topic-partition's sink offset is kept (v4): its shard's partition. */
export function sinkOffsetKey(connector: string, topic: string, partition: number): Item {
  return keyOf(KEYS.sinkOffsetPk(connector, topic, partition), KEYS.sinkOffsetSk(topic, partition));
}

/** Where a topic-partition's sink offset was kept up to v3: the connector's partition. */
export function legacySinkOffsetKey(connector: string, topic: string, partition: number): Item {
  return connectorKey(connector, KEYS.sinkOffsetSk(topic, partition));
}

/** A `SINKOFFSET#` item at the current format, holding `offset.nextOffset`. */
export function encodeSinkOffset(connector: string, offset: SinkOffset, now: number): Item {
  return {
    ...sinkOffsetKey(connector, offset.topic, offset.partition),
    [ATTR.formatVersion]: versionAttr(),
    [ATTR.topic]: str(offset.topic),
    [ATTR.partition]: num(offset.partition),
    [ATTR.offset]: num(offset.nextOffset),
    [ATTR.updatedAt]: num(now),
  };
}

/** A `SINKOFFSET#` item's position; items before v3 stored the last record written. */
export function decodeSinkOffset(item: Item): SinkOffset {
  const version = formatVersion(item);
  const stored = optN(item, ATTR.offset) ?? 0;
  return {
    topic: reqS(item, ATTR.topic),
    partition: reqN(item, ATTR.partition),
    nextOffset: version < SINK_NEXT_OFFSET_VERSION ? stored + 1 : stored,
  };
}

/**
 * The conditional update that moves a `SINKOFFSET#` item forward to `offset.nextOffset` and
 * rewrites it at the current format: it applies when the item has no offset or its position,
 * read as {@link decodeSinkOffset} reads it, is below `nextOffset`.
 */
export function sinkOffsetCommit(
  offset: SinkOffset,
  now: number,
): { update: string; condition: string; values: Record<string, AttributeValue> } {
  const { offset: at, formatVersion: v, topic, partition, updatedAt } = ATTR;
  return {
    update: `SET #${topic} = :topic, #${partition} = :partition, #${at} = :next, #${updatedAt} = :now, #${v} = :v`,
    condition:
      `attribute_not_exists(#${at})` +
      ` OR (#${v} >= :nextVersion AND #${at} < :next)` +
      ` OR ((attribute_not_exists(#${v}) OR #${v} < :nextVersion) AND #${at} < :lastWritten)`,
    values: {
      ':topic': str(offset.topic),
      ':partition': num(offset.partition),
      ':next': num(offset.nextOffset),
      ':lastWritten': num(offset.nextOffset - 1),
      ':now': num(now),
      ':v': versionAttr(),
      ':nextVersion': num(SINK_NEXT_OFFSET_VERSION),
    },
  };
}

export function decodeStatus(item: Item): Status {
  formatVersion(item);
  const trace = optS(item, ATTR.trace);
  return {
    state: reqS(item, ATTR.state) as Status['state'],
    workerId: optS(item, ATTR.workerId) ?? '',
    ...(trace === undefined ? {} : { trace }),
    updatedAt: optN(item, ATTR.statusAt) ?? 0,
  };
}

export function jsonAttr(value: unknown): AttributeValue {
  return str(JSON.stringify(value));
}

export function decodeJsonAttr<T>(item: Item, name: string, fallback: T): T {
  const raw = optS(item, name);
  return raw === undefined ? fallback : (parseJson(item, raw) as T);
}

function parseJson(item: Item, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw malformed(
      item,
      `invalid JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}
