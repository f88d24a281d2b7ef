/**
 * Writes one bucket object of the S3 sink idempotently: reads the object's `last-offset`
 * metadata, keeps its content, appends only the records above that offset, and writes the
 * whole object back (streamed, compressed when configured), conditioned on the ETag it read.
 */
import { ConnectError } from '../../../connect/errors.js';
import { type UploadMethod, uploadObject } from './object-upload.js';
import type { ObjectTarget, S3SinkClient, StoredObject, WriteCondition } from './s3-sink-client.js';

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

/**
 * Makes `pending.key` hold its records: creates the object, or appends the entries above its
 * `last-offset` (the ones at or below it are already in it, since an offset always carries
 * the same record), or leaves it untouched when there is nothing new.
 */
export async function writeObject(
  client: S3SinkClient,
  settings: ObjectWriterSettings,
  pending: PendingObject,
): Promise<WriteOutcome> {
  const where = `s3://${settings.bucket}/${pending.key}`;
  const existing = await client.getObject(settings.bucket, pending.key);
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
  const gzip = settings.compression === 'gzip';
  let head: ReadableStream<Uint8Array> | null = existing?.body ?? null;
  if (head !== null && gzip) head = head.pipeThrough(new DecompressionStream('gzip'));
  let content = concatenate(
    head,
    fresh.map((e) => e.bytes),
  );
  if (gzip) content = content.pipeThrough(new CompressionStream('gzip'));
  const target: ObjectTarget = {
    bucket: settings.bucket,
    key: pending.key,
    contentType: settings.contentType,
    metadata: {
      [FIRST_OFFSET_METADATA]: String(stored?.firstOffset ?? fresh[0]?.offset ?? last.offset),
      [LAST_OFFSET_METADATA]: String(last.offset),
      [RECORD_COUNT_METADATA]: String((stored?.recordCount ?? 0) + fresh.length),
      [LAYOUT_VERSION_METADATA]: LAYOUT_VERSION,
    },
  };
  const method = await uploadObject(
    client,
    target,
    content,
    conditionFor(settings, existing),
    settings.partSize,
  );
  return { kind: stored === null ? 'created' : 'appended', appended: fresh.length, method };
}
