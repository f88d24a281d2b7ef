import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { sdkSecretsManagerReader } from '../shared/adapters/config-providers/aws-sdk-readers.js';
import { defaultConfigProviders } from '../shared/adapters/config-providers/defaults.js';
import { createDynamoDbStateStore } from '../shared/adapters/dynamodb/dynamodb-state-store.js';
import { kafkaSasl } from '../shared/adapters/kafkajs/auth.js';
import { KafkaJsClientFactory } from '../shared/adapters/kafkajs/client.js';
import { mskIamTokenProvider } from '../shared/adapters/kafkajs/msk-iam-token.js';
import { clusterSource } from '../shared/adapters/lambda/cluster-source.js';
import {
  LambdaReconcileTrigger,
  LambdaSourceTaskInvoker,
} from '../shared/adapters/lambda/invoke.js';
import { LambdaSinkMappings } from '../shared/adapters/lambda/sink-mappings.js';
import { emfMetrics } from '../shared/adapters/logging/emf-metrics.js';
import { LoggerLevels } from '../shared/adapters/logging/logger-levels.js';
import { meterS3Requests } from '../shared/adapters/s3/s3-request-meter.js';
import { ConfigError } from '../shared/connect/errors.js';
import { createEngine, type Engine } from '../shared/engine/engine.js';
import { systemClock } from '../shared/ports/clock.js';
import type {
  ReconcileTrigger,
  SinkMappingPort,
  SourceTaskInvoker,
} from '../shared/ports/dispatch.js';
import { UsageScopes } from '../shared/runtime/metering/usage-scopes.js';
import { sinkFunctionAlias } from '../shared/runtime/sink/function-alias.js';
import { DEFAULT_IDLE_BACKOFF } from '../shared/runtime/task/idle-backoff.js';
import { type FunctionEnv, readEnv } from './_env.js';
import { pluginModules } from './_plugins.js';

/**
 * The functions' composition root: the environment → the AWS and Kafka adapters → the engine,
 * with the plugin packages bundled in (`_plugins.ts`). Every handler is a small factory over the engine (functions/<name>/handler.ts).
 */
export interface Composition {
  readonly env: FunctionEnv;
  readonly engine: Engine;
  /** The kafkajs clients the engine stands on. */
  readonly kafka: KafkaJsClientFactory;
  close(): Promise<void>;
}

/** A port that cannot work without an environment variable, failing only when used. */
function missing(variable: string): never {
  throw new ConfigError(`Missing required environment variable ${variable}`, variable);
}

/** Builds the adapters and the engine from the environment. */
export function compose(env: FunctionEnv = readEnv()): Composition {
  const dynamo = new DynamoDBClient({
    region: env.region,
    ...(env.dynamoEndpoint === undefined ? {} : { endpoint: env.dynamoEndpoint }),
  });
  // The metering: the state store's and the S3 connectors' requests are reported to it.
  const usage = new UsageScopes(systemClock);
  const store = createDynamoDbStateStore({ client: dynamo, tableName: env.stateTable, usage });
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
  let lambda: LambdaClient | undefined;
  const lambdaClient = () => {
    lambda ??= new LambdaClient({ region: env.region });
    return lambda;
  };
  // The enumerator's ports; only the enumerator function has (and needs) their variables.
  let invoker: SourceTaskInvoker | undefined;
  const lazyInvoker: SourceTaskInvoker = {
    invoke: (invocation) => {
      invoker ??= new LambdaSourceTaskInvoker(
        lambdaClient(),
        env.sourceTaskFunction ?? missing('SOURCE_TASK_FUNCTION'),
      );
      return invoker.invoke(invocation);
    },
  };
  let mappings: SinkMappingPort | undefined;
  const sinkMappings = (): SinkMappingPort => {
    mappings ??= new LambdaSinkMappings(lambdaClient(), {
      functionName: env.sinkTaskFunction ?? missing('SINK_TASK_FUNCTION'),
      cluster: clusterSource(
        {
          clusterArn: env.kafkaClusterArn,
          accessConfigurations: env.sinkMappingAccessConfigurations,
        },
        env.kafkaBrokers,
        env.kafkaAuth,
      ),
      aliasOf: sinkFunctionAlias,
    });
    return mappings;
  };
  const lazyMappings: SinkMappingPort = {
    list: (connector) => sinkMappings().list(connector),
    create: (spec) => sinkMappings().create(spec),
    update: (mapping, spec) => sinkMappings().update(mapping, spec),
    delete: (mapping) => sinkMappings().delete(mapping),
  };
  // `/admin/loggers` levels, re-read at the start of an invocation when due (the middleware).
  const levels = new LoggerLevels(store.loggers, {
    fallback: env.logLevel,
    refreshEveryMs: env.logLevelRefreshMs,
  });
  const reconcile: ReconcileTrigger | undefined =
    env.enumeratorFunction === undefined
      ? undefined
      : new LambdaReconcileTrigger(lambdaClient(), env.enumeratorFunction);
  const engine = createEngine(
    {
      store,
      kafka,
      loggers: levels.factory(),
      metrics: emfMetrics(env.metricsNamespace, { perPartition: env.metricsPerPartition }),
      configProviders: defaultConfigProviders(env.configProviders),
      pluginModules,
      usage,
      s3ClientHook: (client) => meterS3Requests(client, usage),
      invoker: lazyInvoker,
      mappings: lazyMappings,
      ...(reconcile === undefined ? {} : { reconcile }),
    },
    {
      transactionalIdPrefix: env.transactionalIdPrefix,
      offsetsTopic: env.offsetsTopic,
      exactlyOnceSource: env.exactlyOnceSource,
      topicTracking: env.topicTracking,
      workerId: env.functionName,
      kafkaClusterId: env.kafkaClusterId,
      commit: env.buildCommit,
      rootLogLevel: env.logLevel.toUpperCase(),
      prices: env.prices,
      enumerator: {
        idleBackoff: { ...DEFAULT_IDLE_BACKOFF, maxMs: env.sourceIdleBackoffMaxMs },
      },
    },
  );
  return {
    env,
    engine,
    kafka,
    close: async () => {
      await engine.close();
      await kafka.close();
      lambda?.destroy();
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
