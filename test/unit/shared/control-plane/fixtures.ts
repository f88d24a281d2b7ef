/**
 * Shared by the control-plane unit and integration tests: a test sink plugin, a recording
 * reconcile trigger, the REST service of an engine over any state store and a fake cluster, and
 * a stand-in for the enumerator that writes task configs and statuses the way the runtime does.
 */
import { createMemoryStateStore } from '../../../../shared/adapters/memory/memory-state-store.js';
import { ConfigDef } from '../../../../shared/connect/config-def.js';
import type { ConfigProviderResolver } from '../../../../shared/connect/config-provider.js';
import { Range } from '../../../../shared/connect/config-validators.js';
import type { ConnectorContext } from '../../../../shared/connect/context.js';
import type { PluginDescriptor } from '../../../../shared/connect/plugin.js';
import type { SinkRecord } from '../../../../shared/connect/records.js';
import { SinkConnector, SinkTask } from '../../../../shared/connect/sink.js';
import type { ConnectService } from '../../../../shared/control-plane/connect-service.js';
import type { Router } from '../../../../shared/control-plane/router.js';
import {
  createEngine,
  DEFAULT_ENGINE_SETTINGS,
  type EngineSettings,
} from '../../../../shared/engine/engine.js';
import type { ReconcileTrigger } from '../../../../shared/ports/dispatch.js';
import type { LogFields, Logger } from '../../../../shared/ports/logger.js';
import type { StateStore } from '../../../../shared/ports/state-store.js';
import type { TaskState } from '../../../../shared/ports/status-store.js';
import { testPlugins } from '../../../support/plugin-modules.js';
import { FakeKafkaClients } from '../runtime/enumerator/fixtures.js';

class TestSinkTask extends SinkTask {
  version(): string {
    return '1.0.0';
  }
  async start(): Promise<void> {}
  async put(_records: readonly SinkRecord[]): Promise<void> {}
  async stop(): Promise<void> {}
}

/** Offset changes the test sink saw through its `alterOffsets` hook. */
export const sinkHookCalls: ReadonlyMap<string, number | null>[] = [];
/** The configs the test sink's `alterOffsets` was given, in call order. */
export const sinkHookConfigs: Readonly<Record<string, string>>[] = [];

/**
 * A sink with a PASSWORD key (`secret.token`), a required key when `strict=true`, an INT key
 * with a range, and an `alterOffsets` hook that acknowledges (or refuses when the config has
 * `refuse.offsets=true`).
 */
export class TestSinkConnector extends SinkConnector {
  version(): string {
    return '1.0.0';
  }
  config(): ConfigDef {
    return new ConfigDef()
      .define({
        name: 'secret.token',
        type: 'PASSWORD',
        defaultValue: null,
        importance: 'HIGH',
        documentation: 'A secret.',
      })
      .define({
        name: 'batch.size',
        type: 'INT',
        defaultValue: 100,
        validator: Range.atLeast(1),
        importance: 'MEDIUM',
        documentation: 'Records per write.',
      });
  }
  async start(
    _props: Readonly<Record<string, string>>,
    _context: ConnectorContext,
  ): Promise<void> {}
  async taskConfigs(maxTasks: number): Promise<Record<string, string>[]> {
    return Array.from({ length: maxTasks }, () => ({}));
  }
  async stop(): Promise<void> {}
  createTask(): SinkTask {
    return new TestSinkTask();
  }
  override async alterOffsets(
    config: Readonly<Record<string, string>>,
    offsets: ReadonlyMap<string, number | null>,
  ): Promise<boolean> {
    if (config['refuse.offsets'] === 'true') throw new Error('offsets are managed elsewhere');
    sinkHookCalls.push(offsets);
    sinkHookConfigs.push(config);
    return true;
  }
}

export const TEST_SINK_CLASS = 'dev.test.TestSinkConnector';

export const testSinkDescriptor: PluginDescriptor<'sink'> = {
  className: TEST_SINK_CLASS,
  aliases: ['test-sink'],
  type: 'sink',
  version: '1.0.0',
  create: () => new TestSinkConnector(),
};

/** A valid sink config (`test-sink` reading `orders`). */
export function sinkConfig(extra: Record<string, string> = {}): Record<string, string> {
  return { 'connector.class': 'test-sink', topics: 'orders', 'tasks.max': '2', ...extra };
}

/** A valid source config (`datagen` writing `out`). */
export function sourceConfig(extra: Record<string, string> = {}): Record<string, string> {
  return { 'connector.class': 'datagen', 'kafka.topic': 'out', 'tasks.max': '1', ...extra };
}

/** Records every nudge; fails them when `failing` is set. */
export class RecordingTrigger implements ReconcileTrigger {
  readonly nudges: (string | undefined)[] = [];
  failing = false;
  async nudge(connector?: string): Promise<void> {
    this.nudges.push(connector);
    if (this.failing) throw new Error('enumerator unreachable');
  }
}

/** A logger that keeps its lines. */
export class RecordingLogger implements Logger {
  readonly lines: { level: string; message: string; fields: LogFields | undefined }[] = [];
  error(message: string, fields?: LogFields): void {
    this.lines.push({ level: 'error', message, fields });
  }
  warn(message: string, fields?: LogFields): void {
    this.lines.push({ level: 'warn', message, fields });
  }
  info(message: string, fields?: LogFields): void {
    this.lines.push({ level: 'info', message, fields });
  }
  debug(_message: string, _fields?: LogFields): void {}
}

export interface TestApi {
  readonly store: StateStore;
  readonly service: ConnectService;
  readonly router: Router;
  readonly trigger: RecordingTrigger;
  readonly logger: RecordingLogger;
  /** The Kafka clients the offsets requests fence with. */
  readonly kafka: FakeKafkaClients;
}

/**
 * The REST service and router of an engine over `store` (memory by default) and a fake cluster
 * (`kafka`), with the built-ins and the test sink; `settings` on top of the engine's defaults.
 */
export function testApi(
  store: StateStore = createMemoryStateStore(),
  settings: Partial<EngineSettings> = {},
  kafka: FakeKafkaClients = new FakeKafkaClients(),
  configProviders?: Readonly<Record<string, ConfigProviderResolver>>,
): TestApi {
  const trigger = new RecordingTrigger();
  const logger = new RecordingLogger();
  const engine = createEngine(
    {
      store,
      kafka,
      pluginModules: testPlugins(testSinkDescriptor),
      reconcile: trigger,
      loggers: () => logger,
      ...(configProviders === undefined ? {} : { configProviders }),
    },
    { ...DEFAULT_ENGINE_SETTINGS, kafkaClusterId: 'test-cluster', ...settings },
  );
  return { store, service: engine.service, router: engine.router, trigger, logger, kafka };
}

/**
 * Stands in for the enumerator and the task invocations: writes `count` task configs and a
 * status per task (`states[i]`, RUNNING by default) plus a RUNNING connector status.
 */
export async function runTasks(
  store: StateStore,
  name: string,
  count: number,
  states: readonly TaskState[] = [],
): Promise<void> {
  const current = await store.configs.getTaskConfigs(name);
  await store.configs.putTaskConfigs(
    name,
    Array.from({ length: count }, (_, task) => ({ 'task.id': String(task) })),
    current.version,
  );
  await store.status.putConnectorStatus(name, { state: 'RUNNING', workerId: 'enumerator' });
  for (let task = 0; task < count; task += 1) {
    const state = states[task] ?? 'RUNNING';
    await store.status.putTaskStatus(
      { connector: name, task },
      {
        state,
        workerId: `worker-${task}`,
        ...(state === 'FAILED' ? { trace: 'Error: boom\n    at poll (task.ts:1:1)' } : {}),
      },
    );
  }
}

let counter = 0;
/** A connector name unique within the process. */
export function connectorName(prefix = 'c'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}

export interface CallResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body; `undefined` for an empty response. */
  // biome-ignore lint/suspicious/noExplicitAny: test responses are checked field by field
  readonly body: any;
}

/** One request through the router; `body` objects are sent as JSON. */
export async function call(
  router: Router,
  method: string,
  path: string,
  options: {
    readonly body?: unknown;
    readonly query?: Record<string, readonly string[]>;
    readonly headers?: Record<string, string>;
  } = {},
): Promise<CallResult> {
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  const response = await router.handle({
    method,
    path,
    ...(options.query === undefined ? {} : { query: options.query }),
    headers: { 'Content-Type': 'application/json', ...options.headers },
    ...(body === undefined ? {} : { body }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: response.body === undefined ? undefined : JSON.parse(response.body),
  };
}

/** `/connectors/<name>` with the name percent-encoded, plus `suffix`. */
export function connectorPath(name: string, suffix = ''): string {
  return `/connectors/${encodeURIComponent(name)}${suffix}`;
}
