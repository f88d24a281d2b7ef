import { describe, expect, it } from 'vitest';
import { publishTaskCounts } from '../../../../shared/engine/enumerate.js';
import type { MetricValue } from '../../../../shared/ports/metrics.js';

describe('publishTaskCounts', () => {
  it('publishes the running, failed and paused task counts of each connector under MSK Connect’s names', () => {
    // Prepare
    const published: { dimensions: Record<string, string>; values: Record<string, MetricValue> }[] =
      [];
    const metrics = {
      publish: (dimensions: Record<string, string>, values: Record<string, MetricValue>) =>
        published.push({ dimensions, values }),
    };
    // Act
    publishTaskCounts(metrics, [
      {
        connector: 'orders',
        state: 'RUNNING',
        tasks: 3,
        dispatched: [],
        taskStates: { RUNNING: 2, FAILED: 1 },
      },
      { connector: 'gone', state: 'DELETED', tasks: 0, dispatched: [] },
      { connector: 'held', state: 'PAUSED', tasks: 1, dispatched: [], taskStates: { PAUSED: 1 } },
    ]);
    // Assess
    const count = (value: number) => ({ value, unit: 'Count' });
    expect(published).toEqual([
      {
        dimensions: { Connector: 'orders' },
        values: {
          RunningTaskCount: count(2),
          FailedTaskCount: count(1),
          PausedTaskCount: count(0),
        },
      },
      {
        dimensions: { Connector: 'held' },
        values: {
          RunningTaskCount: count(0),
          FailedTaskCount: count(0),
          PausedTaskCount: count(1),
        },
      },
    ]);
  });
});
