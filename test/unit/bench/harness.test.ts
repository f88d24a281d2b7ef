import { describe, expect, it } from 'vitest';
import {
  lowerIsBetterLine,
  median,
  pairedLine,
  pairedRatios,
  percentile,
  ratioLine,
} from '../../../bench/harness.js';

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

  it('pairs each round of ours with the baseline round run next to it', () => {
    const ratios = pairedRatios([80, 45, 90], [100, 50, 100]);
    expect(ratios).toEqual([0.8, 0.9, 0.9]);
    expect(pairedLine('source-alo', ratios)).toBe(
      'source-alo: per-round ratios median=0.90 range=0.80-0.90 (3 rounds, each against the baseline round next to it)',
    );
    expect(() => pairedRatios([1], [1, 2])).toThrow('as many rounds');
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
