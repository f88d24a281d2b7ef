/**
 * Starting a sink task instance from the stored connector and task configs: resolve config
 * providers, parse the connector config, build the record pipeline (creating the dead letter
 * topic when missing), create the task and call `start`. And stopping one.
 */
import { type ConfigProviderResolver, resolvePlaceholders } from '../../config/config-providers.js';
import {
  type ParsedSinkConnectorConfig,
  parseConnectorConfig,
} from '../../config/connector-config.js';
import type { PluginRegistry } from '../../connect/plugin.js';
import type { TopicPartition } from '../../connect/records.js';
import type { SinkConnector, SinkTask } from '../../connect/sink.js';
import type { Clock } from '../../ports/clock.js';
import type { ConnectorRecord, TaskConfigEntry } from '../../ports/config-store.js';
import type { KafkaAdminPort } from '../../ports/kafka.js';
import type { TaskRef } from '../../ports/lease-store.js';
import type { Logger } from '../../ports/logger.js';
import type { DeadLetterSink } from '../pipeline/dead-letter.js';
import { deadLetterTopicSpec, errorHandlingSettingsOf } from '../pipeline/error-tolerance.js';
import { buildSinkPipeline, type SinkRecordPipeline } from '../pipeline/sink-pipeline.js';
import { taskStoppingOffsets } from '../task/task-split.js';
import { SinkTaskContextImpl } from './sink-task-context.js';

/** A started task instance, kept by a warm container across batches. */
export interface StartedSinkTask {
  readonly ref: TaskRef;
  /** The connector config version and task generation it was started for. */
  readonly identity: string;
  readonly task: SinkTask;
  readonly taskClass: string;
  readonly config: ParsedSinkConnectorConfig;
  readonly pipeline: SinkRecordPipeline;
  readonly context: SinkTaskContextImpl;
  /** Stopping offsets (exclusive) by partition id, in bounded mode. */
  readonly stopping: ReadonlyMap<string, number>;
  /** Partitions this instance has opened, by partition id. */
  readonly opened: Map<string, TopicPartition>;
}

/** What starting a task needs (a part of `SinkRuntimeDeps`; see there). */
export interface SinkTaskStartDeps {
  readonly plugins: PluginRegistry;
  readonly clock: Clock;
  readonly sleep: (ms: number) => Promise<void>;
  readonly logger: Logger;
  readonly random?: () => number;
  readonly deadLetters?: DeadLetterSink;
  readonly admin?: Pick<KafkaAdminPort, 'createTopics'>;
  readonly configProviders?: Readonly<Record<string, ConfigProviderResolver>>;
}

/** The identity a started task must match to be reused. */
export function taskIdentity(record: ConnectorRecord, entry: TaskConfigEntry): string {
  return `v${record.version}/g${entry.generation}`;
}

/**
 * Creates and starts task `entry.task` of the sink connector `record`. Whatever was built is
 * released when a step fails; the error propagates.
 */
export async function startSinkTask(
  deps: SinkTaskStartDeps,
  record: ConnectorRecord,
  entry: TaskConfigEntry,
): Promise<StartedSinkTask> {
  const ref = { connector: record.name, task: entry.task };
  const providers = deps.configProviders ?? {};
  const resolved = await resolvePlaceholders(record.config, providers);
  const config = parseConnectorConfig({ ...resolved, name: record.name }, 'sink');
  const taskConfig = await resolvePlaceholders(entry.config, providers);
  const connector = deps.plugins.resolve(config.connectorClass, 'sink').create() as SinkConnector;
  const dlq = deadLetterTopicSpec(errorHandlingSettingsOf(config));
  if (dlq !== undefined && deps.admin !== undefined) await deps.admin.createTopics([dlq]);
  const pipeline = buildSinkPipeline(config, entry.task, {
    plugins: deps.plugins,
    logger: deps.logger,
    clock: deps.clock,
    sleep: deps.sleep,
    ...(deps.random === undefined ? {} : { random: deps.random }),
    ...(deps.deadLetters === undefined ? {} : { deadLetters: deps.deadLetters }),
  });
  let task: SinkTask | undefined;
  try {
    const created = connector.createTask();
    task = created;
    const context = new SinkTaskContextImpl({
      ref,
      config: taskConfig,
      logger: deps.logger,
      pipeline,
      taskClass: () => created.constructor.name,
    });
    await created.start(taskConfig, context);
    return {
      ref,
      identity: taskIdentity(record, entry),
      task: created,
      taskClass: created.constructor.name,
      config,
      pipeline,
      context,
      stopping: taskStoppingOffsets(entry.config),
      opened: new Map(),
    };
  } catch (error) {
    pipeline.close();
    await task?.stop().catch(() => undefined);
    throw error;
  }
}

/**
 * Closes the instance's open partitions and stops it (Connect's order: `close`, then `stop`).
 * Never throws: a task that fails to stop is logged and dropped.
 */
export async function stopSinkTask(started: StartedSinkTask, logger: Logger): Promise<void> {
  const fields = { connector: started.ref.connector, task: started.ref.task };
  try {
    await started.task.close([...started.opened.values()]);
  } catch (error) {
    logger.warn('sink task failed to close its partitions', { ...fields, error });
  }
  started.opened.clear();
  try {
    await started.task.stop();
  } catch (error) {
    logger.warn('sink task failed to stop', { ...fields, error });
  }
  started.pipeline.close();
}
