/**
 * The task configs the enumerator writes for a connector: what the connector's `taskConfigs`
 * returns, and, for connectors that read Kafka topics, each task's share of the partitions
 * (sticky and balanced, see assignor.ts) and its stopping offsets in bounded mode.
 */

import { hasPlaceholder } from '../../config/config-providers.js';
import type { ParsedConnectorConfig } from '../../config/connector-config.js';
import {
  parseTopicPartitionId,
  type TopicPartitionRef,
  topicPartitionId,
} from '../../config/kafka-subscription-config.js';
import type { Connector } from '../../connect/connector.js';
import type { ConnectorContext } from '../../connect/context.js';
import { ConnectError } from '../../connect/errors.js';
import type { ConfigMap, TaskConfigEntry } from '../../ports/config-store.js';
import type { SinkOffset } from '../../ports/offset-store.js';
import { taskPartitionIds, taskStoppingOffsets, withTaskSplit } from '../task/task-split.js';
import { type Assignment, assignSplits } from './assignor.js';

/** Kafka Connect's refusal when a connector makes more task configs than tasks.max allows. */
export class TooManyTasksError extends ConnectError {
  constructor(connector: string, generated: number, max: number) {
    super(
      `The connector ${connector} has generated ${generated} tasks, which is greater than ${max}, ` +
        'the maximum number of tasks it is configured to create. This behavior should be ' +
        'considered a bug and is disallowed. If necessary, it can be permitted by reconfiguring ' +
        "the connector with 'tasks.max.enforce' set to false; however, this option will be " +
        'removed in a future release of Kafka Connect.',
    );
  }
}

/** A context for the short life of a connector inside one enumerator run. */
class EnumeratorConnectorContext implements ConnectorContext {
  failure: Error | undefined;
  requestTaskReconfiguration(): void {
    // Every enumerator run asks for task configs again; nothing to remember.
  }
  raiseError(error: Error): void {
    this.failure = error;
  }
}

/**
 * Starts `connector` with the resolved config, asks for `tasks.max` task configs and stops it.
 * @throws whatever the connector throws or raises, and TooManyTasksError.
 */
export async function generateTaskConfigs(
  connector: Connector,
  config: ParsedConnectorConfig,
  resolved: ConfigMap,
): Promise<ConfigMap[]> {
  const context = new EnumeratorConnectorContext();
  await connector.start(resolved, context);
  try {
    const configs = await connector.taskConfigs(config.tasksMax);
    if (context.failure !== undefined) throw context.failure;
    if (configs.length > config.tasksMax && config.tasksMaxEnforce) {
      throw new TooManyTasksError(config.name, configs.length, config.tasksMax);
    }
    return configs.map((c) => ({ ...c }));
  } finally {
    await connector.stop();
  }
}

/**
 * Puts placeholders back where the connector copied a resolved secret into a task config
 * (Kafka Connect's `reverseTransform`), so stored task configs hold `${provider:path:key}`
 * and never the secret.
 */
export function reverseTransform(
  raw: ConfigMap,
  resolved: ConfigMap,
  taskConfigs: readonly ConfigMap[],
): ConfigMap[] {
  const secretKeys = Object.keys(raw).filter((key) => hasPlaceholder(raw[key] ?? ''));
  return taskConfigs.map((config) => {
    const copy: Record<string, string> = { ...config };
    for (const key of secretKeys) {
      if (copy[key] !== undefined && copy[key] === resolved[key]) copy[key] = raw[key] as string;
    }
    return copy;
  });
}

/** The assignment the stored task configs hold (task → partition ids). */
export function storedAssignment(tasks: readonly TaskConfigEntry[]): Assignment {
  return new Map(tasks.map((entry) => [entry.task, taskPartitionIds(entry.config)]));
}

/** Every partition the stored task configs hold. */
export function storedPartitions(tasks: readonly TaskConfigEntry[]): TopicPartitionRef[] {
  return [...storedAssignment(tasks).values()].flat().map(parseTopicPartitionId);
}

/**
 * Adds each task's partitions (and stopping offsets) to the connector's task configs. The
 * number of tasks is the number of configs the connector made; the partitions are spread over
 * them, moving as few as possible from `previous`.
 */
export function withPartitions(
  configs: readonly ConfigMap[],
  partitions: readonly TopicPartitionRef[],
  previous: readonly TaskConfigEntry[],
  stopping: ReadonlyMap<string, number>,
): ConfigMap[] {
  if (configs.length === 0) return [];
  const assignment = assignSplits(
    partitions.map(topicPartitionId),
    configs.length,
    storedAssignment(previous),
  );
  return configs.map((config, task) => withTaskSplit(config, assignment.get(task) ?? [], stopping));
}

/**
 * Whether a bounded subscription is done: some task has stopping offsets, and every assigned
 * partition has one (exclusive) that its stored sink offset (the next offset to read) has
 * reached. Flink's bounded KafkaSource finishes a split the same way; here the enumerator then
 * disables the connector's mappings.
 */
export function boundedFinished(
  tasks: readonly TaskConfigEntry[],
  sinkOffsets: readonly SinkOffset[],
): boolean {
  const next = new Map(sinkOffsets.map((o) => [`${o.topic}-${o.partition}`, o.nextOffset]));
  let bounded = false;
  for (const { config } of tasks) {
    const stopping = taskStoppingOffsets(config);
    for (const id of taskPartitionIds(config)) {
      const stop = stopping.get(id);
      if (stop === undefined) return false;
      bounded = true;
      if ((next.get(id) ?? 0) < stop) return false;
    }
  }
  return bounded;
}
