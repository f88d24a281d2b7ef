import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LambdaClient } from '@aws-sdk/client-lambda';
import {
  createSecretsManagerConfigProvider,
  createSsmConfigProvider,
} from '../shared/adapters/config-providers/aws-provider.js';
import {
  sdkParameterStoreReader,
  sdkSecretsManagerReader,
} from '../shared/adapters/config-providers/aws-sdk-readers.js';
import { createEnvConfigProvider } from '../shared/adapters/config-providers/env-provider.js';
import { createFileConfigProvider } from '../shared/adapters/config-providers/file-provider.js';
import { createDynamoDbStateStore } from '../shared/adapters/dynamodb/dynamodb-state-store.js';
import { kafkaSasl } from '../shared/adapters/kafkajs/auth.js';
import { KafkaJsClientFactory } from '../shared/adapters/kafkajs/client.js';
import { mskIamTokenProvider } from '../shared/adapters/kafkajs/msk-iam-token.js';
import { LambdaReconcileTrigger } from '../shared/adapters/lambda/invoke.js';
import { emfMetrics } from '../shared/adapters/logging/emf-metrics.js';
import { jsonLogger } from '../shared/adapters/logging/json-logger.js';
import type { PluginRegistry } from '../shared/connect/plugin.js';
import { builtinRegistry } from '../shared/plugins/registry.js';
import { systemClock } from '../shared/ports/clock.js';
import type { ReconcileTrigger } from '../shared/ports/dispatch.js';
import type { KafkaAdminPort } from '../shared/ports/kafka.js';
import type { Logger } from '../shared/ports/logger.js';
import type { StateStore } from '../shared/ports/state-store.js';
import { ConnectorAliasResolver } from '../shared/runtime/sink/function-alias.js';
import { kafkaSinkDescriptor } from '../shared/runtime/sink/kafka-sink/descriptor.js';
import type { SinkFunctionDeps } from '../shared/runtime/sink/sink-runtime-types.js';
import { SinkTaskCache } from '../shared/runtime/sink/sink-task-cache.js';
import { ProducerPool } from '../shared/runtime/source/producer-pool.js';
import { buildSourcePipeline } from '../shared/runtime/source/record-pipeline.js';
import {
  defaultSourceRuntimeSettings,
  type SourceRuntimeDeps,
} from '../shared/runtime/source/source-task-runner.js';
import { ActiveTopicTracker } from '../shared/runtime/task/active-topics.js';
import { type FunctionEnv, readEnv } from './_env.js';

/** Everything a warm container reuses across invocations. */
export interface Composition {
  readonly env: FunctionEnv;
  readonly store: StateStore;
  readonly kafka: KafkaJsClientFactory;
  readonly admin: KafkaAdminPort;
  readonly producers: ProducerPool;
  readonly plugins: PluginRegistry;
  readonly logger: Logger;
  readonly source: SourceRuntimeDeps;
  /** The sink runtime; its started tasks are stopped by `close`. */
  readonly sink: SinkFunctionDeps;
  /** Nudges the enumerator (ENUMERATOR_FUNCTION); without it, only logs. */
  readonly reconcile: ReconcileTrigger;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Builds the adapters and services from the environment. */
export function compose(env: FunctionEnv = readEnv()): Composition {
  const dynamo = new DynamoDBClient({
    region: env.region,
    ...(env.dynamoEndpoint === undefined ? {} : { endpoint: env.dynamoEndpoint }),
  });
  const store = createDynamoDbStateStore({ client: dynamo, tableName: env.stateTable });
  // SASL credentials are read (SCRAM secret) or signed (MSK IAM) when kafkajs first connects.
  const sasl = kafkaSasl(env.kafkaAuth, {
    readSecret: (id) => sdkSecretsManagerReader().getSecretString(id),
    iamToken: mskIamTokenProvider(env.region),
  });
  const kafka = new KafkaJsClientFactory({
    brokers: env.kafkaBrokers,
    clientId: env.transactionalIdPrefix,
    ...(env.kafkaSsl ? { ssl: true } : {}),
    ...(sasl === undefined ? {} : { sasl }),
  });
  const admin = kafka.admin();
  const producers = new ProducerPool(kafka);
  const plugins = builtinRegistry();
  const logger = jsonLogger(env.logLevel);
  // The Kafka sink needs Kafka clients, so it is registered here rather than with the built-ins.
  plugins.register(
    kafkaSinkDescriptor({
      kafka,
      admin,
      plugins,
      transactionalIdPrefix: env.transactionalIdPrefix,
      logger,
    }),
  );
  // Secrets are re-read at most every 5 minutes per container.
  const cache = { ttlMs: 300_000, now: () => Date.now() };
  // The topics this container's tasks have recorded (KIP-558), shared by source and sink tasks.
  const activeTopics = new ActiveTopicTracker(store.topics, {
    enabled: env.topicTracking.enabled,
    logger,
  });
  const source: SourceRuntimeDeps = {
    store,
    admin,
    producers,
    plugins,
    clock: systemClock,
    sleep,
    buildPipeline: (config, task) =>
      buildSourcePipeline(config, task, {
        plugins,
        logger: jsonLogger(env.logLevel, { connector: config.name, task }),
        clock: systemClock,
        sleep,
      }),
    metrics: emfMetrics('ServerlessConnect'),
    logger: jsonLogger(env.logLevel, { component: 'source-runtime' }),
    activeTopics,
    configProviders: {
      env: createEnvConfigProvider(),
      file: createFileConfigProvider(),
      // AWS clients are created here but connect only when a placeholder needs them.
      secretsmanager: createSecretsManagerConfigProvider(sdkSecretsManagerReader(), { cache }),
      ssm: createSsmConfigProvider(sdkParameterStoreReader(), { cache }),
    },
    settings: {
      ...defaultSourceRuntimeSettings,
      transactionalIdPrefix: env.transactionalIdPrefix,
      offsetsTopic: env.offsetsTopic,
      exactlyOnce: env.exactlyOnceSource,
    },
  };
  const sink: SinkFunctionDeps = {
    store,
    plugins,
    clock: systemClock,
    sleep,
    logger,
    tasks: new SinkTaskCache({ logger }),
    aliases: new ConnectorAliasResolver(store.configs),
    // Sink dead letter queues are written outside any transaction, as Kafka Connect does.
    deadLetters: {
      send: async (records) => {
        await (await producers.idempotent()).send(records);
      },
    },
    admin,
    activeTopics,
    // The same providers and metrics as source tasks (one secrets cache per container).
    ...(source.configProviders === undefined ? {} : { configProviders: source.configProviders }),
    ...(source.metrics === undefined ? {} : { metrics: source.metrics }),
  };
  const reconcile: ReconcileTrigger =
    env.enumeratorFunction === undefined
      ? {
          nudge: async (connector) =>
            logger.info('ENUMERATOR_FUNCTION is not set: the next scheduled run reconciles', {
              connector,
            }),
        }
      : new LambdaReconcileTrigger(
          new LambdaClient({ region: env.region }),
          env.enumeratorFunction,
        );
  return {
    env,
    store,
    kafka,
    admin,
    producers,
    plugins,
    logger,
    source,
    sink,
    reconcile,
    close: async () => {
      await sink.tasks.closeAll();
      await producers.closeAll();
      await admin.close();
      await kafka.close();
      dynamo.destroy();
    },
  };
}

let cached: Composition | undefined;

/** The container's composition, built on first use (adapters are never built at module scope). */
export function composition(): Composition {
  cached ??= compose();
  return cached;
}
