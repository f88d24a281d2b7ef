/**
 * Connector offsets (KIP-875): `GET`, `PATCH` and `DELETE /connectors/{c}/offsets`, with
 * Connect's check order for PATCH: (1) a non-empty `offsets` list, (2) the connector exists,
 * (3) it is STOPPED with no task configs, (4) the entries have the right format, (5) write.
 *
 * Source offsets are changed through the offset store's admin entry, which the runtime's
 * lookup prefers (its entries are stamped newer than every task's) until a task advances the
 * partition again; a source connector must also have finished the stop's zombie-fencing round
 * (no task of an older generation can still commit over the change): the request runs that
 * round itself when the enumerator has not yet, as Connect fences zombies inside the request
 * (runtime/enumerator/zombie-fencing.ts), and re-checks steps 2 and 3 after it.
 *
 * Sink offsets use Kafka's meaning of `kafka_offset`, the NEXT offset to consume, as Connect
 * reports its consumer group's committed offsets. The offset store keeps the same meaning (the
 * next record to read), so values pass through unchanged both ways.
 */
import { resolvePlaceholders } from '../config/config-providers.js';
import { ConflictError, ConnectError } from '../connect/errors.js';
import type { SourcePartitionOffset } from '../connect/records.js';
import { knownSourcePartitions } from '../ports/admin-source-offsets.js';
import type { ConfigMap, TaskConfigSet } from '../ports/config-store.js';
import { ConnectorNotStoppedError } from '../ports/errors.js';
import type { SinkOffsetAlteration, SourceOffsetEntry } from '../ports/offset-store.js';
import { DEFAULT_ENUMERATOR_SETTINGS } from '../runtime/enumerator/enumerator-types.js';
import {
  fenceZombiesWithin,
  type ZombieFencingDeps,
} from '../runtime/enumerator/zombie-fencing.js';
import { sourcePartitionKey } from '../runtime/source/offsets-topic.js';
import type { ConnectorOffset, ConnectorOffsets, Message } from './dto.js';
import { BadRequestError, RestConflictError } from './errors.js';
import { type ConnectorDescriptor, findConnectorPlugin } from './plugin-catalog.js';
import { isJsonObject, type JsonObject, requireObject } from './request-body.js';
import { requireConnectorWithTasks, type ServiceContext } from './service-context.js';

const KAFKA_TOPIC = 'kafka_topic';
const KAFKA_PARTITION = 'kafka_partition';
const KAFKA_OFFSET = 'kafka_offset';
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;
const INTEGER = /^[+-]?\d+$/;
const INT32_MAX = 2 ** 31 - 1;

const ALTERED = 'The offsets for this connector have been altered successfully';
const ALTERED_FRAMEWORK_ONLY =
  'The Connect framework-managed offsets for this connector have been altered successfully. However, if this connector manages offsets externally, they will need to be manually altered in the system that the connector uses.';
const RESET = 'The offsets for this connector have been reset successfully';
const RESET_FRAMEWORK_ONLY =
  'The Connect framework-managed offsets for this connector have been reset successfully. However, if this connector manages offsets externally, they will need to be manually reset in the system that the connector uses.';

/** One entry of a PATCH body, shape-checked. */
interface OffsetEntry {
  readonly partition: JsonObject | null;
  readonly offset: JsonObject | null;
}

function unrecognized(field: string, where: string, known: string): BadRequestError {
  return new BadRequestError(`Unrecognized field "${field}" in ${where} (known fields: ${known})`);
}

/** Step 1: `{"offsets": [ {"partition": {…}|null, "offset": {…}|null}, … ]}`, non-empty. */
export function parseOffsetsBody(value: unknown): OffsetEntry[] {
  const body = requireObject(value, 'The offsets request');
  const extra = Object.keys(body).find((key) => key !== 'offsets');
  if (extra !== undefined) throw unrecognized(extra, 'the offsets request', '"offsets"');
  const offsets = body.offsets;
  if (
    offsets === undefined ||
    offsets === null ||
    (Array.isArray(offsets) && offsets.length === 0)
  ) {
    throw new BadRequestError('Partitions / offsets need to be provided in order to alter offsets');
  }
  if (!Array.isArray(offsets)) throw new BadRequestError('"offsets" must be a JSON array');
  return offsets.map((item: unknown) => {
    const entry = requireObject(item, 'Each element of "offsets"');
    const field = Object.keys(entry).find((key) => key !== 'partition' && key !== 'offset');
    if (field !== undefined) throw unrecognized(field, 'an offset', '"partition", "offset"');
    const part = (name: 'partition' | 'offset'): JsonObject | null => {
      const raw = entry[name] ?? null;
      if (raw !== null && !isJsonObject(raw)) {
        throw new BadRequestError(`The "${name}" of an offset must be a JSON object or null`);
      }
      return raw;
    };
    return { partition: part('partition'), offset: part('offset') };
  });
}

/** Java's `String.valueOf` of a JSON scalar. */
function text(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
}

/** Step 4 for sinks (Connect's `SinkUtils.parseSinkConnectorOffsets`), plus non-negative values. */
function parseSinkEntries(entries: readonly OffsetEntry[]): Map<string, SinkOffsetAlteration> {
  const parsed = new Map<string, SinkOffsetAlteration>();
  for (const { partition, offset } of entries) {
    if (partition === null) {
      throw new BadRequestError(
        'The partition for a sink connector offset cannot be null or missing',
      );
    }
    if (!Object.hasOwn(partition, KAFKA_TOPIC) || !Object.hasOwn(partition, KAFKA_PARTITION)) {
      throw new BadRequestError(
        `The partition for a sink connector offset must contain the keys '${KAFKA_TOPIC}' and '${KAFKA_PARTITION}'`,
      );
    }
    const topic = text(partition[KAFKA_TOPIC]);
    if (!TOPIC_NAME.test(topic) || topic === '.' || topic === '..') {
      throw new BadRequestError(
        `'${topic}' is not a valid Kafka topic name (1 to 249 characters of a-z, A-Z, 0-9, '.', '_' and '-')`,
      );
    }
    const rawPartition = text(partition[KAFKA_PARTITION]);
    const partitionNumber = Number(rawPartition);
    if (!INTEGER.test(rawPartition) || partitionNumber < 0 || partitionNumber > INT32_MAX) {
      throw new BadRequestError(
        `Failed to parse the following Kafka partition value in the provided offsets: '${rawPartition}'. Partition values for sink connectors need to be non-negative integers.`,
      );
    }
    let next: number | null = null;
    if (offset !== null) {
      if (!Object.hasOwn(offset, KAFKA_OFFSET)) {
        throw new BadRequestError(
          `The offset for a sink connector should either be null or contain the key '${KAFKA_OFFSET}'`,
        );
      }
      const raw = text(offset[KAFKA_OFFSET]);
      next = Number(raw);
      if (!INTEGER.test(raw) || !Number.isSafeInteger(next) || next < 0) {
        throw new BadRequestError(
          `Failed to parse the following Kafka offset value in the provided offsets: '${raw}'. Offset values for sink connectors need to be non-negative integers.`,
        );
      }
    }
    // The last entry for a partition wins, as in Connect's map.
    const key = `${topic}-${partitionNumber}`;
    parsed.set(key, { topic, partition: partitionNumber, nextOffset: next });
  }
  return parsed;
}

function assertPrimitives(map: JsonObject, what: string): void {
  for (const [key, value] of Object.entries(map)) {
    if (value !== null && typeof value === 'object') {
      throw new BadRequestError(
        `${what} values must be strings, numbers, booleans or null; the value of '${key}' is not`,
      );
    }
  }
}

/**
 * Step 4 for sources: maps of primitives (Connect answers 500 for nested values). The last
 * entry for a partition wins, as in Connect's map.
 */
function parseSourceEntries(entries: readonly OffsetEntry[]): SourcePartitionOffset[] {
  const parsed = new Map<string, SourcePartitionOffset>();
  for (const { partition, offset } of entries) {
    if (partition === null) {
      throw new BadRequestError(
        'The partition for a source connector offset cannot be null or missing',
      );
    }
    assertPrimitives(partition, 'Source partition');
    if (offset !== null) assertPrimitives(offset, 'Source offset');
    parsed.set(sourcePartitionKey(partition), { partition, offset });
  }
  return [...parsed.values()];
}

export class OffsetsApi {
  readonly #ctx: ServiceContext;

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
  }

  /** `GET /connectors/{c}/offsets`: in any state; `{"offsets": []}` when none were committed. */
  async get(name: string): Promise<ConnectorOffsets> {
    const { record } = await requireConnectorWithTasks(this.#ctx, name);
    const type = findConnectorPlugin(
      this.#ctx.plugins,
      record.config['connector.class'] ?? '',
    )?.type;
    const sink = type === 'source' ? [] : await this.#sinkOffsets(name);
    const source = type === 'sink' ? [] : await this.#sourceOffsets(name);
    return { offsets: [...sink, ...source] };
  }

  async #sinkOffsets(name: string): Promise<ConnectorOffset[]> {
    const stored = await this.#ctx.store.offsets.getSinkOffsets(name);
    return stored.map((o) => ({
      partition: { [KAFKA_TOPIC]: o.topic, [KAFKA_PARTITION]: o.partition },
      offset: { [KAFKA_OFFSET]: o.nextOffset },
    }));
  }

  /**
   * Per source partition, the entry advanced last (newest `at`) across the connector's tasks and
   * its admin entry (REST alterations, stamped newer than any task's entry when written). A
   * partition whose newest entry is null (reset) has no offset and is left out, as in Connect.
   */
  async #sourceOffsets(name: string): Promise<ConnectorOffset[]> {
    const tasks = await this.#ctx.store.offsets.listSourceOffsets(name);
    const best = new Map<string, SourceOffsetEntry>();
    for (const entry of tasks.flatMap((t) => t.committed?.offsets ?? [])) {
      const key = sourcePartitionKey(entry.partition);
      const current = best.get(key);
      if (current === undefined || (entry.at ?? 0) >= (current.at ?? 0)) best.set(key, entry);
    }
    return [...best.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .flatMap(([, e]) =>
        e.offset === null ? [] : [{ partition: e.partition, offset: e.offset }],
      );
  }

  /** `PATCH /connectors/{c}/offsets`. */
  async alter(name: string, body: unknown): Promise<Message> {
    const entries = parseOffsetsBody(body);
    const { config, descriptor } = await this.#requireStopped(name);
    let acknowledged: boolean;
    if (descriptor.type === 'source') {
      const changes = parseSourceEntries(entries);
      acknowledged = await hook(async () =>
        descriptor.create().alterOffsets(await this.#resolved(config), changes),
      );
      // The offsets topic first: it is what a lost or restored table is rebuilt from.
      await this.#ctx.offsetsTopic?.write(name, config, changes);
      await this.#ctx.store.offsets.alterSourceOffsets(name, changes);
    } else {
      const changes = parseSinkEntries(entries);
      const next = new Map([...changes].map(([key, c]) => [key, c.nextOffset]));
      acknowledged = await hook(async () =>
        descriptor.create().alterOffsets(await this.#resolved(config), next),
      );
      await this.#ctx.store.offsets.alterSinkOffsets(name, [...changes.values()]);
    }
    this.#ctx.nudge(name);
    return { message: acknowledged ? ALTERED : ALTERED_FRAMEWORK_ONLY };
  }

  /** `DELETE /connectors/{c}/offsets`: idempotent. */
  async reset(name: string): Promise<Message> {
    const { config, descriptor } = await this.#requireStopped(name);
    const { offsets } = this.#ctx.store;
    let acknowledged: boolean;
    if (descriptor.type === 'source') {
      const known = knownSourcePartitions(await offsets.listSourceOffsets(name));
      const resets = known.map((partition) => ({ partition, offset: null }));
      acknowledged = await hook(async () =>
        descriptor.create().alterOffsets(await this.#resolved(config), resets),
      );
      // Tombstones in the offsets topic, or a lost table would bring the old offsets back.
      await this.#ctx.offsetsTopic?.write(name, config, resets);
      await offsets.resetSourceOffsets(name);
    } else {
      const current = await offsets.getSinkOffsets(name);
      const resets = new Map(current.map((o) => [`${o.topic}-${o.partition}`, null]));
      acknowledged = await hook(async () =>
        descriptor.create().alterOffsets(await this.#resolved(config), resets),
      );
      await offsets.resetSinkOffsets(name);
    }
    this.#ctx.nudge(name);
    return { message: acknowledged ? RESET : RESET_FRAMEWORK_ONLY };
  }

  /**
   * The connector config with its config provider placeholders resolved, as Connect's herder
   * hands `alterOffsets` the transformed config (a connector reaching its external system, as
   * the PostgreSQL sink does, needs the real password). Never stored or echoed.
   */
  async #resolved(config: ConfigMap): Promise<ConfigMap> {
    return resolvePlaceholders(config, this.#ctx.configProviders ?? {});
  }

  /**
   * Steps 2 and 3: the connector exists, is STOPPED and has no task configs; for a source, the
   * stop's zombie-fencing round is also complete. When it is not, the request completes it
   * (bounded by the service's `zombieFencingTimeoutMs`; 409 past it) and checks again, as Connect
   * re-runs its checks after the zombie fencing, since the connector may have changed meanwhile.
   */
  async #requireStopped(
    name: string,
    fenced = false,
  ): Promise<{ config: ConfigMap; descriptor: ConnectorDescriptor }> {
    const { record, tasks } = await requireConnectorWithTasks(this.#ctx, name);
    if (record.targetState !== 'STOPPED' || tasks.tasks.length > 0) {
      throw new ConnectorNotStoppedError(name, record.targetState);
    }
    const className = record.config['connector.class'] ?? '';
    const descriptor = findConnectorPlugin(this.#ctx.plugins, className);
    if (descriptor === undefined) {
      throw new BadRequestError(
        `The offsets of connector ${name} cannot be changed: its class ${className} is not installed`,
      );
    }
    if (descriptor.type === 'source' && (tasks.fencing ?? []).length > 0) {
      if (fenced) throw stillFencing(name);
      await this.#fenceZombies(name, tasks);
      return this.#requireStopped(name, true);
    }
    return { config: record.config, descriptor };
  }

  /**
   * Runs the stop's zombie-fencing round (`fenceZombiesWithin`) inside the request. A stop
   * lists the tasks it took away; until they are fenced an old invocation could still commit
   * offsets over the change, and the enumerator run the stop nudged may not have come yet (queued
   * behind the run in progress, or, in AWS, behind an asynchronous Invoke). The enumerator may run
   * the round at the same time; every step of it is idempotent or conditional.
   *
   * Throws {@link stillFencing}'s 409 when the round did not finish within the service's
   * `zombieFencingTimeoutMs` (it goes on; the enumerator completes it otherwise), when it lost to
   * a concurrent change, when Kafka or the store failed retriably, or when the service has no
   * Kafka clients to fence with. Other failures propagate (a 500, as Connect's "Failed to
   * perform zombie fencing").
   */
  async #fenceZombies(name: string, tasks: TaskConfigSet): Promise<void> {
    const ctx = this.#ctx;
    const clients = ctx.zombieFencing;
    if (clients === undefined) throw stillFencing(name);
    const started = ctx.clock.now();
    const deps: ZombieFencingDeps = {
      store: ctx.store,
      logger: ctx.logger,
      clock: ctx.clock,
      kafka: clients.kafka,
      admin: clients.admin,
      settings: {
        transactionalIdPrefix: clients.transactionalIdPrefix,
        dispatchConcurrency: DEFAULT_ENUMERATOR_SETTINGS.dispatchConcurrency,
      },
    };
    const fields = () => ({ connector: name, tasks: tasks.fencing, ms: ctx.clock.now() - started });
    let outcome: 'fenced' | 'timed-out';
    try {
      outcome = await fenceZombiesWithin(deps, name, tasks, ctx.zombieFencingTimeoutMs);
    } catch (error) {
      const retriable =
        error instanceof ConflictError || (error instanceof ConnectError && error.retriable);
      if (!retriable) throw error;
      ctx.logger.warn('could not fence the tasks of a stop within the request; retry', {
        ...fields(),
        error,
      });
      throw stillFencing(name);
    }
    if (outcome === 'timed-out') throw stillFencing(name);
    ctx.logger.debug('fenced the tasks of a stop within the request', fields());
  }
}

/** The 409 of a stop whose tasks are not fenced yet. */
function stillFencing(name: string): RestConflictError {
  return new RestConflictError(
    `The tasks of connector ${name} are still being fenced after the stop; retry in a few seconds`,
  );
}

/** The connector's `alterOffsets` hook: `true` when it acknowledges; a refusal is a 400. */
async function hook(ask: () => Promise<boolean>): Promise<boolean> {
  try {
    return (await ask()) === true;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new BadRequestError(`The connector refused to change its offsets: ${detail}`);
  }
}
