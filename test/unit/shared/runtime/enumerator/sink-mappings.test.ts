import { describe, expect, it } from 'vitest';
import type { SinkMapping } from '../../../../../shared/ports/dispatch.js';
import {
  DEFAULT_MAPPING_SETTINGS,
  desiredMappings,
  mappingGroupId,
  planMappings,
} from '../../../../../shared/runtime/enumerator/sink-mappings.js';

describe('mappingGroupId', () => {
  it('is Connect-like connect-<connector>-<topic> when Lambda accepts the characters', () => {
    expect(mappingGroupId('orders-to-s3', 'orders.v1')).toBe('connect-orders-to-s3-orders.v1');
  });

  it('replaces refused characters and stays unique and within 200 characters', () => {
    const a = mappingGroupId('my connector!', 'x'.repeat(300));
    const b = mappingGroupId('my connector?', 'x'.repeat(300));

    expect(a).toMatch(/^[a-zA-Z0-9\-/*:_+=.@]{1,200}$/);
    expect(a).not.toBe(b);
  });
});

describe('planMappings', () => {
  const mapping = (id: string, topic: string, enabled: boolean): SinkMapping =>
    ({
      ...desiredMappings('c', [topic], enabled, DEFAULT_MAPPING_SETTINGS)[0],
      id,
    }) as SinkMapping;

  it('creates missing topics, updates changed ones, deletes unwanted ones and duplicates', () => {
    const existing = [
      mapping('m1', 'a', false),
      mapping('m2', 'b', true),
      mapping('m3', 'gone', true),
      mapping('m4', 'b', true),
    ];
    const desired = desiredMappings('c', ['a', 'b', 'new'], true, DEFAULT_MAPPING_SETTINGS);

    const plan = planMappings(existing, desired);

    expect(plan.create.map((s) => s.topic)).toEqual(['new']);
    expect(plan.update.map((u) => [u.mapping.id, u.spec.enabled])).toEqual([['m1', true]]);
    expect(plan.delete.map((m) => m.id).sort()).toEqual(['m3', 'm4']);
  });

  it('changes nothing when the mappings are as desired', () => {
    const desired = desiredMappings('c', ['a'], true, DEFAULT_MAPPING_SETTINGS);

    const plan = planMappings([mapping('m1', 'a', true)], desired);

    expect(plan).toEqual({ create: [], update: [], delete: [] });
  });
});
