/**
 * How an object's bytes are made of its records: the content of an object holding stored
 * objects (S3 body streams, or bytes a writer kept) followed by fresh records.
 *
 * - Lines (JSON, bytes): concatenation, gzip-compressed as a whole when configured.
 * - Avro object container: the first stored object as is, later ones without their header, then
 *   one block of the fresh records (a new object starts with the header).
 * - Parquet (final objects only): the records of the stored Avro containers (the staged
 *   records) and the fresh ones, written as one Parquet file.
 */
import { ConnectError, IllegalStateError } from 'serverless-connect/connect';
import {
  AVRO_FILE_CODECS,
  type AvroFileCodec,
  type ContainerHeader,
  readHeader,
  writeBlock,
  writeHeader,
} from './avro-container.js';
import type { ObjectContent } from './object-upload.js';

/** A stored object: its body stream, or bytes a writer kept. */
export type ObjectHead = ReadableStream<Uint8Array> | Uint8Array;

/** One encoded record bound for an object. */
export interface PendingEntry {
  readonly offset: number;
  /** The record's bytes, separator included, uncompressed. */
  readonly bytes: Uint8Array;
}

/** How the records of objects become bytes. */
export interface ObjectLayout {
  readonly contentType: string;
  /** User metadata stored beside the sink's offsets. */
  readonly metadata: Readonly<Record<string, string>>;
  /**
   * Whether an object may be extended by the records of another one of this layout (a final
   * object found holding fewer offsets than its range, after `flush.size` was raised).
   */
  readonly extendable: boolean;
  /**
   * The content of an object holding `heads` (stored objects of this layout, or of its staging
   * layout), in order, then `fresh`. Failures reading or parsing heads surface as the stream's
   * errors (ConnectError).
   */
  content(heads: readonly ObjectHead[], fresh: readonly PendingEntry[]): ObjectContent;
}

/** The chunks of each of `heads` in turn, then `tail`'s; cancelling cancels the heads left. */
function concatenate(heads: readonly ReadableStream<Uint8Array>[], tail: readonly Uint8Array[]) {
  const readers = heads.map((h) => h.getReader());
  let next = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (let reader = readers[0]; reader !== undefined; reader = readers[0]) {
        const chunk = await reader.read();
        if (!chunk.done) {
          controller.enqueue(chunk.value);
          return;
        }
        readers.shift();
      }
      const bytes = tail[next++];
      if (bytes === undefined) controller.close();
      else controller.enqueue(bytes);
    },
    async cancel(reason) {
      await Promise.all(readers.map((r) => r.cancel(reason)));
    },
  });
}

/** A stream of `bytes`. */
export function bytesStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

/**
 * Records one after the other (JSON lines, bytes with separators): heads, then the fresh
 * records' bytes, gzip-compressed as a whole when `compression` is gzip (heads are then gzip
 * members, decompressed on the fly). Uncompressed content with no stream to read stays a list of
 * chunks in memory (joined once for the PutObject).
 */
export function linesLayout(compression: 'none' | 'gzip', contentType: string): ObjectLayout {
  const gzip = compression === 'gzip';
  return {
    contentType,
    metadata: {},
    extendable: true,
    content(heads, fresh) {
      const tail = fresh.map((e) => e.bytes);
      if (!gzip && heads.every((h) => h instanceof Uint8Array)) return [...heads, ...tail];
      const stored = heads.map((h) => {
        const stream = h instanceof Uint8Array ? bytesStream(h) : h;
        return gzip ? stream.pipeThrough(new DecompressionStream('gzip')) : stream;
      });
      const content = concatenate(stored, tail);
      return gzip ? content.pipeThrough(new CompressionStream('gzip')) : content;
    },
  };
}

/** What a new Avro container is written with. */
export interface AvroContainerSpec {
  readonly schemaText: string;
  readonly codec: AvroFileCodec;
  readonly sync: Uint8Array;
}

/** The sink's user metadata naming the schema of an object's records. */
export const SCHEMA_FINGERPRINT_METADATA = 'schema-fingerprint';

function fileCodecOf(header: ContainerHeader, where: string): AvroFileCodec {
  const codec = AVRO_FILE_CODECS.find((c) => c === header.codec);
  if (codec === undefined) {
    throw new ConnectError(
      `${where} is an Avro container compressed with ${header.codec}, which this sink cannot append to`,
    );
  }
  return codec;
}

/** Checks that a stored container holds the schema of the records appended to it. */
function checkSchema(header: ContainerHeader, spec: AvroContainerSpec | null): void {
  if (spec !== null && header.schemaText !== spec.schemaText) {
    throw new ConnectError(
      'An Avro object of the S3 sink holds records of another schema than the ones to append ' +
        `(${header.schemaText.slice(0, 200)}); it was written under other settings: remove it`,
    );
  }
}

/**
 * Reads `head` whole, its header first: passes its bytes through (without the header when
 * `skipHeader`), and calls `onHeader` once the header is read.
 */
async function* headBytes(
  head: ObjectHead,
  skipHeader: boolean,
  onHeader: (header: ContainerHeader) => void,
): AsyncGenerator<Uint8Array> {
  const stream = head instanceof Uint8Array ? bytesStream(head) : head;
  const reader = stream.getReader();
  let buffered = new Uint8Array(0);
  let header: ContainerHeader | null = null;
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      if (header !== null) {
        yield chunk.value;
        continue;
      }
      const joined = new Uint8Array(buffered.length + chunk.value.length);
      joined.set(buffered);
      joined.set(chunk.value, buffered.length);
      buffered = joined;
      header = readHeader(buffered);
      if (header === null) continue;
      onHeader(header);
      yield skipHeader ? buffered.subarray(header.length) : buffered;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  if (header === null) throw new ConnectError('A stored Avro object ends inside its header');
}

/**
 * Avro object containers: the first head as stored, later heads without their header, then one
 * block of `fresh` with the first head's codec and sync marker; a new object (no head) starts
 * with the header of `spec`. `spec` may be null only when there are heads (the schema then comes
 * from them); when both are given, the heads must hold `spec`'s schema.
 */
export function avroContainerLayout(
  spec: AvroContainerSpec | null,
  metadata: Readonly<Record<string, string>> = {},
): ObjectLayout {
  return {
    contentType: 'application/avro',
    metadata,
    extendable: true,
    content(heads, fresh) {
      const datums = fresh.map((e) => e.bytes);
      if (heads.length === 0) {
        if (spec === null) throw new IllegalStateError('A new Avro object needs its schema');
        const header = writeHeader(spec.schemaText, spec.codec, spec.sync);
        return datums.length === 0 ? [header] : [header, writeBlock(datums, spec.codec, spec.sync)];
      }
      if (heads.every((h) => h instanceof Uint8Array)) {
        const chunks: Uint8Array[] = [];
        let first: ContainerHeader | null = null;
        for (const head of heads as Uint8Array[]) {
          const header = readHeader(head);
          if (header === null)
            throw new ConnectError('A stored Avro object ends inside its header');
          checkSchema(header, spec);
          chunks.push(first === null ? head : head.subarray(header.length));
          first ??= header;
        }
        const h = first as ContainerHeader;
        if (datums.length > 0)
          chunks.push(writeBlock(datums, fileCodecOf(h, 'A stored object'), h.sync));
        return chunks;
      }
      let first: ContainerHeader | null = null;
      const parts = heads.map((head, i) =>
        headBytes(head, i > 0, (header) => {
          checkSchema(header, spec);
          first ??= header;
        }),
      );
      async function* all(): AsyncGenerator<Uint8Array> {
        for (const part of parts) yield* part;
        const h = first as ContainerHeader | null;
        if (h !== null && datums.length > 0) {
          yield writeBlock(datums, fileCodecOf(h, 'A stored object'), h.sync);
        }
      }
      const cleanup = async () => {
        await Promise.all(parts.map((p) => p.return(undefined)));
        await Promise.all(
          heads.map((h) => (h instanceof ReadableStream && !h.locked ? h.cancel() : undefined)),
        );
      };
      return generatorStream(all(), cleanup);
    },
  };
}

/**
 * A stream of what `source` yields; `cleanup` (closing what `source` reads) runs when the stream
 * is cancelled or `source` fails.
 */
export function generatorStream(
  source: AsyncGenerator<Uint8Array>,
  cleanup: () => Promise<void> = async () => {},
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await source.next();
      } catch (error) {
        await cleanup().catch(() => undefined);
        throw error;
      }
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await source.return(undefined);
      await cleanup();
    },
  });
}
