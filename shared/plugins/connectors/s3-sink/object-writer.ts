/**
 * Writes one bucket object of the S3 sink idempotently: reads the object's `last-offset`
 * metadata, keeps its content, appends only the records above that offset, and writes the
 * whole object back (streamed, compressed when configured), conditioned on the ETag it read.
 * With conditional writes, a key not known to exist is first created straight away under
 * `If-None-Match: *` (no read: the common case of a batch starting new objects); only when
 * that precondition fails does the writer read and append.
 */
import { ConnectError } from 'serverless-connect/connect';
import { type UploadMethod, uploadObject } from './object-upload.js';
import {
  type ObjectTarget,
  PreconditionFailedError,
  type S3SinkClient,
  type StoredObject,
  type WriteCondition,
} from './s3-sink-client.js';

/** User metadata keys stored on every object (as `x-amz-meta-<key>`). */
export const FIRST_OFFSET_METADATA = 'first-offset';
export const LAST_OFFSET_METADATA = 'last-offset';
export const RECORD_COUNT_METADATA = 'record-count';
/** The version of this metadata layout; objects without it are taken as version 1. */
export const LAYOUT_VERSION_METADATA = 'layout-version';
export const LAYOUT_VERSION = '1';

/** One encoded record bound for an object. */
export interface PendingEntry {
  readonly offset: number;
  /** The record's bytes, separator included, uncompressed. */
  readonly bytes: Uint8Array;
}

/** The records of one object, by ascending, distinct offsets. */
export interface PendingObject {
  readonly key: string;
  readonly entries: readonly PendingEntry[];
}

/** How objects are written. */
export interface ObjectWriterSettings {
  readonly bucket: string;
  readonly compression: 'none' | 'gzip';
  readonly contentType: string;
  /** Content above this many bytes goes through a multipart upload. */
  readonly partSize: number;
  /** Send `If-None-Match` / `If-Match` so that concurrent writers cannot lose records. */
  readonly conditionalWrites: boolean;
}

/** What one write did. */
export type WriteOutcome =
  | { readonly kind: 'unchanged' }
  | {
      readonly kind: 'created' | 'appended';
      /** Records appended by this write. */
      readonly appended: number;
      readonly method: UploadMethod;
    };

/** The offsets an object's metadata records. */
export interface ObjectOffsets {
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly recordCount: number;
}

function parseCount(metadata: Readonly<Record<string, string>>, key: string): number | null {
  const text = metadata[key];
  if (text === undefined || !/^\d+$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * The offsets in an object's metadata. Throws ConnectError (not retriable) when they are
 * missing or malformed, or the layout version is unknown: the object was not written by this
 * connector, and overwriting it could lose data.
 */
export function readObjectOffsets(
  metadata: Readonly<Record<string, string>>,
  where: string,
): ObjectOffsets {
  const version = metadata[LAYOUT_VERSION_METADATA] ?? LAYOUT_VERSION;
  const firstOffset = parseCount(metadata, FIRST_OFFSET_METADATA);
  const lastOffset = parseCount(metadata, LAST_OFFSET_METADATA);
  const recordCount = parseCount(metadata, RECORD_COUNT_METADATA);
  if (
    version !== LAYOUT_VERSION ||
    firstOffset === null ||
    lastOffset === null ||
    recordCount === null
  ) {
    throw new ConnectError(
      `${where} exists but its metadata (${JSON.stringify(metadata)}) is not the S3 sink's ` +
        `(${FIRST_OFFSET_METADATA}, ${LAST_OFFSET_METADATA}, ${RECORD_COUNT_METADATA}, ` +
        `${LAYOUT_VERSION_METADATA}=${LAYOUT_VERSION}); remove the object or choose another topics.dir`,
    );
  }
  return { firstOffset, lastOffset, recordCount };
}

/** `head`'s chunks, then `tail`'s; cancelling cancels `head`. */
function concatenate(head: ReadableStream<Uint8Array> | null, tail: readonly Uint8Array[]) {
  let reader = head?.getReader() ?? null;
  let next = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (reader !== null) {
        const chunk = await reader.read();
        if (!chunk.done) {
          controller.enqueue(chunk.value);
          return;
        }
        reader = null;
      }
      const bytes = tail[next++];
      if (bytes === undefined) controller.close();
      else controller.enqueue(bytes);
    },
    async cancel(reason) {
      await reader?.cancel(reason);
    },
  });
}

function conditionFor(
  settings: ObjectWriterSettings,
  existing: StoredObject | null,
): WriteCondition {
  if (!settings.conditionalWrites) return { kind: 'none' };
  if (existing === null) return { kind: 'create' };
  return existing.etag === null ? { kind: 'none' } : { kind: 'replace', etag: existing.etag };
}

/** How many keys a {@link KnownObjects} remembers by default. */
export const KNOWN_OBJECTS_CAPACITY = 10_000;

/**
 * The keys one writer (an S3 sink task instance) has seen exist: created, appended to or read.
 * Bounded, least recently used first out. A hint only: a known key is read before it is
 * written, an unknown one is created optimistically, and either way the write is correct.
 *
 * @example
 * const known = new KnownObjects();
 * await writeObject(client, settings, pending, known); // creates: no GetObject
 * await writeObject(client, settings, more, known); // the key is known: reads, then appends
 */
export class KnownObjects {
  readonly #keys = new Set<string>();

  constructor(readonly capacity = KNOWN_OBJECTS_CAPACITY) {}

  /** Whether `key` is known to exist (and marks it recently used). */
  has(key: string): boolean {
    if (!this.#keys.delete(key)) return false;
    this.#keys.add(key);
    return true;
  }

  /** Remembers that `key` exists, forgetting the least recently used key beyond capacity. */
  add(key: string): void {
    this.#keys.delete(key);
    this.#keys.add(key);
    if (this.#keys.size > this.capacity) {
      const oldest = this.#keys.values().next();
      if (!oldest.done) this.#keys.delete(oldest.value);
    }
  }

  /** Forgets `key` (it was found missing). */
  delete(key: string): void {
    this.#keys.delete(key);
  }

  /** How many keys are remembered. */
  get size(): number {
    return this.#keys.size;
  }
}

/** The metadata of an object holding `stored` (null: nothing yet) followed by `fresh`. */
function metadataOf(
  stored: ObjectOffsets | null,
  fresh: readonly PendingEntry[],
  last: PendingEntry,
): Record<string, string> {
  return {
    [FIRST_OFFSET_METADATA]: String(stored?.firstOffset ?? fresh[0]?.offset ?? last.offset),
    [LAST_OFFSET_METADATA]: String(last.offset),
    [RECORD_COUNT_METADATA]: String((stored?.recordCount ?? 0) + fresh.length),
    [LAYOUT_VERSION_METADATA]: LAYOUT_VERSION,
  };
}

/** `head` (the stored content, compressed as configured) then `fresh`, compressed as configured. */
function contentOf(
  settings: ObjectWriterSettings,
  head: ReadableStream<Uint8Array> | null,
  fresh: readonly PendingEntry[],
): ReadableStream<Uint8Array> {
  const gzip = settings.compression === 'gzip';
  let stored = head;
  if (stored !== null && gzip) stored = stored.pipeThrough(new DecompressionStream('gzip'));
  const content = concatenate(
    stored,
    fresh.map((e) => e.bytes),
  );
  return gzip ? content.pipeThrough(new CompressionStream('gzip')) : content;
}

function targetOf(
  settings: ObjectWriterSettings,
  key: string,
  metadata: Record<string, string>,
): ObjectTarget {
  return { bucket: settings.bucket, key, contentType: settings.contentType, metadata };
}

/**
 * Creates `pending.key` holding just its entries, under `If-None-Match: *`. Resolves `null`
 * when the key exists (or another conditional write on it was in progress), so that the
 * caller reads and appends instead.
 */
async function createOptimistically(
  client: S3SinkClient,
  settings: ObjectWriterSettings,
  pending: PendingObject,
  last: PendingEntry,
): Promise<WriteOutcome | null> {
  try {
    const method = await uploadObject(
      client,
      targetOf(settings, pending.key, metadataOf(null, pending.entries, last)),
      contentOf(settings, null, pending.entries),
      { kind: 'create' },
      settings.partSize,
    );
    return { kind: 'created', appended: pending.entries.length, method };
  } catch (error) {
    if (error instanceof PreconditionFailedError) return null;
    throw error;
  }
}

/** Reads `pending.key`, then creates it or appends the entries above its `last-offset`. */
async function readThenWrite(
  client: S3SinkClient,
  settings: ObjectWriterSettings,
  pending: PendingObject,
  known: KnownObjects,
): Promise<WriteOutcome> {
  const where = `s3://${settings.bucket}/${pending.key}`;
  const existing = await client.getObject(settings.bucket, pending.key);
  if (existing === null) known.delete(pending.key);
  else known.add(pending.key);
  let stored: ObjectOffsets | null = null;
  try {
    stored = existing === null ? null : readObjectOffsets(existing.metadata, where);
  } catch (error) {
    await existing?.body.cancel().catch(() => undefined);
    throw error;
  }
  const fresh = pending.entries.filter((e) => stored === null || e.offset > stored.lastOffset);
  const last = fresh[fresh.length - 1];
  if (last === undefined) {
    await existing?.body.cancel().catch(() => undefined);
    return { kind: 'unchanged' };
  }
  const method = await uploadObject(
    client,
    targetOf(settings, pending.key, metadataOf(stored, fresh, last)),
    contentOf(settings, existing?.body ?? null, fresh),
    conditionFor(settings, existing),
    settings.partSize,
  );
  known.add(pending.key);
  return { kind: stored === null ? 'created' : 'appended', appended: fresh.length, method };
}

/**
 * Makes `pending.key` hold its records: creates the object, or appends the entries above its
 * `last-offset` (the ones at or below it are already in it, since an offset always carries
 * the same record), or leaves it untouched when there is nothing new.
 *
 * With `settings.conditionalWrites` and a key `known` does not hold, the object is first
 * created straight away with `If-None-Match: *` (no GetObject); when it exists (412, or 409
 * for a concurrent conditional write) the writer falls back to reading and appending under
 * `If-Match`. Without conditional writes it always reads first: a blind create could
 * overwrite records. `known` learns the keys found or made to exist.
 */
export async function writeObject(
  client: S3SinkClient,
  settings: ObjectWriterSettings,
  pending: PendingObject,
  known: KnownObjects,
): Promise<WriteOutcome> {
  const last = pending.entries[pending.entries.length - 1];
  if (settings.conditionalWrites && last !== undefined && !known.has(pending.key)) {
    const created = await createOptimistically(client, settings, pending, last);
    if (created !== null) {
      known.add(pending.key);
      return created;
    }
  }
  return readThenWrite(client, settings, pending, known);
}
