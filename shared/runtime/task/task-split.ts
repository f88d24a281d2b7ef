/**
 * The split of a Kafka-reading task, as its task config carries it (Flink's
 * `KafkaPartitionSplit` in a config map): the partitions it owns and, in bounded mode, where each
 * stops. The enumerator writes it (enumerator/task-configs.ts); the sink runtime and the
 * enumerator read it; nothing else touches the keys.
 */
import type { ConfigMap } from '../../ports/config-store.js';

/** The task config key listing a Kafka-reading task's partitions (`topic-p`, comma-separated). */
export const TASK_PARTITIONS_KEY = 'serverless.task.partitions';
/** The task config key with a bounded task's stopping offsets (`topic-p=offset`, comma-separated). */
export const TASK_STOPPING_OFFSETS_KEY = 'serverless.task.stopping.offsets';

/**
 * `config` with its split: the partition ids it owns and the stopping offsets of those that
 * have one (by partition id).
 */
export function withTaskSplit(
  config: ConfigMap,
  partitionIds: readonly string[],
  stopping: ReadonlyMap<string, number>,
): ConfigMap {
  const stops = partitionIds.flatMap((id) => {
    const offset = stopping.get(id);
    return offset === undefined ? [] : [`${id}=${offset}`];
  });
  return {
    ...config,
    [TASK_PARTITIONS_KEY]: partitionIds.join(','),
    ...(stops.length === 0 ? {} : { [TASK_STOPPING_OFFSETS_KEY]: stops.join(',') }),
  };
}

/** The partition ids (`topic-p`) a task config owns; none for a task that reads no topics. */
export function taskPartitionIds(config: ConfigMap): string[] {
  return (config[TASK_PARTITIONS_KEY] ?? '').split(',').filter((id) => id.length > 0);
}

/** The stopping offsets a task config holds, by partition id. */
export function taskStoppingOffsets(config: ConfigMap): Map<string, number> {
  return new Map(
    (config[TASK_STOPPING_OFFSETS_KEY] ?? '')
      .split(',')
      .filter((entry) => entry.length > 0)
      .map((entry) => {
        const eq = entry.lastIndexOf('=');
        return [entry.slice(0, eq), Number(entry.slice(eq + 1))] as const;
      }),
  );
}
