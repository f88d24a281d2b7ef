/**
 * The JSON shapes of Kafka Connect's REST API (`runtime/rest/entities`), field for field.
 * Config and validation shapes (`ConfigInfos`, `ConfigKeyInfo`) come from shared/connect.
 */
import type { PluginType } from '../connect/plugin.js';
import type { ConfigMap } from '../ports/config-store.js';
import type { ConnectorState, TaskState } from '../ports/status-store.js';
import type { ConnectorCostDto } from './cost-report.js';

/** `GET /`. `serverless_connect_version` is ours; clients ignore unknown fields. */
export interface ServerInfo {
  readonly version: string;
  readonly commit: string;
  readonly kafka_cluster_id: string;
  readonly serverless_connect_version: string;
}

/** `GET /health`. */
export interface WorkerStatus {
  readonly status: 'healthy' | 'starting' | 'unhealthy';
  readonly message: string;
}

/** What a connector is: its class loads as a source, a sink, or not at all. */
export type ConnectorType = 'source' | 'sink' | 'unknown';

export interface ConnectorTaskId {
  readonly connector: string;
  readonly task: number;
}

/** `GET /connectors/{c}`, create and update responses, `expand=info`. */
export interface ConnectorInfo {
  readonly name: string;
  readonly config: ConfigMap;
  readonly tasks: readonly ConnectorTaskId[];
  readonly type: ConnectorType;
}

/** One instance in a status: `trace` only when non-empty (FAILED, or RESTARTING after it). */
export interface InstanceState<S extends string = ConnectorState> {
  readonly state: S;
  readonly worker_id: string;
  readonly trace?: string;
}

/** An element of `tasks` in a status; `GET /connectors/{c}/tasks/{t}/status`. */
export interface TaskStateInfo extends InstanceState<TaskState> {
  readonly id: number;
}

/** `GET /connectors/{c}/status`, `expand=status`, the 202 body of a restart. */
export interface ConnectorStateInfo {
  readonly name: string;
  readonly connector: InstanceState;
  readonly tasks: readonly TaskStateInfo[];
  readonly type: ConnectorType;
}

/** `GET /connectors/{c}/tasks`. */
export interface TaskInfo {
  readonly id: ConnectorTaskId;
  readonly config: ConfigMap;
}

/** One partition and its offset (`null` in a PATCH body: reset that partition). */
export interface ConnectorOffset {
  readonly partition: Readonly<Record<string, unknown>>;
  readonly offset: Readonly<Record<string, unknown>> | null;
}

/** `GET /connectors/{c}/offsets` and the PATCH body. */
export interface ConnectorOffsets {
  readonly offsets: readonly ConnectorOffset[];
}

/** `{"message": …}`: the result of altering or resetting offsets. */
export interface Message {
  readonly message: string;
}

/** An element of `GET /connector-plugins`; `version` omitted when the plugin reports none. */
export interface PluginInfo {
  readonly class: string;
  readonly type: PluginType;
  readonly version?: string;
}

/** `GET /admin/loggers/{l}`; `last_modified` is null until a REST call sets the level. */
export interface LoggerLevelInfo {
  readonly level: string;
  readonly last_modified: number | null;
}

/** `GET /connectors?expand=…`: per connector, the requested expansions. */
export interface ConnectorExpansion {
  status?: ConnectorStateInfo;
  info?: ConnectorInfo | null;
  /** Our extension (`expand=cost`), not Apache Kafka Connect's. */
  cost?: ConnectorCostDto | null;
}

/** `GET /connectors/{c}/topics`. */
export type ActiveTopics = Readonly<Record<string, { readonly topics: readonly string[] }>>;
