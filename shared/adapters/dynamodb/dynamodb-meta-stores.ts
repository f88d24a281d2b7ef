import { ConnectError } from '../../connect/errors.js';
import type { Clock } from '../../ports/clock.js';
import type {
  LoggerLevel,
  LoggerLevelStore,
  PendingRestart,
  RestartRequest,
  RestartStore,
  TopicStore,
} from '../../ports/connector-meta-store.js';
import { bool, type Item, num, optBool, reqN, reqS, str } from './attributes.js';
import { connectorKey, formatVersion, keyOf, versionAttr } from './codec.js';
import type { DynamoTable } from './table.js';
import { ATTR, KEYS, STATE_TABLE } from './table-schema.js';

/** Completed restart requests linger this long before TTL may delete them. */
const COMPLETED_RESTART_TTL_SECONDS = 7 * 24 * 3600;

/** TopicStore over `TOPIC#<topic>` items. */
export class DynamoDbTopicStore implements TopicStore {
  readonly #table: DynamoTable;
  readonly #clock: Clock;

  constructor(table: DynamoTable, clock: Clock) {
    this.#table = table;
    this.#clock = clock;
  }

  async recordActiveTopic(connector: string, topic: string): Promise<boolean> {
    const result = await this.#table.put(
      {
        ...connectorKey(connector, KEYS.topicSk(topic)),
        [ATTR.formatVersion]: versionAttr(),
        [ATTR.topic]: str(topic),
        [ATTR.createdAt]: num(this.#clock.now()),
      },
      { condition: `attribute_not_exists(#${ATTR.pk})` },
      `record active topic ${topic} of ${connector}`,
      { readOldOnFailure: false },
    );
    return result.ok;
  }

  async listActiveTopics(connector: string): Promise<string[]> {
    const items = await this.#table.query(
      KEYS.connectorPk(connector),
      KEYS.topicPrefix,
      `list the active topics of ${connector}`,
    );
    return items.map((item) => reqS(item, ATTR.topic)).sort();
  }

  async resetActiveTopics(connector: string): Promise<void> {
    const operation = `reset the active topics of ${connector}`;
    const { partitionKey, sortKey } = STATE_TABLE;
    const keys = await this.#table.query(KEYS.connectorPk(connector), KEYS.topicPrefix, operation, [
      partitionKey.name,
      sortKey.name,
    ]);
    await this.#table.deleteAll(keys, operation);
  }
}

/** RestartStore over the `RESTART` item (kept after completion so `seq` keeps increasing). */
export class DynamoDbRestartStore implements RestartStore {
  readonly #table: DynamoTable;
  readonly #clock: Clock;

  constructor(table: DynamoTable, clock: Clock) {
    this.#table = table;
    this.#clock = clock;
  }

  async requestRestart(connector: string, request: RestartRequest): Promise<PendingRestart> {
    const result = await this.#table.update(
      connectorKey(connector, KEYS.restartSk),
      {
        update: `SET #${ATTR.onlyFailed} = :onlyFailed, #${ATTR.includeTasks} = :includeTasks, #${ATTR.requestedAt} = :now, #${ATTR.formatVersion} = :v REMOVE #${ATTR.completedSeq}, #${ATTR.ttl} ADD #${ATTR.seq} :one`,
        values: {
          ':onlyFailed': bool(request.onlyFailed),
          ':includeTasks': bool(request.includeTasks),
          ':now': num(this.#clock.now()),
          ':v': versionAttr(),
          ':one': num(1),
        },
      },
      `request a restart of ${connector}`,
    );
    if (!result.ok) throw new ConnectError(`Restart request of ${connector} not written`);
    return decodeRestart(connector, result.item);
  }

  async getRestartRequest(connector: string): Promise<PendingRestart | undefined> {
    const item = await this.#table.get(
      connectorKey(connector, KEYS.restartSk),
      `read the restart request of ${connector}`,
    );
    if (item === undefined || item[ATTR.completedSeq] !== undefined) return undefined;
    return decodeRestart(connector, item);
  }

  async completeRestart(connector: string, seq: number): Promise<boolean> {
    const result = await this.#table.update(
      connectorKey(connector, KEYS.restartSk),
      {
        update: `SET #${ATTR.completedSeq} = :seq, #${ATTR.ttl} = :ttl`,
        condition: `#${ATTR.seq} = :seq AND attribute_not_exists(#${ATTR.completedSeq})`,
        values: {
          ':seq': num(seq),
          ':ttl': num(Math.floor(this.#clock.now() / 1000) + COMPLETED_RESTART_TTL_SECONDS),
        },
      },
      `complete the restart of ${connector}`,
      { readOldOnFailure: false },
    );
    return result.ok;
  }
}

function decodeRestart(connector: string, item: Item): PendingRestart {
  formatVersion(item);
  return {
    connector,
    onlyFailed: optBool(item, ATTR.onlyFailed) ?? false,
    includeTasks: optBool(item, ATTR.includeTasks) ?? false,
    seq: reqN(item, ATTR.seq),
    requestedAt: reqN(item, ATTR.requestedAt),
  };
}

/** LoggerLevelStore over `LOGGER#<name>` items in the reserved `LOGGERS` partition. */
export class DynamoDbLoggerLevelStore implements LoggerLevelStore {
  readonly #table: DynamoTable;
  readonly #clock: Clock;

  constructor(table: DynamoTable, clock: Clock) {
    this.#table = table;
    this.#clock = clock;
  }

  async setLoggerLevel(logger: string, level: string): Promise<LoggerLevel> {
    const stored: LoggerLevel = { logger, level, lastModified: this.#clock.now() };
    await this.#table.put(
      {
        ...keyOf(KEYS.loggersPk, KEYS.loggerSk(logger)),
        [ATTR.formatVersion]: versionAttr(),
        [ATTR.logger]: str(logger),
        [ATTR.level]: str(level),
        [ATTR.lastModified]: num(stored.lastModified),
      },
      {},
      `set the level of logger ${logger}`,
    );
    return stored;
  }

  async getLoggerLevel(logger: string): Promise<LoggerLevel | undefined> {
    const item = await this.#table.get(
      keyOf(KEYS.loggersPk, KEYS.loggerSk(logger)),
      `read the level of logger ${logger}`,
    );
    return item === undefined ? undefined : decodeLogger(item);
  }

  async listLoggerLevels(): Promise<LoggerLevel[]> {
    const items = await this.#table.query(KEYS.loggersPk, KEYS.loggerPrefix, 'list logger levels');
    return items
      .map(decodeLogger)
      .sort((a, b) => (a.logger < b.logger ? -1 : a.logger > b.logger ? 1 : 0));
  }
}

function decodeLogger(item: Item): LoggerLevel {
  formatVersion(item);
  return {
    logger: reqS(item, ATTR.logger),
    level: reqS(item, ATTR.level),
    lastModified: reqN(item, ATTR.lastModified),
  };
}
