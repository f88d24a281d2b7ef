/**
 * Counting what an output holds against what it should hold, each item named by a key: the
 * comparison behind every campaign's `duplicates=` and `losses=`.
 */

/** What `seen` holds against `expected`. */
export interface KeyTally {
  /** Sightings beyond a key's expected count (a key expected once and seen three times: 2). */
  readonly duplicates: number;
  /** Expected sightings missing (a key expected twice and seen once: 1). */
  readonly losses: number;
  /** Sightings of keys not expected at all. */
  readonly unexpected: number;
  /** Some lost, duplicated and unexpected keys (10 of each at most), for the log. */
  readonly examples: {
    readonly lost: readonly string[];
    readonly duplicated: readonly string[];
    readonly unexpected: readonly string[];
  };
}

const EXAMPLES = 10;

function counts(keys: Iterable<string>): Map<string, number> {
  const map = new Map<string, number>();
  for (const key of keys) map.set(key, (map.get(key) ?? 0) + 1);
  return map;
}

/**
 * Compares two multisets of keys: each key of `expected` must be seen as many times as it is
 * expected (once, usually), and nothing else may be seen.
 */
export function tallyKeys(expected: Iterable<string>, seen: Iterable<string>): KeyTally {
  const want = counts(expected);
  const got = counts(seen);
  let duplicates = 0;
  let losses = 0;
  let unexpected = 0;
  const lost: string[] = [];
  const duplicated: string[] = [];
  const foreign: string[] = [];
  for (const [key, n] of want) {
    const m = got.get(key) ?? 0;
    if (m < n) {
      losses += n - m;
      if (lost.length < EXAMPLES) lost.push(key);
    } else if (m > n) {
      duplicates += m - n;
      if (duplicated.length < EXAMPLES) duplicated.push(key);
    }
  }
  for (const [key, m] of got) {
    if (want.has(key)) continue;
    unexpected += m;
    if (foreign.length < EXAMPLES) foreign.push(key);
  }
  return { duplicates, losses, unexpected, examples: { lost, duplicated, unexpected: foreign } };
}
