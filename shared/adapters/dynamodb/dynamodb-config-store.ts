import { ConfigError, ConflictError } from '../../connect/errors.js';
import type { Clock } from '../../ports/clock.js';
import {
  type ConfigMap,
  type ConfigStore,
  type ConnectorPage,
  type ConnectorRecord,
  type CreateConnectorOptions,
  type DeleteConnectorOptions,
  isLegalTransition,
  type ListConnectorsOptions,
  MAX_ITEM_BYTES,
  nextTaskConfigSet,
  statesReaching,
  type TargetState,
  type TargetStateChange,
  type TaskConfigSet,
} from '../../ports/config-store.js';
import {
  ConnectorExistsError,
  ConnectorNotFoundError,
  InvalidTransitionError,
  ItemTooLargeError,
  StaleVersionError,
} from '../../ports/errors.js';
import { type Item, itemSize, num, optN, str } from './attributes.js';
import {
  connectorKey,
  decodeConnector,
  decodeTaskConfigs,
  encodeConfig,
  encodeConnector,
  encodeTaskConfigs,
  versionAttr,
} from './codec.js';
import { sinkOffsetItems } from './dynamodb-sink-offsets.js';
import type { DynamoTable } from './table.js';
import { ATTR, KEYS, STATE_TABLE } from './table-schema.js';

const MAX_PAGE = 1000;

/** Attributes of a TASK# item that describe a live invocation (removed when offsets are kept). */
const LIVE_TASK_ATTRS = [
  ATTR.owner,
  ATTR.expiresAt,
  ATTR.leaseGeneration,
  ATTR.state,
  ATTR.workerId,
  ATTR.trace,
  ATTR.statusAt,
];

/** ConfigStore over the state table: items `CONNECTOR` and `TASKS`. */
export class DynamoDbConfigStore implements ConfigStore {
  readonly #table: DynamoTable;
  readonly #clock: Clock;

  constructor(table: DynamoTable, clock: Clock) {
    this.#table = table;
    this.#clock = clock;
  }

  async createConnector(
    name: string,
    config: ConfigMap,
    options: CreateConnectorOptions = {},
  ): Promise<ConnectorRecord> {
    const now = this.#clock.now();
    const record: ConnectorRecord = {
      name,
      config: { ...config },
      version: 1,
      targetState: options.initialState ?? 'RUNNING',
      createdAt: now,
      updatedAt: now,
    };
    const result = await this.#table.put(
      encodeConnector(record),
      { condition: `attribute_not_exists(#${ATTR.pk})` },
      `create connector ${name}`,
      { readOldOnFailure: false },
    );
    if (!result.ok) throw new ConnectorExistsError(name);
    return record;
  }

  async updateConnector(
    name: string,
    config: ConfigMap,
    expectedVersion: number,
  ): Promise<ConnectorRecord> {
    const result = await this.#table.update(
      connectorKey(name, KEYS.connectorSk),
      {
        update: `SET #${ATTR.config} = :config, #${ATTR.version} = :next, #${ATTR.updatedAt} = :now, #${ATTR.formatVersion} = :v`,
        condition: `#${ATTR.version} = :expected`,
        values: {
          ':config': encodeConfig(config),
          ':next': num(expectedVersion + 1),
          ':expected': num(expectedVersion),
          ':now': num(this.#clock.now()),
          ':v': versionAttr(),
        },
      },
      `update connector ${name}`,
    );
    if (result.ok) return decodeConnector(result.item);
    if (result.old === undefined) throw new ConnectorNotFoundError(name);
    throw new StaleVersionError(
      `config of ${name}`,
      expectedVersion,
      optN(result.old, ATTR.version),
    );
  }

  async getConnector(name: string): Promise<ConnectorRecord | undefined> {
    const item = await this.#table.get(
      connectorKey(name, KEYS.connectorSk),
      `get connector ${name}`,
    );
    return item === undefined ? undefined : decodeConnector(item);
  }

  async listConnectors(options: ListConnectorsOptions = {}): Promise<ConnectorPage> {
    const limit = options.limit ?? MAX_PAGE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
      throw new ConfigError(`limit must be an integer in 1..${MAX_PAGE}, got ${limit}`, 'limit');
    }
    const index = STATE_TABLE.connectorIndex;
    const names: string[] = [];
    let start: Item | undefined =
      options.cursor === undefined ? undefined : startKeyAfter(decodeCursor(options.cursor));
    // Read one name past the page to know whether another page follows.
    do {
      const out = await this.#table.rawQuery(
        {
          TableName: this.#table.name,
          IndexName: index.name,
          KeyConditionExpression: `#${index.partitionKey.name} = :list`,
          ExpressionAttributeNames: { [`#${index.partitionKey.name}`]: index.partitionKey.name },
          ExpressionAttributeValues: { ':list': str(KEYS.connectorListPk) },
          Limit: limit + 1 - names.length,
          ...(start === undefined ? {} : { ExclusiveStartKey: start }),
        },
        'list connectors',
      );
      for (const item of out.Items ?? []) {
        const name = item[index.sortKey.name]?.S;
        if (name !== undefined) names.push(name);
      }
      start = out.LastEvaluatedKey;
    } while (start !== undefined && names.length <= limit);
    const page = names.slice(0, limit);
    const last = page.at(-1);
    return names.length > limit && last !== undefined
      ? { names: page, nextCursor: encodeCursor(last) }
      : { names: page };
  }

  async deleteConnector(name: string, options: DeleteConnectorOptions = {}): Promise<void> {
    const operation = `delete connector ${name}`;
    // The config goes first: from then on the connector does not exist for anyone.
    const removed = await this.#table.delete(
      connectorKey(name, KEYS.connectorSk),
      { condition: `attribute_exists(#${ATTR.pk})` },
      operation,
      { readOldOnFailure: false },
    );
    if (!removed.ok) throw new ConnectorNotFoundError(name);
    const { partitionKey, sortKey } = STATE_TABLE;
    const keys = await this.#table.query(KEYS.connectorPk(name), undefined, operation, [
      partitionKey.name,
      sortKey.name,
    ]);
    const keep = (sk: string) =>
      options.keepOffsets === true &&
      (sk.startsWith(KEYS.sinkOffsetPrefix) || sk.startsWith(KEYS.taskPrefix));
    // Sink offsets in their shards (v4; the connector's partition holds only v3 ones).
    const sinkOffsetKeys =
      options.keepOffsets === true
        ? []
        : (
            await sinkOffsetItems(this.#table, name, operation, [partitionKey.name, sortKey.name])
          ).filter((key) => key[partitionKey.name]?.S !== KEYS.connectorPk(name));
    await this.#table.deleteAll(
      [...keys.filter((key) => !keep(key[sortKey.name]?.S ?? '')), ...sinkOffsetKeys],
      operation,
    );
    if (options.keepOffsets !== true) return;
    const taskKeys = keys.filter((key) => key[sortKey.name]?.S?.startsWith(KEYS.taskPrefix));
    await Promise.all(
      taskKeys.map((key) =>
        this.#table.update(
          key,
          {
            update: `REMOVE ${LIVE_TASK_ATTRS.map((attr) => `#${attr}`).join(', ')}`,
            condition: `attribute_exists(#${ATTR.pk})`,
          },
          operation,
          { readOldOnFailure: false },
        ),
      ),
    );
  }

  async setTargetState(name: string, to: TargetState): Promise<TargetStateChange> {
    const from = statesReaching(to);
    const values = Object.fromEntries(from.map((state, i) => [`:from${i}`, str(state)]));
    // A failed condition whose fresh read shows a legal start state lost a race with another
    // change; the transition is judged again against that state.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const result = await this.#table.update(
        connectorKey(name, KEYS.connectorSk),
        {
          update: `SET #${ATTR.target} = :to`,
          condition: `attribute_exists(#${ATTR.pk}) AND #${ATTR.target} IN (${Object.keys(values).join(', ')})`,
          values: { ...values, ':to': str(to) },
        },
        `set target state of ${name}`,
        { returnValues: 'ALL_OLD' },
      );
      if (result.ok) return { from: decodeConnector(result.item).targetState, to };
      if (result.old === undefined) throw new ConnectorNotFoundError(name);
      const current = decodeConnector(result.old).targetState;
      if (!isLegalTransition(current, to)) throw new InvalidTransitionError(name, current, to);
    }
    throw new ConflictError(`The target state of ${name} keeps changing; retry`);
  }

  async putTaskConfigs(
    name: string,
    configs: readonly ConfigMap[],
    expectedVersion: number,
  ): Promise<TaskConfigSet> {
    const operation = `write task configs of ${name}`;
    const [connectorItem, tasksItem] = await this.#table.getMany(
      [connectorKey(name, KEYS.connectorSk), connectorKey(name, KEYS.tasksSk)],
      operation,
    );
    if (connectorItem === undefined) throw new ConnectorNotFoundError(name);
    const current = decodeTaskConfigs(name, tasksItem);
    if (current.version !== expectedVersion) {
      throw new StaleVersionError(`task configs of ${name}`, expectedVersion, current.version);
    }
    const next = nextTaskConfigSet(current, configs);
    if (next === undefined) return current;
    const item = encodeTaskConfigs(next, this.#clock.now());
    const size = itemSize(item);
    if (size > MAX_ITEM_BYTES) {
      throw new ItemTooLargeError(`task configs of ${name}`, size, MAX_ITEM_BYTES);
    }
    const result = await this.#table.put(
      item,
      {
        condition:
          current.version === 0
            ? `attribute_not_exists(#${ATTR.pk})`
            : `#${ATTR.version} = :expected`,
        ...(current.version === 0 ? {} : { values: { ':expected': num(current.version) } }),
      },
      `task configs of ${name}`,
    );
    if (result.ok) return next;
    throw new StaleVersionError(
      `task configs of ${name}`,
      expectedVersion,
      result.old === undefined ? 0 : optN(result.old, ATTR.version),
    );
  }

  async getTaskConfigs(name: string): Promise<TaskConfigSet> {
    const item = await this.#table.get(
      connectorKey(name, KEYS.tasksSk),
      `get task configs of ${name}`,
    );
    return decodeTaskConfigs(name, item);
  }

  async clearFencing(name: string, expectedVersion: number): Promise<TaskConfigSet> {
    const result = await this.#table.update(
      connectorKey(name, KEYS.tasksSk),
      {
        update: `REMOVE #${ATTR.fencing}`,
        condition: `#${ATTR.version} = :expected`,
        values: { ':expected': num(expectedVersion) },
      },
      `clear the fencing list of ${name}`,
    );
    if (result.ok) return decodeTaskConfigs(name, result.item);
    throw new StaleVersionError(
      `task configs of ${name}`,
      expectedVersion,
      result.old === undefined ? 0 : optN(result.old, ATTR.version),
    );
  }
}

function encodeCursor(name: string): string {
  return Buffer.from(name, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  return Buffer.from(cursor, 'base64url').toString('utf8');
}

/** The index position just after connector `name`. */
function startKeyAfter(name: string): Item {
  const index = STATE_TABLE.connectorIndex;
  return {
    ...connectorKey(name, KEYS.connectorSk),
    [index.partitionKey.name]: str(KEYS.connectorListPk),
    [index.sortKey.name]: str(name),
  };
}
