/**
 * The engine: serverless-connect's object graph, built in one place from its ports and one
 * settings object. Lambda (`functions/_compose.ts`), the local runtime (`local/runtime/`),
 * benchmarks and tests all build it here and differ only in the ports they pass: DynamoDB or
 * dynalite, Lambda `Invoke` or in-process invocations, Lambda's event source mappings or the
 * local stand-in, CloudWatch EMF or log lines.
 *
 * It registers the plugins (the built-ins, the Kafka sink over the engine's Kafka clients, and
 * those of the plugin modules given: plugin-modules.ts), builds the source record pipelines, and
 * hands out the source, sink and enumerator runtimes and the REST service. It imports no adapter:
 * the ports come in, nothing reaches out.
 *
 * @example
 * ```ts
 * const engine = createEngine(
 *   { store, kafka, loggers, invoker, mappings, reconcile },
 *   { ...DEFAULT_ENGINE_SETTINGS, kafkaClusterId: 'lkc-123' },
 * );
 * await runSourceInvocation(engine.source, invocation);
 * await engine.close();
 * ```
 */
import type { ConfigProviderResolver } from '../config/config-providers.js';
import { ConfigError } from '../connect/errors.js';
import type { PluginRegistry } from '../connect/plugin.js';
import { ConnectService } from '../control-plane/connect-service.js';
import type { TopicTrackingOptions } from '../control-plane/connectors.js';
import { createRouter, type Router } from '../control-plane/router.js';
import { kafkaSinkDescriptor } from '../plugins/connectors/kafka-sink/descriptor.js';
import type { S3ClientHook } from '../plugins/connectors/s3-client-hook.js';
import { builtinRegistry } from '../plugins/registry.js';
import { type Clock, systemClock } from '../ports/clock.js';
import type { ReconcileTrigger, SinkMappingPort, SourceTaskInvoker } from '../ports/dispatch.js';
import type { KafkaAdminPort, KafkaClientFactory } from '../ports/kafka.js';
import { LOGGERS, type LoggerFactory, silentLoggers } from '../ports/logger.js';
import { type MetricsSink, noMetrics } from '../ports/metrics.js';
import type { StateStore } from '../ports/state-store.js';
import { Enumerator } from '../runtime/enumerator/enumerator.js';
import {
  DEFAULT_ENUMERATOR_SETTINGS,
  type EnumeratorSettings,
} from '../runtime/enumerator/enumerator-types.js';
import { PartitionDiscovery } from '../runtime/enumerator/partition-discovery.js';
import { Metering } from '../runtime/metering/metering.js';
import { DEFAULT_PRICES, type PriceTable } from '../runtime/metering/prices.js';
import type { UsageHoldSettings } from '../runtime/metering/usage-hold.js';
import { UsageScopes } from '../runtime/metering/usage-scopes.js';
import { buildSourcePipeline } from '../runtime/pipeline/source-pipeline.js';
import { ConnectorAliasResolver } from '../runtime/sink/function-alias.js';
import type { SinkFunctionDeps } from '../runtime/sink/sink-runtime-types.js';
import { SinkTaskCache } from '../runtime/sink/sink-task-cache.js';
import { OffsetsTopicReconciler } from '../runtime/source/offsets-reconcile.js';
import { sourceOffsetsTopicWriter } from '../runtime/source/offsets-topic-writer.js';
import { ProducerPool } from '../runtime/source/producer-pool.js';
import {
  defaultSourceRuntimeSettings,
  type SourceRuntimeDeps,
  type SourceRuntimeSettings,
} from '../runtime/source/source-runtime-types.js';
import type { SourceCheckpoint } from '../runtime/source/source-transaction.js';
import { ActiveTopicTracker } from '../runtime/task/active-topics.js';
import { kafkaSinkDeps } from './kafka-sink-deps.js';
import {
  type LoadedPluginModule,
  pluginConfigProviders,
  registerPluginModules,
} from './plugin-modules.js';

/** What the engine stands on; every port but the store and the Kafka clients has a default. */
export interface EnginePorts {
  readonly store: StateStore;
  readonly kafka: KafkaClientFactory;
  /** @default systemClock */
  readonly clock?: Clock;
  /** @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  /** @default silent loggers */
  readonly loggers?: LoggerFactory;
  /** Task metrics. @default none */
  readonly metrics?: MetricsSink;
  /** `${provider:path:key}` placeholders in connector configs. @default none */
  readonly configProviders?: Readonly<Record<string, ConfigProviderResolver>>;
  /** How the enumerator starts source-task invocations. Needed by `enumerator`. */
  readonly invoker?: SourceTaskInvoker;
  /** The sink connectors' event source mappings. Needed by `enumerator`. */
  readonly mappings?: SinkMappingPort;
  /** What the REST service nudges after each write. @default a trigger that only logs */
  readonly reconcile?: ReconcileTrigger;
  /**
   * Plugin packages: their plugins are registered beside the built-in ones, their config
   * providers beside `configProviders`; a name taken twice throws (plugin-modules.ts).
   * @default none
   */
  readonly pluginModules?: readonly LoadedPluginModule[];
  /** Uniform in [0, 1), for the sink tasks' retry jitter. @default Math.random */
  readonly random?: () => number;
  /**
   * Test hook: called at each step of a source task's transaction protocol; throwing there
   * abandons the invocation as a crash would (the crash campaigns). @default none
   */
  readonly checkpoint?: (point: SourceCheckpoint) => Promise<void>;
  /**
   * The metering's async context. The composition root makes it and gives it to the state
   * store's adapter (consumed capacity) and the S3 hook too, so their requests are metered.
   * @default a new one: only what the runtime itself reports (durations, Kafka traffic)
   */
  readonly usage?: UsageScopes;
  /** Called with every S3 client the S3 connectors make (the metering's middleware). @default none */
  readonly s3ClientHook?: S3ClientHook;
}

/** How the engine behaves: Kafka Connect's worker settings, in one object. */
export interface EngineSettings {
  /** Prefix of the source tasks' transactional ids and client ids. */
  readonly transactionalIdPrefix: string;
  /** The worker's offsets topic (Connect's `offset.storage.topic`). */
  readonly offsetsTopic: string;
  /** Connect's worker `exactly.once.source.support`. */
  readonly exactlyOnceSource: boolean;
  /** Connect's `topic.tracking.enable` and `topic.tracking.allow.reset`. */
  readonly topicTracking: Required<TopicTrackingOptions>;
  /** `worker_id` of REST answers and of the enumerator's writes. */
  readonly workerId: string;
  /** `kafka_cluster_id` of `GET /`. */
  readonly kafkaClusterId: string;
  /** `commit` of `GET /`. @default 'unknown' */
  readonly commit?: string;
  /** The `root` level `GET /admin/loggers` reports until one is set. @default 'INFO' */
  readonly rootLogLevel?: string;
  /**
   * How long `PATCH`/`DELETE /connectors/{c}/offsets` may spend on the zombie-fencing round of a stopped source
   * connector's tasks before answering 409. @default ZOMBIE_FENCING_TIMEOUT_MS (10 s)
   */
  readonly zombieFencingTimeoutMs?: number;
  /** Source runtime settings beyond the ones above (tests, the local runtime). */
  readonly source?: Partial<SourceRuntimeSettings>;
  /** Enumerator settings beyond the ones above. */
  readonly enumerator?: Partial<EnumeratorSettings>;
  /** The prices of the cost endpoint and metric (`COST_PRICES`). @default DEFAULT_PRICES */
  readonly prices?: PriceTable;
  /** How long a container may hold its metered usage before writing it. @default DEFAULT_USAGE_HOLD */
  readonly usageHold?: UsageHoldSettings;
}

/** Kafka Connect's defaults. */
export const DEFAULT_ENGINE_SETTINGS: EngineSettings = {
  transactionalIdPrefix: 'serverless-connect',
  offsetsTopic: 'connect-offsets',
  exactlyOnceSource: true,
  topicTracking: { enabled: true, allowReset: true },
  workerId: 'serverless-connect',
  kafkaClusterId: 'unknown',
};

/** The built engine. Parts are built on first use; `close()` stops what was built. */
export interface Engine {
  readonly settings: EngineSettings;
  readonly store: StateStore;
  readonly kafka: KafkaClientFactory;
  readonly admin: KafkaAdminPort;
  readonly plugins: PluginRegistry;
  readonly loggers: LoggerFactory;
  /** Where task and enumerator metrics go (none unless the ports gave a sink). */
  readonly metrics: MetricsSink;
  /** The source runtime with the engine's producers (one pool per Lambda container). */
  readonly source: SourceRuntimeDeps;
  /** The source runtime over other producers (an in-process invocation's own). */
  sourceWith(producers: ProducerPool): SourceRuntimeDeps;
  readonly sink: SinkFunctionDeps;
  /** @throws ConfigError when the engine was built without `invoker` or `mappings`. */
  readonly enumerator: Enumerator;
  readonly service: ConnectService;
  readonly router: Router;
  /** The metering's async context (what the runtime attributes usage through). */
  readonly usage: UsageScopes;
  /** Meters each function invocation (functions/_middleware/metering.ts). */
  readonly metering: Metering;
  /**
   * Writes the metering's held usage, stops the sink tasks and closes the engine's Kafka clients
   * (not the ports it was given).
   */
  close(): Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Builds the engine over `ports`; see the module notes. */
export function createEngine(ports: EnginePorts, settings: EngineSettings): Engine {
  const clock = ports.clock ?? systemClock;
  const sleep = ports.sleep ?? defaultSleep;
  const loggers = ports.loggers ?? silentLoggers;
  const { store, kafka } = ports;
  const usage = ports.usage ?? new UsageScopes(clock);
  const prices = settings.prices ?? DEFAULT_PRICES;
  const admin = kafka.admin();
  const producers = new ProducerPool(kafka);
  // Sink dead letter queues are written outside any transaction, as Kafka Connect does.
  const deadLetterProducers = new ProducerPool(kafka);
  const plugins = builtinRegistry(
    ports.s3ClientHook === undefined ? {} : { s3Client: ports.s3ClientHook },
  );
  // The Kafka sink writes through the engine's Kafka clients.
  plugins.register(
    kafkaSinkDescriptor(
      kafkaSinkDeps({
        kafka,
        admin,
        plugins,
        transactionalIdPrefix: settings.transactionalIdPrefix,
        logger: loggers(LOGGERS.sink),
      }),
    ),
  );
  const modules = ports.pluginModules ?? [];
  registerPluginModules(plugins, modules);
  const configProviders = pluginConfigProviders(ports.configProviders ?? {}, modules);
  const activeTopics = new ActiveTopicTracker(store.topics, {
    enabled: settings.topicTracking.enabled,
    logger: loggers(LOGGERS.source),
  });
  const providers =
    ports.configProviders === undefined && Object.keys(configProviders).length === 0
      ? {}
      : { configProviders };
  const metrics = ports.metrics === undefined ? {} : { metrics: ports.metrics };
  const checkpoint = ports.checkpoint === undefined ? {} : { checkpoint: ports.checkpoint };
  const random = ports.random === undefined ? {} : { random: ports.random };

  // When each task last read the offsets topic in this container (a Lambda container, npm start).
  const offsetsTopicReconciler = new OffsetsTopicReconciler();
  const sourceWith = (pool: ProducerPool): SourceRuntimeDeps => ({
    store,
    admin,
    producers: pool,
    offsetsTopicReconciler,
    plugins,
    clock,
    sleep,
    usage,
    buildPipeline: (config, task) =>
      buildSourcePipeline(config, task, {
        plugins,
        logger: loggers(LOGGERS.source, { connector: config.name, task }),
        clock,
        sleep,
      }),
    logger: loggers(LOGGERS.source),
    activeTopics,
    settings: {
      ...defaultSourceRuntimeSettings,
      ...settings.source,
      transactionalIdPrefix: settings.transactionalIdPrefix,
      offsetsTopic: settings.offsetsTopic,
      exactlyOnce: settings.exactlyOnceSource,
    },
    ...providers,
    ...metrics,
    ...checkpoint,
  });

  const sinkLogger = loggers(LOGGERS.sink);
  const sink: SinkFunctionDeps = {
    store,
    plugins,
    clock,
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
    activeTopics,
    usage,
    ...providers,
    ...metrics,
    ...random,
  };

  const reconcile: ReconcileTrigger = ports.reconcile ?? {
    nudge: async (connector) =>
      loggers(LOGGERS.rest).info('no enumerator trigger: the next scheduled run reconciles', {
        connector,
      }),
  };

  let enumerator: Enumerator | undefined;
  let service: ConnectService | undefined;
  let router: Router | undefined;
  const buildEnumerator = (): Enumerator => {
    const { invoker, mappings } = ports;
    if (invoker === undefined || mappings === undefined) {
      throw new ConfigError(
        'The enumerator needs a source-task invoker and sink mappings; this engine has none',
      );
    }
    return new Enumerator({
      store,
      admin,
      plugins,
      invoker,
      mappings,
      kafka,
      clock,
      logger: loggers(LOGGERS.enumerator),
      discovery: new PartitionDiscovery(),
      usage,
      ...providers,
      settings: {
        ...DEFAULT_ENUMERATOR_SETTINGS,
        ...settings.enumerator,
        workerId: settings.enumerator?.workerId ?? settings.workerId,
        // The source tasks' names: the enumerator fences their producers and settles their offsets.
        transactionalIdPrefix: settings.transactionalIdPrefix,
      },
    });
  };
  const buildService = (): ConnectService =>
    new ConnectService(
      {
        store,
        plugins,
        reconcile,
        clock,
        logger: loggers(LOGGERS.rest),
        ...providers,
        // Offsets requests right after a stop fence the stopped tasks themselves.
        zombieFencing: {
          kafka,
          admin,
          transactionalIdPrefix: settings.transactionalIdPrefix,
        },
        offsetsTopic: sourceOffsetsTopicWriter({
          producers,
          admin,
          settings: {
            ...defaultSourceRuntimeSettings,
            ...settings.source,
            offsetsTopic: settings.offsetsTopic,
          },
        }),
      },
      {
        kafkaClusterId: settings.kafkaClusterId,
        workerId: settings.workerId,
        exactlyOnceSourceEnabled: settings.exactlyOnceSource,
        topicTracking: settings.topicTracking,
        prices,
        ...(settings.commit === undefined ? {} : { commit: settings.commit }),
        ...(settings.rootLogLevel === undefined ? {} : { rootLogLevel: settings.rootLogLevel }),
        ...(settings.zombieFencingTimeoutMs === undefined
          ? {}
          : { zombieFencingTimeoutMs: settings.zombieFencingTimeoutMs }),
      },
    );

  const source = sourceWith(producers);
  const metering = new Metering({
    scopes: usage,
    store: store.usage,
    prices,
    clock,
    logger: loggers(LOGGERS.metrics),
    ...metrics,
    ...(settings.usageHold === undefined ? {} : { hold: settings.usageHold }),
  });
  return {
    settings,
    store,
    kafka,
    admin,
    plugins,
    loggers,
    metrics: ports.metrics ?? noMetrics,
    usage,
    metering,
    source,
    sourceWith,
    sink,
    get enumerator() {
      enumerator ??= buildEnumerator();
      return enumerator;
    },
    get service() {
      service ??= buildService();
      return service;
    },
    get router() {
      service ??= buildService();
      router ??= createRouter(service, { logger: loggers(LOGGERS.rest), clock, usage });
      return router;
    },
    close: async () => {
      // A process that stops writes the usage its container held (a Lambda container cannot).
      await metering.flush();
      await sink.tasks.closeAll();
      await producers.closeAll();
      await deadLetterProducers.closeAll();
      await admin.close();
    },
  };
}
