import { describe, expect, it } from 'vitest';
import { emfMetrics } from '../../../../../shared/adapters/logging/emf-metrics.js';

const NOW = 1_700_000_000_000;

function publishSinkBatch(perPartition: boolean): Record<string, unknown> {
  const lines: string[] = [];
  const sink = emfMetrics('ServerlessConnect/prod', {
    perPartition,
    write: (line) => lines.push(line),
    now: () => NOW,
  });
  sink.publish(
    { Connector: 'orders', Topic: 'orders', Partition: '3' },
    { RecordsWritten: { value: 500, unit: 'Count' } },
  );
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? '') as Record<string, unknown>;
}

describe('emfMetrics', () => {
  it('writes one CloudWatch embedded-metric-format line per publication, under the namespace given', () => {
    // Prepare
    const lines: string[] = [];
    const sink = emfMetrics('ServerlessConnect/prod', {
      write: (line) => lines.push(line),
      now: () => NOW,
    });
    // Act
    sink.publish(
      { Connector: 'orders', Task: '0' },
      {
        RecordsWritten: { value: 500, unit: 'Count' },
        CommitLatencyAvg: { value: 12.5, unit: 'Milliseconds' },
      },
    );
    // Assess
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      _aws: {
        Timestamp: NOW,
        CloudWatchMetrics: [
          {
            Namespace: 'ServerlessConnect/prod',
            Dimensions: [['Connector']],
            Metrics: [
              { Name: 'RecordsWritten', Unit: 'Count' },
              { Name: 'CommitLatencyAvg', Unit: 'Milliseconds' },
            ],
          },
        ],
      },
      Connector: 'orders',
      Task: '0',
      RecordsWritten: 500,
      CommitLatencyAvg: 12.5,
    });
  });

  it('publishes per connector only unless per-partition metrics are asked for', () => {
    // Act
    const line = publishSinkBatch(false);
    // Assess: the partition is on the line, but no metric is billed for it.
    expect(line._aws).toMatchObject({ CloudWatchMetrics: [{ Dimensions: [['Connector']] }] });
    expect(line).toMatchObject({ Topic: 'orders', Partition: '3' });
  });

  it('adds the per-partition dimension set beside the connector one when asked for', () => {
    // Act
    const line = publishSinkBatch(true);
    // Assess
    expect(line._aws).toMatchObject({
      CloudWatchMetrics: [{ Dimensions: [['Connector'], ['Connector', 'Topic', 'Partition']] }],
    });
  });

  it('keeps every dimension of a metric that has no connector', () => {
    // Prepare
    const lines: string[] = [];
    const sink = emfMetrics('ns', { write: (line) => lines.push(line), now: () => NOW });
    // Act
    sink.publish({ Stage: 'convert' }, { Failures: { value: 1, unit: 'Count' } });
    // Assess
    expect(JSON.parse(lines[0] ?? '')._aws.CloudWatchMetrics[0].Dimensions).toEqual([['Stage']]);
  });
});
