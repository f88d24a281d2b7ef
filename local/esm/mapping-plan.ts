import type { SinkMapping } from '../../shared/ports/dispatch.js';

/** What the stand-in knows about a consumer it runs for a mapping. */
export interface RunningMapping {
  /** `consumerSettingsKey` of the mapping the consumer was started with. */
  readonly settingsKey: string;
  /** False once the consumer crashed for good (kafkajs gave up restarting it). */
  readonly healthy: boolean;
}

/** One step that brings the running consumers in line with the mappings. */
export type MappingAction =
  | { readonly kind: 'start'; readonly mapping: SinkMapping }
  | { readonly kind: 'stop'; readonly id: string; readonly reason: 'disabled' | 'deleted' }
  | {
      readonly kind: 'restart';
      readonly mapping: SinkMapping;
      readonly reason: 'updated' | 'failed';
    };

/**
 * The settings a running consumer was built from; a mapping whose key changed needs a new
 * consumer (batch size and window are the fields `update` may change in place).
 */
export function consumerSettingsKey(mapping: SinkMapping): string {
  return JSON.stringify([
    mapping.topic,
    mapping.groupId,
    mapping.startingPosition,
    mapping.batchSize,
    mapping.maxBatchingWindowSeconds,
  ]);
}

/**
 * The actions that turn `running` (consumers by mapping id) into one consumer per enabled
 * mapping of `desired`: stops first (so a group is free before anything joins it again), then
 * restarts, then starts. Pure; applying the plan twice is the same as once.
 */
export function planMappingChanges(
  desired: readonly SinkMapping[],
  running: ReadonlyMap<string, RunningMapping>,
): MappingAction[] {
  const wanted = new Map(desired.filter((m) => m.enabled).map((m) => [m.id, m]));
  const known = new Set(desired.map((m) => m.id));
  const stops: MappingAction[] = [];
  const restarts: MappingAction[] = [];
  const starts: MappingAction[] = [];
  for (const id of running.keys()) {
    if (!wanted.has(id)) {
      stops.push({ kind: 'stop', id, reason: known.has(id) ? 'disabled' : 'deleted' });
    }
  }
  for (const mapping of wanted.values()) {
    const current = running.get(mapping.id);
    if (current === undefined) starts.push({ kind: 'start', mapping });
    else if (current.settingsKey !== consumerSettingsKey(mapping)) {
      restarts.push({ kind: 'restart', mapping, reason: 'updated' });
    } else if (!current.healthy) restarts.push({ kind: 'restart', mapping, reason: 'failed' });
  }
  return [...stops, ...restarts, ...starts];
}
