/**
 * The Kafka Connect REST API as a service, with no transport: every endpoint of
 * Kafka Connect's REST API (its `ConnectorsResource`, `ConnectorPluginsResource`, `LoggingResource`) over the state store, the plugin registry and
 * the reconcile trigger. `router.ts` maps HTTP onto it.
 */
import { DEFAULT_PRICES, type PriceTable } from '../runtime/metering/prices.js';
import { ConnectorConfigValidator } from './config-validation.js';
import { ConnectorsApi, type TopicTrackingOptions } from './connectors.js';
import { CostApi } from './cost.js';
import type { ServerInfo, WorkerStatus } from './dto.js';
import { LifecycleApi } from './lifecycle.js';
import { LoggersApi } from './loggers.js';
import { OffsetsApi } from './offsets.js';
import { PluginsApi } from './plugins.js';
import type { ConnectServiceDeps, ServiceContext } from './service-context.js';

/** This project's version (`serverless_connect_version` of `GET /`). */
export const SERVERLESS_CONNECT_VERSION = '0.1.0';

/**
 * The Apache Kafka Connect version `GET /` reports: the release whose REST API this one
 * reproduces (3.9 plus nothing removed: `tasks-config` is still served). kcctl needs at least
 * 3.5 for `stop` and offsets.
 */
export const CONNECT_VERSION = '3.9.0';

/**
 * How long an offsets request may spend on the zombie-fencing round of the tasks a stop took
 * away before it answers 409 ("still being fenced, retry"). A round takes well under a second
 * on a local broker (one InitProducerId per task, in parallel; about 0.3 s of it waiting for the
 * broker to abort the stopped invocation's open transaction); the bound leaves room for a slow
 * broker while keeping the whole request far inside API Gateway's 29-second integration timeout.
 */
export const ZOMBIE_FENCING_TIMEOUT_MS = 10_000;

export interface ConnectServiceOptions {
  /** `kafka_cluster_id` of `GET /`: the Kafka cluster the deployment writes to. */
  readonly kafkaClusterId: string;
  /** @default {@link CONNECT_VERSION} */
  readonly connectVersion?: string;
  /** @default {@link SERVERLESS_CONNECT_VERSION} */
  readonly version?: string;
  /** `commit` of `GET /` (a build's git commit). @default 'unknown' */
  readonly commit?: string;
  /** `worker_id` of instances with no stored status. @default 'serverless-connect' */
  readonly workerId?: string;
  /** The deployment's exactly-once source support (validation of `exactly.once.support`). @default true */
  readonly exactlyOnceSourceEnabled?: boolean;
  readonly topicTracking?: TopicTrackingOptions;
  /** Level reported for the `root` logger until one is set. @default 'INFO' */
  readonly rootLogLevel?: string;
  /**
   * How long `PATCH`/`DELETE /connectors/{c}/offsets` may spend on the zombie-fencing round of
   * a stopped source connector's tasks before answering 409.
   * @default {@link ZOMBIE_FENCING_TIMEOUT_MS}
   */
  readonly zombieFencingTimeoutMs?: number;
  /** The prices of `GET /connectors/{c}/cost` (the deployment's `COST_PRICES`). @default DEFAULT_PRICES */
  readonly prices?: PriceTable;
}

/**
 * Every endpoint, grouped by area: `connectors`, `lifecycle`, `offsets`, `plugins`,
 * `loggers`, plus the root resource. Methods throw the errors of `errors.ts` and of the ports;
 * `errors.ts#mapError` turns them into Connect's status codes.
 *
 * Every write nudges the enumerator (`deps.reconcile`) without waiting for it; a failed nudge
 * is logged. `waitForNudges()` waits for the nudges in flight (a Lambda handler calls it before
 * returning, so the container is not frozen with an invocation half sent).
 *
 * @example
 * ```ts
 * const service = new ConnectService(
 *   { store, plugins: builtinRegistry(), reconcile, clock: systemClock, logger },
 *   { kafkaClusterId: 'lkc-123' },
 * );
 * const info = await service.connectors.create({ name: 'orders', config: { 'connector.class': 'datagen', 'kafka.topic': 'orders' } });
 * ```
 */
export class ConnectService {
  readonly connectors: ConnectorsApi;
  readonly lifecycle: LifecycleApi;
  readonly offsets: OffsetsApi;
  readonly plugins: PluginsApi;
  readonly loggers: LoggersApi;
  /** Our extension: what each connector costs (not Apache Kafka Connect's). */
  readonly cost: CostApi;
  readonly #deps: ConnectServiceDeps;
  readonly #info: ServerInfo;
  readonly #nudges = new Set<Promise<void>>();

  constructor(deps: ConnectServiceDeps, options: ConnectServiceOptions) {
    this.#deps = deps;
    this.#info = {
      version: options.connectVersion ?? CONNECT_VERSION,
      commit: options.commit ?? 'unknown',
      kafka_cluster_id: options.kafkaClusterId,
      serverless_connect_version: options.version ?? SERVERLESS_CONNECT_VERSION,
    };
    const validator = new ConnectorConfigValidator(deps.plugins, {
      ...(options.exactlyOnceSourceEnabled === undefined
        ? {}
        : { exactlyOnceSourceEnabled: options.exactlyOnceSourceEnabled }),
      ...(deps.configProviders === undefined ? {} : { configProviders: deps.configProviders }),
    });
    const ctx: ServiceContext = {
      ...deps,
      validator,
      workerId: options.workerId ?? 'serverless-connect',
      zombieFencingTimeoutMs: options.zombieFencingTimeoutMs ?? ZOMBIE_FENCING_TIMEOUT_MS,
      nudge: (connector) => this.#nudge(connector),
    };
    this.cost = new CostApi(ctx, options.prices ?? DEFAULT_PRICES, () => this.connectors.names());
    this.connectors = new ConnectorsApi(ctx, options.topicTracking, this.cost);
    this.lifecycle = new LifecycleApi(ctx);
    this.offsets = new OffsetsApi(ctx);
    this.plugins = new PluginsApi(deps.plugins, validator);
    this.loggers = new LoggersApi(deps.store, options.rootLogLevel ?? 'INFO');
  }

  /** `GET /`. */
  serverInfo(): ServerInfo {
    return this.#info;
  }

  /**
   * `GET /health` (Connect 3.9): healthy when the state store answers. The unhealthy body also
   * carries `error_code`, so it is a well-formed error body as well as a WorkerStatus.
   */
  async health(): Promise<{ readonly healthy: boolean; readonly body: WorkerStatus }> {
    try {
      await this.#deps.store.loggers.getLoggerLevel('root');
      return {
        healthy: true,
        body: {
          status: 'healthy',
          message: 'Worker has completed startup and is ready to handle requests.',
        },
      };
    } catch (error) {
      this.#deps.logger.error('health check: the state store did not answer', { error });
      return {
        healthy: false,
        body: { status: 'unhealthy', message: 'The state store did not answer.' },
      };
    }
  }

  /**
   * Resolves once every nudge started so far has finished, or after `timeoutMs`; never rejects.
   * A nudge still pending then is left to finish (or be lost: the schedule covers it).
   */
  async waitForNudges(timeoutMs = Number.POSITIVE_INFINITY): Promise<void> {
    const all = Promise.all([...this.#nudges]).then(() => undefined);
    if (!Number.isFinite(timeoutMs)) return all;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref?.();
    });
    await Promise.race([all, timeout]);
    clearTimeout(timer);
  }

  #nudge(connector: string): void {
    const logFailure = (error: unknown) =>
      this.#deps.logger.warn(
        'could not nudge the enumerator; the next scheduled run applies the change',
        {
          connector,
          error,
        },
      );
    let pending: Promise<void>;
    try {
      pending = this.#deps.reconcile.nudge(connector).catch(logFailure);
    } catch (error) {
      logFailure(error);
      return;
    }
    this.#nudges.add(pending);
    void pending.finally(() => this.#nudges.delete(pending));
  }
}
