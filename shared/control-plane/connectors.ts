/**
 * Connectors: list, create, read, update (PUT and PATCH), delete, task configs and active
 * topics (`ConnectorsResource` and the herder behind it). Validation always precedes the
 * existence check, as in Connect, so an invalid config for an existing name is a 400.
 */
import { type ConfigMap, type ConnectorRecord, MAX_ITEM_BYTES } from '../ports/config-store.js';
import {
  ConnectorExistsError,
  ConnectorNotFoundError,
  StaleVersionError,
} from '../ports/errors.js';
import type { CostApi, CostContext } from './cost.js';
import type {
  ActiveTopics,
  ConnectorExpansion,
  ConnectorInfo,
  ConnectorType,
  TaskInfo,
} from './dto.js';
import { BadRequestError, ForbiddenError, RestConflictError, RestError } from './errors.js';
import type { ConfigInput, CreateConnectorRequest } from './request-body.js';
import {
  type ConnectorSnapshot,
  isStorableName,
  MAX_CONNECTOR_NAME_BYTES,
  readSnapshot,
  requireConnector,
  requireConnectorWithTasks,
  type ServiceContext,
  snapshotStatus,
  typeOf,
  utf8Bytes,
  visibleTaskIds,
} from './service-context.js';

/** How often a write that lost a race is retried before answering 409. */
const WRITE_ATTEMPTS = 3;
/** Connectors expanded at once by `GET /connectors?expand=…`. */
const EXPAND_CONCURRENCY = 16;
/** Room left in a state item for everything beside the config map. */
const ITEM_OVERHEAD_BYTES = 8 * 1024;

export interface TopicTrackingOptions {
  /** Connect's `topic.tracking.enable`. @default true */
  readonly enabled?: boolean;
  /** Connect's `topic.tracking.allow.reset`. @default true */
  readonly allowReset?: boolean;
}

/** The result of `PUT /connectors/{c}/config`. */
export interface PutConfigResult {
  readonly created: boolean;
  readonly info: ConnectorInfo;
}

/** `props` with `name` inserted, or 400 when its `name` differs (Connect's wording). */
function withName(name: string, config: ConfigInput): ConfigInput {
  if (!Object.hasOwn(config, 'name')) return { ...config, name };
  const included = config.name;
  if (included !== name) {
    throw new BadRequestError(
      `Connector name configuration (${included}) doesn't match connector name in the URL (${name})`,
    );
  }
  return config;
}

/** A validated config (no null values remain) as stored. */
function stored(config: ConfigInput): ConfigMap {
  return Object.fromEntries(
    Object.entries(config).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}

function assertStorable(name: string, config: ConfigMap): void {
  const nameBytes = utf8Bytes(name);
  if (nameBytes > MAX_CONNECTOR_NAME_BYTES) {
    throw new BadRequestError(
      `Connector name is ${nameBytes} bytes long; at most ${MAX_CONNECTOR_NAME_BYTES} bytes (UTF-8) are allowed`,
    );
  }
  const size = utf8Bytes(JSON.stringify(config));
  const limit = MAX_ITEM_BYTES - ITEM_OVERHEAD_BYTES;
  if (size > limit) {
    throw new RestError(
      413,
      `The connector config takes ${size} bytes; at most ${limit} bytes fit in one state item`,
    );
  }
}

async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await fn(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export class ConnectorsApi {
  readonly #ctx: ServiceContext;
  readonly #topics: Required<TopicTrackingOptions>;
  readonly #cost: CostApi | undefined;

  /** `cost`: serves `expand=cost` (our extension); without it the expansion is ignored. */
  constructor(ctx: ServiceContext, topics: TopicTrackingOptions = {}, cost?: CostApi) {
    this.#ctx = ctx;
    this.#topics = { enabled: topics.enabled ?? true, allowReset: topics.allowReset ?? true };
    this.#cost = cost;
  }

  /** Every connector name, ascending (all pages). */
  async names(): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.#ctx.store.configs.listConnectors(
        cursor === undefined ? {} : { cursor },
      );
      names.push(...page.names);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return names;
  }

  /**
   * `GET /connectors`: the names, or with `expand` (case-insensitive `status`, `info`, and our
   * `cost`; others ignored) a map of each connector's expansions. A connector deleted meanwhile
   * has no `status`, and `info: null`, `cost: null`.
   */
  async list(expand: readonly string[]): Promise<string[] | Record<string, ConnectorExpansion>> {
    const names = await this.names();
    if (expand.length === 0) return names;
    const wanted = new Set(expand.map((e) => e.toLowerCase()));
    const withStatus = wanted.has('status');
    const withInfo = wanted.has('info');
    const costs: CostContext | undefined =
      wanted.has('cost') && this.#cost !== undefined ? await this.#cost.context() : undefined;
    const entries = await mapLimited(names, EXPAND_CONCURRENCY, async (name) => {
      const expansion: ConnectorExpansion = {};
      if (!withStatus && !withInfo && costs === undefined) return [name, expansion] as const;
      const snapshot = await this.#snapshotIfExists(name, withStatus);
      if (withStatus && snapshot !== undefined) {
        expansion.status = snapshotStatus(this.#ctx, snapshot);
      }
      if (withInfo) {
        expansion.info =
          snapshot === undefined
            ? null
            : this.#info(
                snapshot.record,
                typeOf(this.#ctx, snapshot.record.config),
                visibleTaskIds(snapshot.record, snapshot.tasks),
              );
      }
      if (costs !== undefined) {
        expansion.cost =
          snapshot === undefined
            ? null
            : await (this.#cost as CostApi).reportFor(snapshot.record, costs);
      }
      return [name, expansion] as const;
    });
    return Object.fromEntries(entries);
  }

  /** The connector's snapshot (statuses only when `withStatus`), or undefined once deleted. */
  async #snapshotIfExists(
    name: string,
    withStatus: boolean,
  ): Promise<ConnectorSnapshot | undefined> {
    try {
      if (withStatus) return await readSnapshot(this.#ctx, name);
      const { record, tasks } = await requireConnectorWithTasks(this.#ctx, name);
      return { record, tasks, status: undefined, taskStatuses: [] };
    } catch (error) {
      if (error instanceof ConnectorNotFoundError) return undefined;
      throw error;
    }
  }

  #info(
    record: ConnectorRecord,
    type: ConnectorType,
    tasks: ConnectorInfo['tasks'],
  ): ConnectorInfo {
    return { name: record.name, config: record.config, tasks, type };
  }

  /** `POST /connectors`: validate, then create (409 when the name is taken). */
  async create(request: CreateConnectorRequest): Promise<ConnectorInfo> {
    const { name, initialState } = request;
    if (name === '') throw new BadRequestError('Connector name is required');
    const props = withName(name, request.config);
    const descriptor = await this.#ctx.validator.assertValid(props);
    const config = stored(props);
    assertStorable(name, config);
    const record = await this.#ctx.store.configs.createConnector(
      name,
      config,
      initialState === undefined ? {} : { initialState },
    );
    this.#ctx.nudge(name);
    return this.#info(record, descriptor.type, []);
  }

  /** `GET /connectors/{c}`. */
  async info(name: string): Promise<ConnectorInfo> {
    const { record, tasks } = await requireConnectorWithTasks(this.#ctx, name);
    return this.#info(record, typeOf(this.#ctx, record.config), visibleTaskIds(record, tasks));
  }

  /** `GET /connectors/{c}/config`: as stored (secrets and placeholders unresolved). */
  async config(name: string): Promise<ConfigMap> {
    return (await requireConnector(this.#ctx, name)).config;
  }

  /** `PUT /connectors/{c}/config`: creates (target RUNNING) or replaces the config. */
  async putConfig(name: string, input: ConfigInput): Promise<PutConfigResult> {
    const props = withName(name, input);
    const descriptor = await this.#ctx.validator.assertValid(props);
    const config = stored(props);
    assertStorable(name, config);
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt += 1) {
      const [existing, tasks] = await Promise.all([
        this.#ctx.store.configs.getConnector(name),
        this.#ctx.store.configs.getTaskConfigs(name),
      ]);
      try {
        if (existing === undefined) {
          const record = await this.#ctx.store.configs.createConnector(name, config);
          this.#ctx.nudge(name);
          return { created: true, info: this.#info(record, descriptor.type, []) };
        }
        const record = await this.#ctx.store.configs.updateConnector(
          name,
          config,
          existing.version,
        );
        this.#ctx.nudge(name);
        return {
          created: false,
          info: this.#info(record, descriptor.type, visibleTaskIds(record, tasks)),
        };
      } catch (error) {
        if (!(error instanceof ConnectorExistsError || error instanceof StaleVersionError)) {
          throw error;
        }
      }
    }
    throw new RestConflictError(`Connector ${name} was changed concurrently; retry the request`);
  }

  /**
   * `PATCH /connectors/{c}/config` (KIP-477): merges `patch` into the stored config (`null`
   * removes a key), validates the result and writes it. A changed `name` is a 400.
   */
  async patchConfig(name: string, patch: ConfigInput): Promise<ConnectorInfo> {
    if (Object.hasOwn(patch, 'name') && patch.name !== null && patch.name !== name) {
      throw new BadRequestError(
        `Connector name configuration (${patch.name}) doesn't match connector name in the URL (${name})`,
      );
    }
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt += 1) {
      const { record: existing, tasks } = await requireConnectorWithTasks(this.#ctx, name);
      const merged = new Map<string, string | null>(Object.entries(existing.config));
      for (const [key, value] of Object.entries(patch)) {
        if (value === null) merged.delete(key);
        else merged.set(key, value);
      }
      const props = withName(name, Object.fromEntries(merged));
      const descriptor = await this.#ctx.validator.assertValid(props);
      const config = stored(props);
      assertStorable(name, config);
      try {
        const record = await this.#ctx.store.configs.updateConnector(
          name,
          config,
          existing.version,
        );
        this.#ctx.nudge(name);
        return this.#info(record, descriptor.type, visibleTaskIds(record, tasks));
      } catch (error) {
        if (!(error instanceof StaleVersionError)) throw error;
      }
    }
    throw new RestConflictError(`Connector ${name} was changed concurrently; retry the request`);
  }

  /**
   * `DELETE /connectors/{c}`: offsets are kept, so a connector re-created by name resumes; its
   * active topics go with it (Apache's herder resets the topics of a deleted connector).
   */
  async delete(name: string): Promise<void> {
    await requireConnector(this.#ctx, name);
    await this.#ctx.store.configs.deleteConnector(name, { keepOffsets: true });
    this.#ctx.nudge(name);
  }

  /** `GET /connectors/{c}/tasks`. */
  async tasks(name: string): Promise<TaskInfo[]> {
    const { record, tasks } = await requireConnectorWithTasks(this.#ctx, name);
    if (record.targetState === 'STOPPED') return [];
    return tasks.tasks.map((t) => ({ id: { connector: name, task: t.task }, config: t.config }));
  }

  /** `GET /connectors/{c}/tasks-config` (deprecated in 3.7, removed in 4.0). */
  async tasksConfig(name: string): Promise<Record<string, ConfigMap>> {
    const infos = await this.tasks(name);
    return Object.fromEntries(infos.map((t) => [`${name}-${t.id.task}`, t.config]));
  }

  /** `GET /connectors/{c}/topics`: an unknown name has no topics (no 404, as in Connect). */
  async topics(name: string): Promise<ActiveTopics> {
    if (!this.#topics.enabled) throw new ForbiddenError('Topic tracking is disabled.');
    const topics = isStorableName(name) ? await this.#ctx.store.topics.listActiveTopics(name) : [];
    return Object.fromEntries([[name, { topics }]]);
  }

  /**
   * `PUT /connectors/{c}/topics/reset`: forgets the connector's active topics. Only while it is
   * STOPPED with no task configs left, else 409: running tasks would not record their topics
   * again (the runtime remembers, per task generation, what it recorded), while tasks started
   * by a resume run at a new generation and record afresh (DEVIATIONS.md; Apache resets in any
   * state). An unknown name is reset too (202, nothing to forget), as in Connect.
   */
  async resetTopics(name: string): Promise<void> {
    if (!this.#topics.enabled) throw new ForbiddenError('Topic tracking is disabled.');
    if (!this.#topics.allowReset) throw new ForbiddenError('Topic tracking reset is disabled.');
    if (!isStorableName(name)) return;
    const [record, tasks] = await Promise.all([
      this.#ctx.store.configs.getConnector(name),
      this.#ctx.store.configs.getTaskConfigs(name),
    ]);
    if (record !== undefined && record.targetState !== 'STOPPED') {
      throw new RestConflictError(
        `Connector ${name} is ${record.targetState}: its active topics can be reset only while it is STOPPED. Stop it first with a 'PUT' request to the '/connectors/${name}/stop' endpoint`,
      );
    }
    if (record !== undefined && tasks.tasks.length > 0) {
      throw new RestConflictError(
        `Connector ${name} is still stopping its tasks; retry the reset of its active topics in a few seconds`,
      );
    }
    await this.#ctx.store.topics.resetActiveTopics(name);
  }
}
