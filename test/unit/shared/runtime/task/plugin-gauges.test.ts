import { describe, expect, it } from 'vitest';
import type { MetricValue } from '../../../../../shared/ports/metrics.js';
import { SourceTaskMetrics } from '../../../../../shared/runtime/source/source-task-metrics.js';
import { PluginGauges } from '../../../../../shared/runtime/task/plugin-gauges.js';

describe("PluginGauges (a task's own metrics)", () => {
  it('keeps the last value of each gauge, with its unit', () => {
    const gauges = new PluginGauges();
    gauges.gauge('ReplicationSlotLagBytes', 100, 'Bytes');
    gauges.gauge('ReplicationSlotLagBytes', 40, 'Bytes');
    gauges.gauge('TablesSnapshotted', 3);
    expect(gauges.values()).toEqual({
      ReplicationSlotLagBytes: { value: 40, unit: 'Bytes' },
      TablesSnapshotted: { value: 3, unit: 'None' },
    });
  });

  it('drops names CloudWatch or our dashboards would choke on, and non-finite values', () => {
    const gauges = new PluginGauges();
    gauges.gauge('', 1);
    gauges.gauge('has space', 1);
    gauges.gauge('9starts_with_digit', 1);
    gauges.gauge('x'.repeat(129), 1);
    gauges.gauge('Lag', Number.NaN);
    gauges.gauge('Lag2', Number.POSITIVE_INFINITY);
    expect(gauges.values()).toEqual({});
  });

  it('is published with the invocation metrics, a runtime metric winning over a gauge of its name', () => {
    const gauges = new PluginGauges();
    gauges.gauge('ReplicationSlotLagBytes', 2048, 'Bytes');
    gauges.gauge('RecordsWritten', 999_999);
    const metrics = new SourceTaskMetrics();
    metrics.polled = 5;
    metrics.written = 5;
    const published: { dimensions: Record<string, string>; values: Record<string, MetricValue> }[] =
      [];
    metrics.publish(
      { publish: (dimensions, values) => published.push({ dimensions, values }) },
      { Connector: 'orders-cdc', Task: '0' },
      { transactions: 1, commitMs: [12], failed: false },
      gauges.values(),
    );
    expect(published).toHaveLength(1);
    expect(published[0]?.dimensions).toEqual({ Connector: 'orders-cdc', Task: '0' });
    expect(published[0]?.values).toMatchObject({
      ReplicationSlotLagBytes: { value: 2048, unit: 'Bytes' },
      RecordsWritten: { value: 5, unit: 'Count' },
    });
  });
});
