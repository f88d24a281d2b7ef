import { describe, expect, it } from 'vitest';
import { emfMetrics } from '../../../../../shared/adapters/logging/emf-metrics.js';

describe('emfMetrics', () => {
  it('writes one CloudWatch embedded-metric-format line per publication', () => {
    const lines: string[] = [];
    const sink = emfMetrics(
      'ServerlessConnect',
      (line) => lines.push(line),
      () => 1_700_000_000_000,
    );

    sink.publish(
      { Connector: 'orders', Task: '0' },
      {
        RecordsWritten: { value: 500, unit: 'Count' },
        CommitLatencyAvg: { value: 12.5, unit: 'Milliseconds' },
      },
    );

    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      _aws: {
        Timestamp: 1_700_000_000_000,
        CloudWatchMetrics: [
          {
            Namespace: 'ServerlessConnect',
            Dimensions: [['Connector', 'Task']],
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
});
