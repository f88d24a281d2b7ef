/**
 * What every part of the control plane shares: the ports, the validator, the options, and the
 * small helpers that read a connector and nudge the enumerator.
 */
import type { ConfigProviderResolver } from '../connect/config-provider.js';
import type { PluginRegistry } from '../connect/plugin.js';
import type { Clock } from '../ports/clock.js';
import type { ConfigMap, ConnectorRecord, TaskConfigSet } from '../ports/config-store.js';
import type { RestartRequest } from '../ports/connector-meta-store.js';
import type { ReconcileTrigger } from '../ports/dispatch.js';
import { ConnectorNotFoundError } from '../ports/errors.js';
import type { KafkaAdminPort, KafkaClientFactory } from '../ports/kafka.js';
import type { Logger } from '../ports/logger.js';
import type { StateStore } from '../ports/state-store.js';
import type { ConnectorStatusSnapshot } from '../ports/status-store.js';
import type { SourceOffsetsTopicWriter } from '../runtime/source/offsets-topic-writer.js';
import type { ConnectorConfigValidator } from './config-validation.js';
import type { ConnectorStateInfo, ConnectorTaskId, ConnectorType } from './dto.js';
import { connectorTypeOf } from './plugin-catalog.js';
import { connectorStateInfo } from './status-view.js';

/**
 * The longest connector name, in UTF-8 bytes: the state table indexes names in a sort key,
 * which DynamoDB limits to 1024 bytes. Longer names can never exist.
 */
export const MAX_CONNECTOR_NAME_BYTES = 1024;

/**
 * The Kafka clients and names with which an offsets request runs the zombie-fencing round of a
 * stopped source connector (see `OffsetsApi`).
 */
export interface ZombieFencingClients {
  /** Builds the throwaway transactional producers whose initialisation fences the old ones. */
  readonly kafka: Pick<KafkaClientFactory, 'transactionalProducer'>;
  /** Reads record fates to settle what the fenced tasks left pending. */
  readonly admin: KafkaAdminPort;
  /** The source tasks' transactional id prefix (TRANSACTIONAL_ID_PREFIX). */
  readonly transactionalIdPrefix: string;
}

/** The ports the control plane works over. */
export interface ConnectServiceDeps {
  readonly store: StateStore;
  readonly plugins: PluginRegistry;
  /** Nudged after every write; a failed nudge is logged, never returned to the caller. */
  readonly reconcile: ReconcileTrigger;
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * Kafka clients to fence a stopped source connector's tasks with inside an offsets request
   * (the zombie-fencing round). Without them such a request answers 409 until the enumerator has.
   */
  readonly zombieFencing?: ZombieFencingClients;
  /**
   * Writes source offsets changed through the REST API to the connector's offsets topic (Kafka
   * stays the truth a lost or restored state table is rebuilt from). Without it, they are only
   * recorded in the state table.
   */
  readonly offsetsTopic?: SourceOffsetsTopicWriter;
  /**
   * The worker's config providers, by name: a placeholder one of them refuses (its `refusal`)
   * is a validation error on its config key. @default none
   */
  readonly configProviders?: Readonly<Record<string, ConfigProviderResolver>>;
}

/** Shared by the parts of the service. */
export interface ServiceContext extends ConnectServiceDeps {
  readonly validator: ConnectorConfigValidator;
  /** The bound of the stop's zombie-fencing round inside an offsets request. */
  readonly zombieFencingTimeoutMs: number;
  /** `worker_id` shown for instances without a stored status, and written by the control plane. */
  readonly workerId: string;
  /** Asks the enumerator to reconcile `connector`, without waiting (see `ConnectService`). */
  nudge(connector: string): void;
}

/** Everything the status of one connector is derived from, read at once. */
export type ConnectorSnapshot = ConnectorStatusSnapshot;

/** The UTF-8 length of `text`. */
export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}

/** True when a connector could be stored under `name` (so lookups of longer names skip the store). */
export function isStorableName(name: string): boolean {
  return name.length <= MAX_CONNECTOR_NAME_BYTES && utf8Bytes(name) <= MAX_CONNECTOR_NAME_BYTES;
}

/** The connector, or 404 (Connect's "Connector x not found"). */
export async function requireConnector(
  ctx: ServiceContext,
  name: string,
): Promise<ConnectorRecord> {
  const record = isStorableName(name) ? await ctx.store.configs.getConnector(name) : undefined;
  if (record === undefined) throw new ConnectorNotFoundError(name);
  return record;
}

/** The connector with its task configs, or 404. */
export async function requireConnectorWithTasks(
  ctx: ServiceContext,
  name: string,
): Promise<{ readonly record: ConnectorRecord; readonly tasks: TaskConfigSet }> {
  if (!isStorableName(name)) throw new ConnectorNotFoundError(name);
  const [record, tasks] = await Promise.all([
    ctx.store.configs.getConnector(name),
    ctx.store.configs.getTaskConfigs(name),
  ]);
  if (record === undefined) throw new ConnectorNotFoundError(name);
  return { record, tasks };
}

/**
 * The connector, its task configs and statuses (one read of the status store's snapshot), or
 * 404. A pending restart request is not read: the enumerator marks what it restarts RESTARTING
 * when it takes the request, and the 202 answer of the restart shows the plan itself.
 */
export async function readSnapshot(ctx: ServiceContext, name: string): Promise<ConnectorSnapshot> {
  if (!isStorableName(name)) throw new ConnectorNotFoundError(name);
  const snapshot = await ctx.store.status.getConnectorSnapshot(name);
  if (snapshot === undefined) throw new ConnectorNotFoundError(name);
  return snapshot;
}

/** `source`, `sink` or `unknown` from the connector's stored class. */
export function typeOf(ctx: ServiceContext, config: ConfigMap): ConnectorType {
  return connectorTypeOf(ctx.plugins, config['connector.class']);
}

/** The task ids a client sees: none while STOPPED, else those of the task configs. */
export function visibleTaskIds(record: ConnectorRecord, tasks: TaskConfigSet): ConnectorTaskId[] {
  return record.targetState === 'STOPPED'
    ? []
    : tasks.tasks.map((t) => ({ connector: record.name, task: t.task }));
}

/** The status clients see for `snapshot`, with `restart`'s plan shown RESTARTING when given. */
export function snapshotStatus(
  ctx: ServiceContext,
  snapshot: ConnectorSnapshot,
  restart?: RestartRequest,
): ConnectorStateInfo {
  return connectorStateInfo({
    name: snapshot.record.name,
    type: typeOf(ctx, snapshot.record.config),
    targetState: snapshot.record.targetState,
    connectorStatus: snapshot.status,
    taskIds: snapshot.tasks.tasks.map((t) => t.task),
    taskStatuses: snapshot.taskStatuses,
    restart,
    defaultWorkerId: ctx.workerId,
  });
}
