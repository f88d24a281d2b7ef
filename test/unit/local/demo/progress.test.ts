/**
 * The demo's frame shows what each connector has cost so far, as the cost endpoint reports it.
 */
import { describe, expect, it } from 'vitest';
import { costLine, render, type Snapshot } from '../../../../local/demo/progress.js';

const running = { state: 'RUNNING', tasks: [{ id: 0, state: 'RUNNING' }] };

function snapshotWith(partial: Partial<Snapshot>): Snapshot {
  return {
    at: 10_000,
    source: running,
    sink: running,
    committed: 600,
    sunk: 500,
    objects: 5,
    sourceCost: undefined,
    sinkCost: undefined,
    ...partial,
  };
}

describe('the demo frame', () => {
  it('shows each connector’s cost so far, per million records and against MSK Connect', () => {
    // Arrange
    const now = snapshotWith({
      sourceCost: { dollars: 0.000731, perMillionRecords: 1.2183, mskConnectDollars: 0.00306 },
      sinkCost: { dollars: 0.0007412, perMillionRecords: null, mskConnectDollars: 0.00306 },
    });
    // Act
    const lines = render(now, undefined, { url: 'http://x', elapsedMs: 100_000, where: 's3://b' });
    // Assess
    const source = lines.find((l) => l.startsWith('  orders     cost'));
    const sink = lines.find((l) => l.startsWith('  orders-s3  cost'));
    expect(source).toContain('$0.000731');
    expect(source).toContain('$1.22 per million records');
    expect(source).toContain('MSK Connect for the same hours: $0.00306');
    expect(sink).toContain('$0.000741');
    expect(sink).toContain('no record metered yet');
  });

  it('says a connector is not metered yet until its cost answers', () => {
    // Act / Assess
    expect(costLine(undefined)).toContain('not metered yet');
    expect(costLine({ dollars: 0, perMillionRecords: null, mskConnectDollars: 0 })).toContain(
      '$0 ',
    );
  });
});
