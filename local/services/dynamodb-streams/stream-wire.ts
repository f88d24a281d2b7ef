/**
 * Wire helpers of the DynamoDB Streams stand-in: the opaque shard iterator token, request
 * limits, stream labels, record sizes, and item equality (a write that changes nothing leaves
 * no stream record).
 */
import { validationError } from './api-error.js';

/** The decoded form of a shard iterator (the token itself is opaque to clients). */
export interface IteratorState {
  readonly arn: string;
  readonly shard: string;
  /** Index of the next record to return. */
  readonly position: number;
  /** Epoch milliseconds when issued. */
  readonly issuedAt: number;
}

export function encodeIterator(state: IteratorState): string {
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

export function decodeIterator(token: string): IteratorState {
  try {
    const state = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as IteratorState;
    if (
      typeof state.arn === 'string' &&
      typeof state.shard === 'string' &&
      Number.isSafeInteger(state.position) &&
      typeof state.issuedAt === 'number'
    ) {
      return state;
    }
  } catch {
    // fall through
  }
  throw validationError('Invalid ShardIterator');
}

export function limitOf(value: unknown, max: number, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw validationError(
      `1 validation error detected: Value '${String(value)}' at 'limit' failed to satisfy constraint: Member must have value between 1 and ${max}`,
    );
  }
  return value;
}

/** `YYYY-MM-DDTHH:mm:ss.SSS`, the form of AWS stream labels. */
export function labelOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, -1);
}

export function byteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/** Deep equality of two wire items (attribute order and set order do not matter). */
export function sameItem(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).sort(([x], [y]) =>
      x < y ? -1 : x > y ? 1 : 0,
    );
    return `{${entries
      .map(([k, v]) => {
        const isSet = k === 'SS' || k === 'NS' || k === 'BS';
        const inner = isSet && Array.isArray(v) ? [...v].map(String).sort() : v;
        return `${JSON.stringify(k)}:${canonical(inner)}`;
      })
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
