import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, retryDelayMs } from '../../../../local/esm/backoff.js';

describe('retryDelayMs', () => {
  it('waits between half and all of 200 ms before the first redelivery by default', () => {
    // Prepare
    const low = () => 0;
    const high = () => 0.999_999;

    // Act
    const shortest = retryDelayMs(0, DEFAULT_BACKOFF, low);
    const longest = retryDelayMs(0, DEFAULT_BACKOFF, high);

    // Assess
    expect(shortest).toBe(100);
    expect(longest).toBe(200);
  });

  it('doubles the step on each failure', () => {
    // Prepare
    const settings = { initialMs: 100, maxMs: 100_000 };
    const none = () => 0.999_999;

    // Act
    const steps = [0, 1, 2, 3].map((attempt) => retryDelayMs(attempt, settings, none));

    // Assess
    expect(steps).toEqual([100, 200, 400, 800]);
  });

  it('never waits longer than the maximum, even after many failures', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        (attempt, random) => {
          // Act
          const delay = retryDelayMs(attempt, DEFAULT_BACKOFF, () => random);

          // Assess
          expect(delay).toBeGreaterThanOrEqual(50);
          expect(delay).toBeLessThanOrEqual(DEFAULT_BACKOFF.maxMs);
          expect(Number.isFinite(delay)).toBe(true);
        },
      ),
    );
  });
});
