/** mulberry32: a small seeded PRNG, so a failing campaign replays from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A seed of its own for the part `label` of a campaign seeded with `seed` (same seed, same part). */
export function derivedSeed(seed: number, label: string): number {
  let h = seed >>> 0;
  for (const ch of label) h = Math.imul(h ^ ch.charCodeAt(0), 0x9e3779b1) >>> 0;
  return h;
}
