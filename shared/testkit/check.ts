/**
 * A check: one named, self-contained test of a connector that throws a descriptive `Error`
 * when the connector breaks a contract. Framework-agnostic: any runner turns a list of checks
 * into its tests (`for (const c of checks) it(c.name, () => c.run())`).
 */

/** One named check; `run` rejects with a descriptive Error when the connector fails it. */
export interface Check {
  readonly name: string;
  run(): Promise<void>;
}

/** The error a failed check throws: its message says what was expected and what was found. */
export class CheckFailure extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CheckFailure';
  }
}

/** Throws a {@link CheckFailure} with `message` unless `condition` holds. */
export function ensure(condition: boolean, message: () => string): asserts condition {
  if (!condition) throw new CheckFailure(message());
}

/** Runs `action`; a throw or rejection becomes a CheckFailure that names `what`. */
export async function mustNotThrow<T>(what: string, action: () => T | Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    throw new CheckFailure(`${what} threw: ${describeError(error)}`, { cause: error });
  }
}

/** `Name: message` of an error, or the thrown value as text. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * A canonical text of a value for comparisons: object keys sorted, bytes as hex, bigints and
 * Maps spelled out. Two values that mean the same give the same text.
 */
export function canonical(value: unknown): string {
  return JSON.stringify(normalise(value));
}

function normalise(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'bigint') return `${value}n`;
  if (value instanceof Uint8Array) {
    return { $bytes: Array.from(value, (b) => b.toString(16).padStart(2, '0')).join('') };
  }
  if (value instanceof Map) return { $map: [...value.entries()].map(normalise) };
  if (value instanceof Set) return { $set: [...value].map(normalise) };
  if (Array.isArray(value)) return value.map(normalise);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return Object.fromEntries(entries.map(([k, v]) => [k, normalise(v)]));
  }
  return value;
}

/** A short, one-line excerpt of a value for messages. */
export function excerpt(value: unknown, max = 200): string {
  const text = typeof value === 'string' ? value : canonical(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * A seeded pseudo-random generator (mulberry32): the same seed gives the same stop points,
 * so a failing check fails the same way every run.
 */
export class SeededRandom {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
}
