/**
 * The Kafka event source mappings a sink connector needs: one per topic (Lambda's mappings read
 * exactly one topic each), each with its own consumer group (group ids must be unique across a
 * deployment's mappings), enabled while the connector runs.
 */
import { createHash } from 'node:crypto';
import type {
  MappingStartingPosition,
  SinkMapping,
  SinkMappingPort,
  SinkMappingSpec,
} from '../../ports/dispatch.js';

/** Lambda's limits on a mapping's consumer group id. */
const GROUP_ID_MAX = 200;
const GROUP_ID_ALLOWED = /[^a-zA-Z0-9\-/*:_+=.@]/g;

/**
 * The consumer group of the mapping of `connector` and `topic`: Kafka Connect's
 * `connect-<connector>` plus the topic, with characters Lambda refuses replaced by `_`; too long
 * a name is cut and made unique again by a hash of the full one.
 */
export function mappingGroupId(connector: string, topic: string): string {
  const full = `connect-${connector}-${topic}`;
  const safe = full.replace(GROUP_ID_ALLOWED, '_');
  if (safe === full && safe.length <= GROUP_ID_MAX) return safe;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 16);
  return `${safe.slice(0, GROUP_ID_MAX - hash.length - 1)}.${hash}`;
}

export interface MappingDefaults {
  readonly batchSize: number;
  readonly maxBatchingWindowSeconds: number;
  /**
   * Where a new mapping starts. The sink runtime skips what the connector already wrote and
   * seeds the connector's starting offsets itself, so mappings read from the beginning.
   */
  readonly startingPosition: MappingStartingPosition;
}

export const DEFAULT_MAPPING_SETTINGS: MappingDefaults = {
  batchSize: 500,
  maxBatchingWindowSeconds: 1,
  startingPosition: 'TRIM_HORIZON',
};

/** The mappings `connector` should have for `topics`. */
export function desiredMappings(
  connector: string,
  topics: readonly string[],
  enabled: boolean,
  defaults: MappingDefaults,
): SinkMappingSpec[] {
  return [...new Set(topics)].sort().map((topic) => ({
    connector,
    topic,
    groupId: mappingGroupId(connector, topic),
    startingPosition: defaults.startingPosition,
    batchSize: defaults.batchSize,
    maxBatchingWindowSeconds: defaults.maxBatchingWindowSeconds,
    enabled,
  }));
}

export interface MappingPlan {
  readonly create: readonly SinkMappingSpec[];
  readonly update: readonly { readonly mapping: SinkMapping; readonly spec: SinkMappingSpec }[];
  readonly delete: readonly SinkMapping[];
}

/**
 * What to change so that `existing` becomes `desired`: create missing topics, update those
 * whose mutable settings differ, delete those no longer wanted (and duplicates of one topic).
 */
export function planMappings(
  existing: readonly SinkMapping[],
  desired: readonly SinkMappingSpec[],
): MappingPlan {
  const byTopic = new Map<string, SinkMapping>();
  const extra: SinkMapping[] = [];
  for (const mapping of [...existing].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    if (byTopic.has(mapping.topic)) extra.push(mapping);
    else byTopic.set(mapping.topic, mapping);
  }
  const wanted = new Map(desired.map((spec) => [spec.topic, spec]));
  const create = desired.filter((spec) => !byTopic.has(spec.topic));
  const update = desired.flatMap((spec) => {
    const mapping = byTopic.get(spec.topic);
    const differs =
      mapping !== undefined &&
      (mapping.enabled !== spec.enabled ||
        mapping.batchSize !== spec.batchSize ||
        mapping.maxBatchingWindowSeconds !== spec.maxBatchingWindowSeconds);
    return mapping !== undefined && differs ? [{ mapping, spec }] : [];
  });
  const remove = [
    ...extra,
    ...[...byTopic.values()].filter((mapping) => !wanted.has(mapping.topic)),
  ];
  return { create, update, delete: remove };
}

/**
 * Brings the connector's mappings to one per topic of `topics` (or, when `topics` is undefined,
 * the topics its mappings already read), all enabled or all disabled. Undefined when the
 * connector has no mapping and none is wanted.
 */
export async function syncMappings(
  mappings: SinkMappingPort,
  name: string,
  topics: readonly string[] | undefined,
  enabled: boolean,
  defaults: MappingDefaults,
  /** Called before a disabled mapping is enabled; `false` leaves it disabled for now. */
  beforeEnable: (mapping: SinkMapping) => Promise<boolean> = async () => true,
): Promise<{ created: number; updated: number; deleted: number } | undefined> {
  const existing = await mappings.list(name);
  if (topics === undefined && existing.length === 0) return undefined;
  const wanted = topics ?? existing.map((m) => m.topic);
  const plan = planMappings(existing, desiredMappings(name, wanted, enabled, defaults));
  for (const spec of plan.create) await mappings.create(spec);
  for (const { mapping, spec } of plan.update) {
    if (!mapping.enabled && spec.enabled && !(await beforeEnable(mapping))) continue;
    await mappings.update(mapping, spec);
  }
  for (const mapping of plan.delete) await mappings.delete(mapping);
  return { created: plan.create.length, updated: plan.update.length, deleted: plan.delete.length };
}
