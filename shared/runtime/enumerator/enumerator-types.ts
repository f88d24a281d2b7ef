import type { ConfigProviderResolver } from '../../config/config-providers.js';
import type { PluginRegistry } from '../../connect/plugin.js';
import type { Clock } from '../../ports/clock.js';
import type { SinkMappingPort, SourceTaskInvoker } from '../../ports/dispatch.js';
import type { KafkaAdminPort, KafkaClientFactory } from '../../ports/kafka.js';
import type { Logger } from '../../ports/logger.js';
import type { StateStore } from '../../ports/state-store.js';
import type { ConnectorState, TaskState } from '../../ports/status-store.js';
import type { UsageAttribution } from '../metering/usage-scopes.js';
import { DEFAULT_IDLE_BACKOFF, type IdleBackoffSettings } from '../task/idle-backoff.js';
import type { PartitionDiscovery } from './partition-discovery.js';
import { DEFAULT_MAPPING_SETTINGS, type MappingDefaults } from './sink-mappings.js';

export interface EnumeratorSettings {
  /** Written as the worker id of the statuses the enumerator sets. */
  readonly workerId: string;
  /** Source-task invocations and status writes in flight per connector. */
  readonly dispatchConcurrency: number;
  /** Connectors reconciled at once by `reconcileAll`. */
  readonly connectorConcurrency: number;
  readonly mappings: MappingDefaults;
  /** The source tasks' transactional id prefix (TRANSACTIONAL_ID_PREFIX). */
  readonly transactionalIdPrefix: string;
  /**
   * The scheduled dispatch of idle source tasks (`SOURCE_IDLE_BACKOFF_MAX_SECONDS`):
   * task/idle-backoff.ts.
   */
  readonly idleBackoff: IdleBackoffSettings;
}

export const DEFAULT_ENUMERATOR_SETTINGS: EnumeratorSettings = {
  workerId: 'enumerator',
  dispatchConcurrency: 16,
  connectorConcurrency: 4,
  mappings: DEFAULT_MAPPING_SETTINGS,
  transactionalIdPrefix: 'serverless-connect',
  idleBackoff: DEFAULT_IDLE_BACKOFF,
};

export interface EnumeratorDeps {
  readonly store: StateStore;
  readonly admin: KafkaAdminPort;
  readonly plugins: PluginRegistry;
  readonly invoker: SourceTaskInvoker;
  readonly mappings: SinkMappingPort;
  /** Builds throwaway transactional producers to fence older generations' producers. */
  readonly kafka: Pick<KafkaClientFactory, 'transactionalProducer'>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly configProviders?: Readonly<Record<string, ConfigProviderResolver>>;
  /** Keep one per container so discovery honours its interval across runs. */
  readonly discovery: PartitionDiscovery;
  readonly settings: EnumeratorSettings;
  /**
   * The metering: each connector's reconcile is work for that connector (its time and requests
   * are the connector's share of the run). @default none
   */
  readonly usage?: UsageAttribution;
}

/** Why a connector is reconciled, when that changes what the run does. */
export interface ReconcileOptions {
  /**
   * The run answers an event for the connector (an S3 notification of new data): its source
   * tasks are dispatched whatever their idle back-off. @default false
   */
  readonly immediate?: boolean;
}

/** What one run did for one connector. */
export interface ConnectorReport {
  readonly connector: string;
  readonly state: ConnectorState | 'DELETED';
  readonly kind?: 'source' | 'sink';
  readonly taskConfigVersion?: number;
  readonly tasks: number;
  /** Source tasks invoked by this run. */
  readonly dispatched: readonly number[];
  /** Source tasks this run left alone because their idle back-off has not passed. */
  readonly deferred?: readonly number[];
  readonly mappings?: {
    readonly created: number;
    readonly updated: number;
    readonly deleted: number;
  };
  /** The restart request handled, if any. */
  readonly restart?: number;
  /** Set when the connector failed (its status holds the trace). */
  readonly error?: string;
  /** How many of its tasks are in each state after the run (absent for a deleted connector). */
  readonly taskStates?: Readonly<Partial<Record<TaskState, number>>>;
}
