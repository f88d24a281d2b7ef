/**
 * Writes one bucket object of the S3 sink idempotently: reads the object's `last-offset`
 * metadata, keeps its content, appends only the records above that offset, and writes the
 * whole object back (streamed, compressed when configured), conditioned on the ETag it read.
 * With conditional writes no read comes first in the common cases: a key not known to exist is
 * created straight away under `If-None-Match: *` (a batch starting new objects), and an object
 * this writer wrote itself is appended to from the bytes it wrote, under `If-Match` of the
 * ETag its write got (a warm task filling an object over several batches). Only when S3
 * refuses such a write, or the writer knows a key exists without its bytes, does it read.
 */
import { ConnectError } from 'serverless-connect/connect';
import {
  linesLayout,
  type ObjectHead,
  type ObjectLayout,
  type PendingEntry,
} from './object-layout.js';
import {
  type ObjectContent,
  type UploadMethod,
  type UploadResult,
  uploadObject,
} from './object-upload.js';
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

/** The records of one object, by ascending, distinct offsets. */
export interface PendingObject {
  readonly key: string;
  readonly entries: readonly PendingEntry[];
  /** How its bytes are made. @default lines, as {@link ObjectWriterSettings} say */
  readonly layout?: ObjectLayout;
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

/** How many bytes of written objects a {@link KnownObjects} keeps by default (32 MiB). */
export const KNOWN_CONTENT_BUDGET = 32 * 1024 * 1024;

/** What a writer knows of an object it wrote itself with one PutObject. */
export interface WrittenObject {
  /** The ETag S3 answered to that write. */
  readonly etag: string;
  /** The offsets its metadata records. */
  readonly offsets: ObjectOffsets;
  /** Its bytes as stored (compressed when configured). */
  readonly bytes: Uint8Array;
}

/**
 * The keys one writer (an S3 sink task instance) has seen exist: created, appended to or read;
 * and, for the objects it wrote itself with one PutObject, what it wrote (ETag, offsets and
 * bytes, up to a byte budget; the least recently used first out). Bounded, least recently used
 * first out. A hint only: the write that uses it is conditioned on the ETag, so a key another
 * writer changed is refused and read then; either way the write is correct.
 *
 * @example
 * const known = new KnownObjects();
 * await writeObject(client, settings, pending, known); // creates: no GetObject
 * await writeObject(client, settings, more, known); // appends what it wrote: no GetObject
 */
export class KnownObjects {
  readonly #keys = new Map<string, WrittenObject | null>();
  #bytes = 0;

  constructor(
    readonly capacity = KNOWN_OBJECTS_CAPACITY,
    readonly contentBudget = KNOWN_CONTENT_BUDGET,
  ) {}

  /** Whether `key` is known to exist (and marks it recently used). */
  has(key: string): boolean {
    const written = this.#keys.get(key);
    if (written === undefined) return false;
    this.#keys.delete(key);
    this.#keys.set(key, written);
    return true;
  }

  /** What this writer wrote to `key`, when it still knows (marks it recently used). */
  written(key: string): WrittenObject | undefined {
    return this.has(key) ? (this.#keys.get(key) ?? undefined) : undefined;
  }

  /**
   * Remembers that `key` exists and, when given, what was written to it; forgets the least
   * recently used keys beyond capacity and the least recently used contents beyond the budget.
   */
  add(key: string, written: WrittenObject | null = null): void {
    this.delete(key);
    const kept = written !== null && written.bytes.length <= this.contentBudget ? written : null;
    this.#keys.set(key, kept);
    this.#bytes += kept?.bytes.length ?? 0;
    if (this.#keys.size > this.capacity) {
      const oldest = this.#keys.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    if (this.#bytes <= this.contentBudget) return;
    for (const [k, w] of this.#keys) {
      if (this.#bytes <= this.contentBudget) break;
      if (w === null) continue;
      this.#keys.set(k, null);
      this.#bytes -= w.bytes.length;
    }
  }

  /** Forgets `key` (it was found missing, or changed by another writer). */
  delete(key: string): void {
    const written = this.#keys.get(key);
    if (written === undefined) return;
    this.#keys.delete(key);
    this.#bytes -= written?.bytes.length ?? 0;
  }

  /** How many keys are remembered. */
  get size(): number {
    return this.#keys.size;
  }

  /** How many bytes of written objects are kept. */
  get contentBytes(): number {
    return this.#bytes;
  }
}

/** The offsets of an object holding `stored` (null: nothing yet) followed by `fresh`. */
export function offsetsAfter(
  stored: ObjectOffsets | null,
  fresh: readonly PendingEntry[],
  last: PendingEntry,
): ObjectOffsets {
  return {
    firstOffset: stored?.firstOffset ?? fresh[0]?.offset ?? last.offset,
    lastOffset: last.offset,
    recordCount: (stored?.recordCount ?? 0) + fresh.length,
  };
}

/** The user metadata recording `offsets`, after the layout's own. */
function metadataOf(offsets: ObjectOffsets, layout: ObjectLayout): Record<string, string> {
  return {
    ...layout.metadata,
    [FIRST_OFFSET_METADATA]: String(offsets.firstOffset),
    [LAST_OFFSET_METADATA]: String(offsets.lastOffset),
    [RECORD_COUNT_METADATA]: String(offsets.recordCount),
    [LAYOUT_VERSION_METADATA]: LAYOUT_VERSION,
  };
}

/** The layout of `pending`: its own, or the lines of `settings`. */
export function layoutOf(settings: ObjectWriterSettings, pending: PendingObject): ObjectLayout {
  return pending.layout ?? linesLayout(settings.compression, settings.contentType);
}

/**
 * The content of an object holding `heads` (stored contents, compressed as configured: S3's
 * body streams, or bytes this writer wrote) one after the other, then `fresh`, in `pending`'s
 * layout (see `object-layout.ts`).
 */
export function contentOf(
  settings: ObjectWriterSettings,
  pending: PendingObject,
  heads: readonly ObjectHead[],
  fresh: readonly PendingEntry[],
): ObjectContent {
  return layoutOf(settings, pending).content(heads, fresh);
}

/** Where and how `pending` is written, its metadata recording `offsets`. */
export function targetOf(
  settings: ObjectWriterSettings,
  pending: PendingObject,
  offsets: ObjectOffsets,
): ObjectTarget {
  const layout = layoutOf(settings, pending);
  return {
    bucket: settings.bucket,
    key: pending.key,
    contentType: layout.contentType,
    metadata: metadataOf(offsets, layout),
  };
}

/** Remembers that `key` exists, with what was written when the upload says. */
export function remember(
  known: KnownObjects,
  key: string,
  offsets: ObjectOffsets,
  upload: UploadResult,
): void {
  const stored = upload.stored;
  known.add(
    key,
    stored === undefined || stored.etag === null
      ? null
      : { etag: stored.etag, offsets, bytes: stored.bytes },
  );
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
  known: KnownObjects,
): Promise<WriteOutcome | null> {
  const offsets = offsetsAfter(null, pending.entries, last);
  try {
    const upload = await uploadObject(
      client,
      targetOf(settings, pending, offsets),
      contentOf(settings, pending, [], pending.entries),
      { kind: 'create' },
      settings.partSize,
    );
    remember(known, pending.key, offsets, upload);
    return { kind: 'created', appended: pending.entries.length, method: upload.method };
  } catch (error) {
    if (error instanceof PreconditionFailedError) return null;
    throw error;
  }
}

/**
 * Appends the entries above what this writer knows it wrote to `pending.key`, without reading
 * it, under `If-Match` of the ETag it got. Resolves `null` when S3 refuses the write (another
 * writer changed or deleted the object), after forgetting what it knew, so that the caller
 * reads and appends instead.
 */
async function appendWritten(
  client: S3SinkClient,
  settings: ObjectWriterSettings,
  pending: PendingObject,
  written: WrittenObject,
  known: KnownObjects,
): Promise<WriteOutcome | null> {
  const fresh = pending.entries.filter((e) => e.offset > written.offsets.lastOffset);
  const last = fresh[fresh.length - 1];
  if (last === undefined) return { kind: 'unchanged' };
  const offsets = offsetsAfter(written.offsets, fresh, last);
  try {
    const upload = await uploadObject(
      client,
      targetOf(settings, pending, offsets),
      contentOf(settings, pending, [written.bytes], fresh),
      { kind: 'replace', etag: written.etag },
      settings.partSize,
    );
    remember(known, pending.key, offsets, upload);
    return { kind: 'appended', appended: fresh.length, method: upload.method };
  } catch (error) {
    if (!(error instanceof PreconditionFailedError)) throw error;
    known.delete(pending.key);
    return null;
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
  const offsets = offsetsAfter(stored, fresh, last);
  const upload = await uploadObject(
    client,
    targetOf(settings, pending, offsets),
    contentOf(settings, pending, existing === null ? [] : [existing.body], fresh),
    conditionFor(settings, existing),
    settings.partSize,
  );
  remember(known, pending.key, offsets, upload);
  return {
    kind: stored === null ? 'created' : 'appended',
    appended: fresh.length,
    method: upload.method,
  };
}

/**
 * Makes `pending.key` hold its records: creates the object, or appends the entries above its
 * `last-offset` (the ones at or below it are already in it, since an offset always carries
 * the same record), or leaves it untouched when there is nothing new.
 *
 * With `settings.conditionalWrites`, no read comes first in the common cases: a key `known`
 * does not hold is created straight away with `If-None-Match: *`; a key this writer wrote
 * itself (and `known` still holds its bytes) is appended to from those bytes under `If-Match`
 * of the ETag that write got. When S3 refuses either (412, or 409 for a concurrent conditional
 * write) the writer reads the object and appends under `If-Match`; a key known to exist
 * without its bytes is read first too. Without conditional writes it always reads first: a
 * blind write could overwrite records. `known` learns the keys found or made to exist, and
 * what was written to them.
 */
export async function writeObject(
  client: S3SinkClient,
  settings: ObjectWriterSettings,
  pending: PendingObject,
  known: KnownObjects,
): Promise<WriteOutcome> {
  const last = pending.entries[pending.entries.length - 1];
  if (settings.conditionalWrites && last !== undefined) {
    const written = known.written(pending.key);
    const done =
      written !== undefined
        ? await appendWritten(client, settings, pending, written, known)
        : known.has(pending.key)
          ? null
          : await createOptimistically(client, settings, pending, last, known);
    if (done !== null) return done;
  }
  return readThenWrite(client, settings, pending, known);
}
