import type { ConfigProviderSettings } from '../../shared/adapters/config-providers/defaults.js';
import type { LoggerLevelName } from '../../shared/adapters/logging/logger-levels.js';
import type { TopicTrackingOptions } from '../../shared/control-plane/connectors.js';
import type { LoadedPluginModule } from '../../shared/engine/plugin-modules.js';
import type { PriceTable } from '../../shared/runtime/metering/prices.js';
import type { SourceRuntimeSettings } from '../../shared/runtime/source/source-task-runner.js';
import type { ApiServerAuth } from '../api-server.js';

/** How the local runtime runs; every field has a default (see {@link LOCAL_DEFAULTS}). */
export interface LocalRuntimeOptions {
  /** Where the REST API listens. Anything but loopback needs `auth`. @default '127.0.0.1' */
  readonly host?: string;
  /** REST API port; 0 picks a free one. @default 8083 */
  readonly port?: number;
  readonly auth?: ApiServerAuth;
  /**
   * Folder of the state (dynalite tables under `dynamodb/`, s3rver objects under `s3/`).
   * Ignored with `memory`. @default '.data'
   */
  readonly dataDir?: string;
  /** Keep nothing: tables in memory, objects in a temporary folder removed on close. */
  readonly memory?: boolean;
  /** Kafka bootstrap servers. @default KAFKA_BROKERS, else the pinned local broker */
  readonly brokers?: readonly string[];
  /** s3rver port; 0 picks a free one. @default 4568 (stable, so stored sink configs keep working) */
  readonly s3Port?: number;
  /** dynalite port; 0 picks a free one. @default 0 */
  readonly dynamoPort?: number;
  /**
   * A DynamoDB-compatible endpoint that is already running (`http://127.0.0.1:8000`): no dynalite
   * is started in this process (the peer benchmark keeps the state store's CPU apart, as
   * DynamoDB is remote in AWS). @default none: dynalite in this process
   */
  readonly dynamoEndpoint?: string;
  /** Bucket created in s3rver at start-up, for sinks. @default 'serverless-connect' */
  readonly bucket?: string;
  /** @default 'serverless-connect-state' */
  readonly stateTable?: string;
  /** @default 'serverless-connect' */
  readonly transactionalIdPrefix?: string;
  /** @default 'connect-offsets' */
  readonly offsetsTopic?: string;
  /** Connect's worker `exactly.once.source.support` (enabled). @default true */
  readonly exactlyOnceSource?: boolean;
  /**
   * Connect's worker `topic.tracking.enable` (`enabled`: tasks record their topics, the topics
   * endpoints answer) and `topic.tracking.allow.reset` (`allowReset`). @default both true
   */
  readonly topicTracking?: TopicTrackingOptions;
  /**
   * The `env` and `file` config providers' limits (Kafka Connect's
   * `config.providers.env.param.allowlist.pattern`, `config.providers.file.param.allowed.paths`).
   * @default LOCAL_CONFIG_PROVIDER_DEFAULTS
   */
  readonly configProviders?: ConfigProviderSettings;
  /** A full enumerator run this often. @default 10000 */
  readonly enumeratorIntervalMs?: number;
  /** Nudges within this window share one enumerator run. @default 50 */
  readonly nudgeDebounceMs?: number;
  /** Time budget of one source-task invocation. @default 60000 */
  readonly sourceBudgetMs?: number;
  /** Source runtime settings to override (tests shorten the idle time). */
  readonly sourceSettings?: Partial<SourceRuntimeSettings>;
  /**
   * The idle back-off's bound (`SOURCE_IDLE_BACKOFF_MAX_SECONDS`), its steps being the
   * enumerator interval. Off by default here: a local task is dispatched again as soon as its
   * invocation ends, idle or not, so that local data shows up at once (nothing is billed).
   * @default 0
   */
  readonly sourceIdleBackoffMaxMs?: number;
  /** Level until `/admin/loggers` sets one. @default 'info' */
  readonly logLevel?: LoggerLevelName;
  /** Where JSON log lines go. @default stdout */
  readonly writeLog?: (line: string) => void;
  /** How often logger levels are re-read from the state store. @default 2000 */
  readonly levelRefreshMs?: number;
  /** `kafka_cluster_id` of `GET /`. @default the broker's cluster id */
  readonly kafkaClusterId?: string;
  /**
   * Who starts the pinned broker (`npm start` says `npm-start`): a broker an earlier process of
   * the same owner left running is taken over and stopped on close. @default none
   */
  readonly brokerOwner?: string;
  /** Start-up progress lines (the broker scripts': fetching, formatting, starting). */
  readonly onProgress?: (line: string) => void;
  /** Aborting stops the start-up: what was started is stopped and the start rejects. */
  readonly signal?: AbortSignal;
  /**
   * Plugin packages (`--plugins`, loaded by plugin-loader.ts), checked before anything starts.
   * @default none
   */
  readonly pluginModules?: readonly LoadedPluginModule[];
  /** The cost endpoint's prices (`COST_PRICES`). @default DEFAULT_PRICES */
  readonly prices?: PriceTable;
}

/**
 * `npm start`'s config provider limits unless set: every environment variable but `AWS_*`
 * (Kafka's default is every variable; yours may hold real AWS credentials, which no connector
 * config needs to read: connectors take the default credential chain), and every file but
 * /proc (Kafka's default). The REST API answers only on loopback unless it has credentials, so
 * configs come from you.
 */
export const LOCAL_CONFIG_PROVIDER_DEFAULTS: ConfigProviderSettings = {
  envAllowlistPattern: '(?!AWS_).*',
  fileAllowedPaths: undefined,
};

export const LOCAL_DEFAULTS = {
  host: '127.0.0.1',
  port: 8083,
  dataDir: '.data',
  s3Port: 4568,
  bucket: 'serverless-connect',
  stateTable: 'serverless-connect-state',
  transactionalIdPrefix: 'serverless-connect',
  offsetsTopic: 'connect-offsets',
  enumeratorIntervalMs: 10_000,
  nudgeDebounceMs: 50,
  sourceBudgetMs: 60_000,
  levelRefreshMs: 2_000,
  configProviders: LOCAL_CONFIG_PROVIDER_DEFAULTS,
} as const;
