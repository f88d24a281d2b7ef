import type { RecordHeader } from '../../ports/kafka.js';

/** A Kafka record as far as its size goes (an outgoing or a consumed one). */
export interface SizedRecord {
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers?: readonly RecordHeader[];
}

/**
 * The bytes a record carries: key, value, header keys (by their length in characters) and
 * header values. Kafka's batch framing and compression are not counted.
 */
export function recordBytes(record: SizedRecord): number {
  let bytes = (record.key?.byteLength ?? 0) + (record.value?.byteLength ?? 0);
  for (const header of record.headers ?? []) {
    bytes += header.key.length + (header.value?.byteLength ?? 0);
  }
  return bytes;
}
