import { describe, expect, it } from 'vitest';
import { tallyKeys } from '../../support/key-tally.js';

describe('tallyKeys', () => {
  it('finds nothing wrong when every expected key is seen as often as expected', () => {
    const tally = tallyKeys(['a', 'b', 'b'], ['b', 'a', 'b']);

    expect(tally).toMatchObject({ duplicates: 0, losses: 0, unexpected: 0 });
  });

  it('counts each sighting beyond the expected count as a duplicate', () => {
    const tally = tallyKeys(['a', 'b', 'c'], ['a', 'b', 'b', 'b', 'c', 'a']);

    expect(tally.duplicates).toBe(3);
    expect(tally.examples.duplicated).toEqual(['a', 'b']);
    expect(tally.losses).toBe(0);
  });

  it('counts each missing sighting as a loss, a key expected twice and seen once too', () => {
    const tally = tallyKeys(['a', 'b', 'c', 'c'], ['b', 'c']);

    expect(tally.losses).toBe(2);
    expect(tally.examples.lost).toEqual(['a', 'c']);
    expect(tally.duplicates).toBe(0);
  });

  it('counts keys nobody expected apart from duplicates', () => {
    const tally = tallyKeys(['a'], ['a', 'x', 'x']);

    expect(tally).toMatchObject({ duplicates: 0, losses: 0, unexpected: 2 });
    expect(tally.examples.unexpected).toEqual(['x']);
  });
});
