import { describe, expect, it } from 'vitest';
import {
  consumerSettingsKey,
  planMappingChanges,
  type RunningMapping,
} from '../../../../local/esm/mapping-plan.js';
import type { SinkMapping } from '../../../../shared/ports/dispatch.js';

function mapping(id: string, overrides: Partial<SinkMapping> = {}): SinkMapping {
  return {
    id,
    connector: `c-${id}`,
    topic: `t-${id}`,
    groupId: `g-${id}`,
    startingPosition: 'TRIM_HORIZON',
    batchSize: 100,
    maxBatchingWindowSeconds: 0,
    enabled: true,
    ...overrides,
  };
}

function running(...mappings: SinkMapping[]): Map<string, RunningMapping> {
  return new Map(
    mappings.map((m) => [m.id, { settingsKey: consumerSettingsKey(m), healthy: true }]),
  );
}

describe('planMappingChanges', () => {
  it('starts a consumer for each enabled mapping that has none', () => {
    // Prepare
    const a = mapping('a');
    const b = mapping('b', { enabled: false });

    // Act
    const plan = planMappingChanges([a, b], new Map());

    // Assess
    expect(plan).toEqual([{ kind: 'start', mapping: a }]);
  });

  it('stops the consumer of a disabled mapping and of a deleted one', () => {
    // Prepare
    const a = mapping('a');
    const b = mapping('b');

    // Act
    const plan = planMappingChanges([{ ...a, enabled: false }], running(a, b));

    // Assess
    expect(plan).toEqual([
      { kind: 'stop', id: 'a', reason: 'disabled' },
      { kind: 'stop', id: 'b', reason: 'deleted' },
    ]);
  });

  it('restarts a consumer when the batch size or the batching window changed', () => {
    // Prepare
    const a = mapping('a');
    const b = mapping('b');
    const c = mapping('c');
    const changedA = { ...a, batchSize: 10 };
    const changedB = { ...b, maxBatchingWindowSeconds: 5 };

    // Act
    const plan = planMappingChanges([changedA, changedB, c], running(a, b, c));

    // Assess
    expect(plan).toEqual([
      { kind: 'restart', mapping: changedA, reason: 'updated' },
      { kind: 'restart', mapping: changedB, reason: 'updated' },
    ]);
  });

  it('restarts a consumer that crashed for good', () => {
    // Prepare
    const a = mapping('a');
    const crashed = new Map([['a', { settingsKey: consumerSettingsKey(a), healthy: false }]]);

    // Act
    const plan = planMappingChanges([a], crashed);

    // Assess
    expect(plan).toEqual([{ kind: 'restart', mapping: a, reason: 'failed' }]);
  });

  it('stops before it starts, so a group is free before a new mapping joins it', () => {
    // Prepare: mapping a was deleted and recreated (new id) with the same group
    const old = mapping('a');
    const recreated = mapping('a2', { groupId: old.groupId, topic: old.topic });

    // Act
    const plan = planMappingChanges([recreated], running(old));

    // Assess
    expect(plan.map((step) => step.kind)).toEqual(['stop', 'start']);
  });

  it('plans nothing when the consumers already match the mappings', () => {
    // Prepare
    const a = mapping('a');
    const b = mapping('b', { enabled: false });

    // Act
    const plan = planMappingChanges([a, b], running(a));

    // Assess
    expect(plan).toEqual([]);
  });
});
