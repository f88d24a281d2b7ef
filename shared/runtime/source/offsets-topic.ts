import type {
  SourceOffset,
  SourcePartition,
  SourcePartitionOffset,
} from '../../connect/records.js';
import type { OutgoingRecord } from '../../ports/kafka.js';

/**
 * Kafka Connect's source-offset records, so tools that read a Connect offsets topic read ours:
 * key `["<connector>",{<source partition>}]`, value `{<source offset>}` (or a tombstone when the
 * offset is null), both JSON without schemas. Object keys are written in sorted order, so the
 * same source partition always yields the same key bytes (compaction keeps the latest).
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** JSON with object keys sorted at every level. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The identity of a source partition within a connector (a map key). */
export function sourcePartitionKey(partition: SourcePartition): string {
  return canonicalJson(partition);
}

/** The offsets-topic record for one source partition's latest offset. */
export function offsetRecord(
  offsetsTopic: string,
  connector: string,
  entry: SourcePartitionOffset,
): OutgoingRecord {
  return {
    topic: offsetsTopic,
    key: encoder.encode(canonicalJson([connector, entry.partition])),
    value: entry.offset === null ? null : encoder.encode(canonicalJson(entry.offset)),
  };
}

/** Parses an offsets-topic record; undefined when the key is not Connect's format. */
export function parseOffsetRecord(
  key: Uint8Array | null,
  value: Uint8Array | null,
): { connector: string; entry: SourcePartitionOffset } | undefined {
  if (key === null) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(key));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string') {
    return undefined;
  }
  const partition = parsed[1];
  if (partition === null || typeof partition !== 'object' || Array.isArray(partition)) {
    return undefined;
  }
  const offset = value === null ? null : (JSON.parse(decoder.decode(value)) as SourceOffset);
  return {
    connector: parsed[0],
    entry: { partition: partition as SourcePartition, offset },
  };
}

/** Merges later offsets over earlier ones, per source partition (later wins). */
export function mergeOffsets<E extends SourcePartitionOffset>(
  base: readonly E[],
  updates: Iterable<E>,
): E[] {
  const merged = new Map<string, E>();
  for (const entry of base) merged.set(sourcePartitionKey(entry.partition), entry);
  for (const entry of updates) merged.set(sourcePartitionKey(entry.partition), entry);
  return [...merged.values()];
}
