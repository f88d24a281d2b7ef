import { describe, expect, it } from 'vitest';
import { lowerIsBetterLine, median, percentile, ratioLine } from '../../../bench/harness.js';

describe('bench harness', () => {
  it('takes the middle value as the median, and the mean of the two middles for even counts', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('computes nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
  });

  it('prints the ratio line in the agreed format', () => {
    expect(ratioLine('source-eos', 8500, 10000)).toBe(
      'source-eos: ratio=0.85 ours=8500/s baseline=10000/s',
    );
  });

  it('says so when lower is better', () => {
    expect(lowerIsBetterLine('rest-p99', 12.5, 10)).toBe(
      'rest-p99: ratio=1.25 ours=12.50ms baseline=10.00ms (lower is better)',
    );
  });

  it('refuses a median of nothing', () => {
    expect(() => median([])).toThrow('median of no values');
  });
});
