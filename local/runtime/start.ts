import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { apiHandler } from '../../functions/api/handler.js';
import { enumeratorHandler } from '../../functions/enumerator/handler.js';
import { sinkTaskHandler } from '../../functions/sink-task/handler.js';
import { defaultConfigProviders } from '../../shared/adapters/config-providers/defaults.js';
import { ensureTable } from '../../shared/adapters/dynamodb/ensure-table.js';
import { MemorySinkMappings } from '../../shared/adapters/memory/memory-sink-mappings.js';
import { CONNECT_VERSION } from '../../shared/control-plane/connect-service.js';
import { checkPluginModules } from '../../shared/engine/plugin-modules.js';
import { LOGGERS, type Logger, silentLogger } from '../../shared/ports/logger.js';
import { sinkFunctionAlias } from '../../shared/runtime/sink/function-alias.js';
import { startApiServer } from '../api-server.js';
import { localEnumerator } from '../dispatch/local-enumerator.js';
import { LocalEventSourceMappings } from '../esm/local-event-source-mappings.js';
import type { MappingStatus } from '../esm/mapping-stats.js';
import { composeLocal } from './compose.js';
import { LocalReconciler } from './local-reconciler.js';
import { LOCAL_DEFAULTS, type LocalRuntimeOptions } from './options.js';
import { ensureBucket, kafkaClusterId, startLocalServices } from './services.js';
import {
  type LocalSourceDispatch,
  localSourceDispatch,
  revokeLeftoverLeases,
} from './source-dispatch.js';

/** One part to stop on shutdown. */
interface Closer {
  readonly part: string;
  close(): Promise<void>;
}

/** A running local runtime. */
export interface LocalRuntime {
  /** The REST API, `http://127.0.0.1:8083` by default. */
  readonly url: string;
  readonly brokers: readonly string[];
  /** True when this runtime started the pinned broker (and stops it on close). */
  readonly brokerStartedHere: boolean;
  readonly kafkaClusterId: string;
  readonly dynamo: {
    readonly endpoint: string;
    readonly table: string;
    readonly directory: string | undefined;
    /** True when the server was given (`--dynamodb-endpoint`), not started here. */
    readonly external: boolean;
  };
  readonly s3: {
    readonly endpoint: string;
    readonly bucket: string;
    readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
    /** Where objects are kept on disk; undefined for a temporary folder. */
    readonly directory: string | undefined;
  };
  readonly connectVersion: string;
  readonly enumeratorIntervalMs: number;
  readonly sourceBudgetMs: number;
  /** The event-source-mapping stand-in's consumers, per sink mapping. */
  mappings(): MappingStatus[];
  /**
   * Graceful shutdown: stops serving, stops dispatch, ends every source invocation at its next
   * loop turn (whole transactions commit, a failing one aborts, nothing partial is committed),
   * waits for sink invocations in flight and closes their consumers, then stops the services.
   * Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Starts everything the deployed system has, in this process: dynalite and s3rver, the broker
 * (KAFKA_BROKERS or the pinned one), the REST API through the same router and proxy-event
 * translation as the API function, the enumerator on a timer and on every change, source tasks
 * in-process with a time budget, and the event-source-mapping stand-in feeding the sink-task
 * handler.
 *
 * @example
 * ```ts
 * const runtime = await startLocalRuntime({ port: 0, memory: true });
 * await fetch(`${runtime.url}/connectors`);
 * await runtime.close();
 * ```
 */
export async function startLocalRuntime(options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  const o = { ...LOCAL_DEFAULTS, ...options };
  // A bad plugin module or config provider setting stops the start before anything is started.
  checkPluginModules(o.pluginModules ?? [], defaultConfigProviders(o.configProviders));
  const services = await startLocalServices({
    dataDir: o.memory === true ? undefined : o.dataDir,
    s3Port: o.s3Port,
    dynamoPort: o.dynamoPort ?? 0,
    ...(o.dynamoEndpoint === undefined ? {} : { dynamoEndpoint: o.dynamoEndpoint }),
    ...(o.brokers === undefined ? {} : { brokers: o.brokers }),
    broker: {
      ...(o.brokerOwner === undefined ? {} : { owner: o.brokerOwner }),
      ...(o.onProgress === undefined ? {} : { onProgress: o.onProgress }),
      ...(o.signal === undefined ? {} : { signal: o.signal }),
    },
  });
  const closers: Closer[] = [{ part: 'services', close: () => services.close() }];
  let log: Logger = silentLogger;
  const unwind = async () => {
    for (const { part, close } of closers.splice(0).reverse()) {
      const started = Date.now();
      await close().then(
        () => log.info('stopped', { part, ms: Date.now() - started }),
        (error: unknown) => log.warn('did not stop cleanly', { part, error }),
      );
    }
  };
  try {
    o.signal?.throwIfAborted();
    const brokers = services.broker.brokers;
    const dynamo = new DynamoDBClient({
      endpoint: services.dynamo.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    closers.push({ part: 'dynamodb client', close: async () => dynamo.destroy() });
    await ensureTable(dynamo, o.stateTable);
    await ensureBucket(services.s3, o.bucket);
    const clusterId = o.kafkaClusterId ?? (await kafkaClusterId(brokers));
    o.signal?.throwIfAborted();

    // The enumerator's and the REST API's triggers reach parts built after the engine.
    let reconciler: LocalReconciler | undefined;
    let dispatch: LocalSourceDispatch | undefined;
    const mappings = new MemorySinkMappings();
    const parts = composeLocal({
      brokers,
      dynamo,
      stateTable: o.stateTable,
      transactionalIdPrefix: o.transactionalIdPrefix,
      offsetsTopic: o.offsetsTopic,
      exactlyOnceSource: o.exactlyOnceSource ?? true,
      topicTracking: {
        enabled: o.topicTracking?.enabled ?? true,
        allowReset: o.topicTracking?.allowReset ?? true,
      },
      kafkaClusterId: clusterId,
      logLevel: o.logLevel ?? 'info',
      configProviders: o.configProviders,
      invoker: {
        invoke: (invocation) => (dispatch as LocalSourceDispatch).invoker.invoke(invocation),
      },
      mappings,
      reconcile: { nudge: async (connector) => reconciler?.nudge(connector) },
      ...(o.sourceSettings === undefined ? {} : { sourceSettings: o.sourceSettings }),
      ...(o.sourceIdleBackoffMaxMs === undefined
        ? {}
        : { idleBackoff: { baseMs: o.enumeratorIntervalMs, maxMs: o.sourceIdleBackoffMaxMs } }),
      ...(o.writeLog === undefined ? {} : { writeLog: o.writeLog }),
      ...(o.pluginModules === undefined ? {} : { pluginModules: o.pluginModules }),
      ...(o.prices === undefined ? {} : { prices: o.prices }),
    });
    closers.push({ part: 'sink tasks and kafka clients', close: () => parts.close() });
    const { engine, levels } = parts;
    await levels.refresh();
    levels.start(o.levelRefreshMs);
    log = levels.logger(LOGGERS.runtime);

    const { rolledBack, rolledForward, torn } = services.s3.recovery;
    if (rolledBack + rolledForward > 0) {
      log.warn('finished the S3 writes an earlier process left', { rolledBack, rolledForward });
    }
    if (torn.length > 0) {
      log.warn('set aside torn S3 objects; their keys read as absent and sinks write them again', {
        torn,
      });
    }
    const revoked = await revokeLeftoverLeases(engine.store, () => Date.now());
    if (revoked.length > 0) {
      log.warn('took back task leases left by an earlier process', { tasks: revoked });
    }

    // The four functions' own handlers, each invoked with the event Lambda would send it.
    const esm = new LocalEventSourceMappings({
      mappings,
      brokers,
      handler: sinkTaskHandler(() => engine),
      aliasFor: sinkFunctionAlias,
      logger: levels.logger(LOGGERS.esm),
    });
    closers.push({ part: 'event source mappings', close: () => esm.close() });

    dispatch = localSourceDispatch(() => engine, {
      budgetMs: o.sourceBudgetMs,
      logger: levels.logger(LOGGERS.source),
      nudge: (connector) => void reconciler?.nudge(connector),
    });
    const invocations = dispatch;
    closers.push({ part: 'source invocations', close: () => invocations.drain() });

    reconciler = new LocalReconciler(localEnumerator(enumeratorHandler(() => engine)), {
      intervalMs: o.enumeratorIntervalMs,
      debounceMs: o.nudgeDebounceMs,
      logger: levels.logger(LOGGERS.enumerator),
    });
    // Closers run in reverse: the API stops, then dispatch, then the source invocations drain,
    // then the sink consumers close (each waits for its invocation in flight), then the services.
    const running = reconciler;
    closers.push({ part: 'enumerator', close: () => running.close() });
    await esm.start();
    await running.runNow();
    running.start();

    const api = await startApiServer({
      host: o.host,
      port: o.port,
      handler: apiHandler(() => engine),
      logger: levels.logger(LOGGERS.rest),
      ...(o.auth === undefined ? {} : { auth: o.auth }),
    });
    closers.push({ part: 'rest api', close: () => api.close() });

    let closing: Promise<void> | undefined;
    return {
      url: api.url,
      brokers,
      brokerStartedHere: services.broker.startedHere,
      kafkaClusterId: clusterId,
      dynamo: {
        endpoint: services.dynamo.endpoint,
        table: o.stateTable,
        directory: services.dynamoDirectory,
        external: o.dynamoEndpoint !== undefined,
      },
      s3: {
        endpoint: services.s3.endpoint,
        bucket: o.bucket,
        credentials: services.s3.credentials,
        directory: services.s3Directory,
      },
      connectVersion: CONNECT_VERSION,
      enumeratorIntervalMs: o.enumeratorIntervalMs,
      sourceBudgetMs: o.sourceBudgetMs,
      mappings: () => esm.status(),
      close: () => {
        closing ??= (async () => {
          log.info('shutting down');
          await unwind();
        })();
        return closing;
      },
    };
  } catch (error) {
    await unwind();
    throw error;
  }
}
