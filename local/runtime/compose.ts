import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { logLevel } from 'kafkajs';
import {
  createSecretsManagerConfigProvider,
  createSsmConfigProvider,
} from '../../shared/adapters/config-providers/aws-provider.js';
import {
  sdkParameterStoreReader,
  sdkSecretsManagerReader,
} from '../../shared/adapters/config-providers/aws-sdk-readers.js';
import { createEnvConfigProvider } from '../../shared/adapters/config-providers/env-provider.js';
import { createFileConfigProvider } from '../../shared/adapters/config-providers/file-provider.js';
import { createDynamoDbStateStore } from '../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { KafkaJsClientFactory } from '../../shared/adapters/kafkajs/client.js';
import type { ConfigProviderResolver } from '../../shared/config/config-providers.js';
import type { AnyPluginDescriptor, PluginRegistry } from '../../shared/connect/plugin.js';
import { builtinRegistry } from '../../shared/plugins/registry.js';
import { systemClock } from '../../shared/ports/clock.js';
import type { KafkaAdminPort } from '../../shared/ports/kafka.js';
import type { MetricsSink } from '../../shared/ports/metrics.js';
import type { StateStore } from '../../shared/ports/state-store.js';
import { ConnectorAliasResolver } from '../../shared/runtime/sink/function-alias.js';
import { kafkaSinkDescriptor } from '../../shared/runtime/sink/kafka-sink/descriptor.js';
import type { SinkFunctionDeps } from '../../shared/runtime/sink/sink-runtime-types.js';
import { SinkTaskCache } from '../../shared/runtime/sink/sink-task-cache.js';
import { ProducerPool } from '../../shared/runtime/source/producer-pool.js';
import { buildSourcePipeline } from '../../shared/runtime/source/record-pipeline.js';
import {
  defaultSourceRuntimeSettings,
  type SourceRuntimeDeps,
} from '../../shared/runtime/source/source-task-runner.js';
import { ActiveTopicTracker } from '../../shared/runtime/task/active-topics.js';
import { LOGGERS, type LocalLogLevel, LoggerLevels } from './log-levels.js';

/**
 * The local runtime's composition root: the same building blocks as `functions/_compose.ts`
 * (DynamoDB state store, kafkajs clients, the built-in plugins, the source and sink runtimes),
 * wired from options instead of Lambda environment variables, with loggers whose levels follow
 * `/admin/loggers` and task metrics as debug log lines instead of CloudWatch EMF.
 */

export interface LocalCompositionConfig {
  readonly brokers: readonly string[];
  /** A client of the DynamoDB-compatible server (dynalite), owned by the caller. */
  readonly dynamo: DynamoDBClient;
  readonly stateTable: string;
  readonly transactionalIdPrefix: string;
  readonly offsetsTopic: string;
  readonly exactlyOnceSource: boolean;
  /** Connect's worker `topic.tracking.enable`: false, tasks record no active topics. @default true */
  readonly topicTrackingEnabled?: boolean;
  /** Level until `/admin/loggers` sets one. */
  readonly logLevel: LocalLogLevel;
  /** Where JSON log lines go. @default stdout */
  readonly writeLog?: (line: string) => void;
  /** Plugins beyond the built-in ones (tests). */
  readonly extraPlugins?: readonly AnyPluginDescriptor[];
}

/** Everything the local runtime shares between its parts. */
export interface LocalComposition {
  readonly store: StateStore;
  readonly kafka: KafkaJsClientFactory;
  readonly admin: KafkaAdminPort;
  readonly plugins: PluginRegistry;
  readonly levels: LoggerLevels;
  /** The source runtime, without producers: each in-process invocation brings its own. */
  readonly source: Omit<SourceRuntimeDeps, 'producers'>;
  /** The sink runtime, as the sink-task handler takes it. */
  readonly sink: SinkFunctionDeps;
  /** Stops the sink tasks and closes the Kafka clients (not the DynamoDB client). */
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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

function configProviders(): Readonly<Record<string, ConfigProviderResolver>> {
  const cache = { ttlMs: 300_000, now: () => Date.now() };
  return {
    env: createEnvConfigProvider(),
    file: createFileConfigProvider(),
    // Built now, connect only when a placeholder needs them (with the machine's AWS credentials).
    secretsmanager: createSecretsManagerConfigProvider(sdkSecretsManagerReader(), { cache }),
    ssm: createSsmConfigProvider(sdkParameterStoreReader(), { cache }),
  };
}

export function composeLocal(config: LocalCompositionConfig): LocalComposition {
  const store = createDynamoDbStateStore({ client: config.dynamo, tableName: config.stateTable });
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
  const admin = kafka.admin();
  const plugins = builtinRegistry(config.extraPlugins ?? []);
  // The Kafka sink needs Kafka clients, so it is registered here, as in functions/_compose.ts.
  plugins.register(
    kafkaSinkDescriptor({
      kafka,
      admin,
      plugins,
      transactionalIdPrefix: config.transactionalIdPrefix,
      logger: levels.logger(LOGGERS.sink),
    }),
  );
  const metrics = metricsLog(levels);
  const providers = configProviders();
  // One process stands for every container: its tasks share one record of their active topics.
  const activeTopics = new ActiveTopicTracker(store.topics, {
    enabled: config.topicTrackingEnabled ?? true,
    logger: levels.logger(LOGGERS.runtime),
  });
  const source: Omit<SourceRuntimeDeps, 'producers'> = {
    store,
    admin,
    plugins,
    clock: systemClock,
    sleep,
    buildPipeline: (parsed, task) =>
      buildSourcePipeline(parsed, task, {
        plugins,
        logger: levels.logger(LOGGERS.source, { connector: parsed.name, task }),
        clock: systemClock,
        sleep,
      }),
    metrics,
    logger: levels.logger(LOGGERS.source),
    configProviders: providers,
    activeTopics,
    settings: {
      ...defaultSourceRuntimeSettings,
      transactionalIdPrefix: config.transactionalIdPrefix,
      offsetsTopic: config.offsetsTopic,
      exactlyOnce: config.exactlyOnceSource,
      // A pause, a stop or a local shutdown ends an invocation within a second.
      assignmentCheckMs: 1_000,
    },
  };
  const sinkLogger = levels.logger(LOGGERS.sink);
  // Sink dead letter queues are written outside any transaction, as Kafka Connect does.
  const deadLetterProducers = new ProducerPool(kafka);
  const sink: SinkFunctionDeps = {
    store,
    plugins,
    clock: systemClock,
    sleep,
    logger: sinkLogger,
    tasks: new SinkTaskCache({ logger: sinkLogger }),
    aliases: new ConnectorAliasResolver(store.configs),
    deadLetters: {
      send: async (records) => {
        await (await deadLetterProducers.idempotent()).send(records);
      },
    },
    admin,
    configProviders: providers,
    metrics,
    activeTopics,
  };
  return {
    store,
    kafka,
    admin,
    plugins,
    levels,
    source,
    sink,
    close: async () => {
      levels.stop();
      await sink.tasks.closeAll();
      await deadLetterProducers.closeAll();
      await admin.close();
      await kafka.close();
    },
  };
}
