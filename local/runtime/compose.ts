import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { logLevel } from 'kafkajs';
import {
  type ConfigProviderSettings,
  defaultConfigProviders,
} from '../../shared/adapters/config-providers/defaults.js';
import { createDynamoDbStateStore } from '../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { KafkaJsClientFactory } from '../../shared/adapters/kafkajs/client.js';
import { type LoggerLevelName, LoggerLevels } from '../../shared/adapters/logging/logger-levels.js';
import { meterS3Requests } from '../../shared/adapters/s3/s3-request-meter.js';
import { createEngine, type Engine } from '../../shared/engine/engine.js';
import type { LoadedPluginModule } from '../../shared/engine/plugin-modules.js';
import { systemClock } from '../../shared/ports/clock.js';
import type {
  ReconcileTrigger,
  SinkMappingPort,
  SourceTaskInvoker,
} from '../../shared/ports/dispatch.js';
import { LOGGERS } from '../../shared/ports/logger.js';
import type { MetricsSink } from '../../shared/ports/metrics.js';
import type { PriceTable } from '../../shared/runtime/metering/prices.js';
import { UsageScopes } from '../../shared/runtime/metering/usage-scopes.js';
import type { SourceRuntimeSettings } from '../../shared/runtime/source/source-runtime-types.js';
import {
  DEFAULT_IDLE_BACKOFF,
  type IdleBackoffSettings,
} from '../../shared/runtime/task/idle-backoff.js';

/**
 * The local runtime's composition root: its options → the local adapters (dynalite's DynamoDB
 * API, kafkajs, the in-process invoker and the sink-mapping stand-in it is given) → the same
 * engine the functions build (functions/_compose.ts). Loggers follow `/admin/loggers`; task
 * metrics are debug log lines instead of CloudWatch EMF.
 */

export interface LocalCompositionConfig {
  readonly brokers: readonly string[];
  /** A client of the DynamoDB-compatible server (dynalite), owned by the caller. */
  readonly dynamo: DynamoDBClient;
  readonly stateTable: string;
  readonly transactionalIdPrefix: string;
  readonly offsetsTopic: string;
  readonly exactlyOnceSource: boolean;
  /** Connect's `topic.tracking.enable` and `topic.tracking.allow.reset`. */
  readonly topicTracking: { readonly enabled: boolean; readonly allowReset: boolean };
  readonly kafkaClusterId: string;
  /** Level until `/admin/loggers` sets one. */
  readonly logLevel: LoggerLevelName;
  /** The `env` and `file` config providers' limits. */
  readonly configProviders: ConfigProviderSettings;
  /** Where JSON log lines go. @default stdout */
  readonly writeLog?: (line: string) => void;
  /** The in-process stand-in for Lambda's asynchronous Invoke of the source-task function. */
  readonly invoker: SourceTaskInvoker;
  /** The stand-in for Lambda's event source mappings. */
  readonly mappings: SinkMappingPort;
  /** What the REST API nudges: the local enumerator schedule. */
  readonly reconcile: ReconcileTrigger;
  /** Source runtime settings to override (tests shorten the idle time). */
  readonly sourceSettings?: Partial<SourceRuntimeSettings>;
  /** The idle back-off of source-task dispatch. @default off */
  readonly idleBackoff?: IdleBackoffSettings;
  /** Plugin packages, registered by the engine. @default none */
  readonly pluginModules?: readonly LoadedPluginModule[];
  /** The cost endpoint's prices (`COST_PRICES`). @default DEFAULT_PRICES */
  readonly prices?: PriceTable;
}

/** The engine and what the local runtime keeps beside it. */
export interface LocalComposition {
  readonly engine: Engine;
  readonly kafka: KafkaJsClientFactory;
  readonly levels: LoggerLevels;
  /** Stops the engine and closes the Kafka clients (not the DynamoDB client). */
  close(): Promise<void>;
}

/** Task metrics as debug lines of the `serverless-connect.metrics` logger. */
function metricsLog(levels: LoggerLevels): MetricsSink {
  const logger = levels.logger(LOGGERS.metrics);
  return {
    publish: (dimensions, values) =>
      logger.debug('metrics', {
        ...dimensions,
        ...Object.fromEntries(Object.entries(values).map(([name, v]) => [name, v.value])),
      }),
  };
}

export function composeLocal(config: LocalCompositionConfig): LocalComposition {
  // The metering: the state store's and the S3 connectors' requests are reported to it.
  const usage = new UsageScopes(systemClock);
  const store = createDynamoDbStateStore({
    client: config.dynamo,
    tableName: config.stateTable,
    usage,
  });
  const levels = new LoggerLevels(store.loggers, {
    fallback: config.logLevel,
    ...(config.writeLog === undefined ? {} : { write: config.writeLog }),
  });
  const kafka = new KafkaJsClientFactory({
    brokers: config.brokers,
    clientId: config.transactionalIdPrefix,
    // kafkajs logs the retries it handles (CONCURRENT_TRANSACTIONS after each commit) as
    // errors; what fails for good surfaces in the runtime's own log lines.
    logLevel: logLevel.NOTHING,
  });
  const engine = createEngine(
    {
      store,
      kafka,
      loggers: levels.factory(),
      metrics: metricsLog(levels),
      configProviders: defaultConfigProviders(config.configProviders),
      usage,
      s3ClientHook: (client) => meterS3Requests(client, usage),
      invoker: config.invoker,
      mappings: config.mappings,
      reconcile: config.reconcile,
      ...(config.pluginModules === undefined ? {} : { pluginModules: config.pluginModules }),
    },
    {
      transactionalIdPrefix: config.transactionalIdPrefix,
      offsetsTopic: config.offsetsTopic,
      exactlyOnceSource: config.exactlyOnceSource,
      topicTracking: config.topicTracking,
      workerId: 'local',
      kafkaClusterId: config.kafkaClusterId,
      rootLogLevel: config.logLevel === 'off' ? 'OFF' : config.logLevel.toUpperCase(),
      // A pause, a stop or a local shutdown ends an invocation within a second.
      source: { assignmentCheckMs: 1_000, ...config.sourceSettings },
      enumerator: {
        workerId: 'local-enumerator',
        idleBackoff: config.idleBackoff ?? { ...DEFAULT_IDLE_BACKOFF, maxMs: 0 },
      },
      ...(config.prices === undefined ? {} : { prices: config.prices }),
    },
  );
  return {
    engine,
    kafka,
    levels,
    close: async () => {
      levels.stop();
      await engine.close();
      await kafka.close();
    },
  };
}
