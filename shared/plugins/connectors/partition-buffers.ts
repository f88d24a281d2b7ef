/**
 * What a sink task holds between `put` and `preCommit`: entries per input partition, keyed by the
 * coordinates the record was consumed at (`originalTopic-originalKafkaPartition`), in offset
 * order. A retried `put` hands the same records again: an entry at or below a partition's last
 * buffered offset replaces the buffer's tail from that offset on, so nothing is held twice.
 * Shared by the sinks that write a partition's batch at once (kafka-sink, postgres-sink).
 */
import type { SinkRecord } from 'serverless-connect/connect';

export class PartitionBuffers<T extends { readonly offset: number }> {
  #buffers = new Map<string, T[]>();

  /** Buffers `entry` (of `record`, whose consumed offset `entry.offset` is). */
  add(record: SinkRecord, entry: T): void {
    const id = `${record.originalTopic}-${record.originalKafkaPartition}`;
    const buffer = this.#buffers.get(id) ?? [];
    this.#buffers.set(id, buffer);
    const last = buffer[buffer.length - 1];
    if (last !== undefined && entry.offset <= last.offset) {
      const keep = buffer.findIndex((b) => b.offset >= entry.offset);
      buffer.length = keep < 0 ? buffer.length : keep;
    }
    buffer.push(entry);
  }

  /** Everything buffered, by partition id, and an empty buffer from now on. */
  take(): ReadonlyMap<string, readonly T[]> {
    const taken = this.#buffers;
    this.#buffers = new Map();
    return taken;
  }

  /** Drops what partition `id` (`topic-partition`) had buffered. */
  drop(id: string): void {
    this.#buffers.delete(id);
  }

  clear(): void {
    this.#buffers.clear();
  }
}
