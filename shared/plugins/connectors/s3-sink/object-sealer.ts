/**
 * Seals the objects of complete buckets (`s3.write.mode=once`): writes each final key once,
 * complete, under `If-None-Match: *`, from its staging object (the records earlier batches
 * staged) and the batch's records above it, then deletes the staging object.
 *
 * A final key is never written twice by replays: a write refused because the key exists (a
 * replay, a zombie invocation, a crash between the final write and the staging delete) reads
 * its `last-offset`, finds every record there, and only deletes the staging leftover. The one
 * exception is a final key that holds fewer offsets than its bucket now has (`flush.size` was
 * raised, and the new bucket starts where an old one did): its missing records are appended to
 * it, as `s3.write.mode=progressive` would, rather than lost.
 */
import { ConnectError, RetriableError } from 'serverless-connect/connect';
import type { UploadMethod } from './object-upload.js';
import { uploadObject } from './object-upload.js';
import {
  contentOf,
  type KnownObjects,
  layoutOf,
  type ObjectOffsets,
  type ObjectWriterSettings,
  offsetsAfter,
  type PendingObject,
  readObjectOffsets,
  targetOf,
} from './object-writer.js';
import { PreconditionFailedError, type S3SinkClient, type StoredObject } from './s3-sink-client.js';

/** One final object to seal. */
export interface SealRequest {
  /** The final key, and the batch's records for it (none when all of them were staged). */
  readonly pending: PendingObject;
  readonly stagingKey: string;
  /**
   * Whether the staging object may hold records the batch does not: the batch started after
   * the bucket's first offset. When false the staging object is not read (a leftover of a
   * crashed attempt holds only records the batch holds again) but still deleted.
   */
  readonly readStaging: boolean;
  /**
   * Whether to delete the staging object once the final one is written. False keeps it (a
   * container format's history of schema runs, see `object-segments.ts`) for the task to delete
   * later. @default true
   */
  readonly deleteStaging?: boolean;
}

/** What sealing did. */
export type SealOutcome =
  | { readonly kind: 'sealed'; readonly records: number; readonly method: UploadMethod }
  /** The final object existed with every record (a replay, or another invocation sealed it). */
  | { readonly kind: 'present' }
  /** Raised `flush.size`: the final object existed with fewer offsets, and was appended to. */
  | { readonly kind: 'extended'; readonly appended: number }
  /** Nothing was staged and the batch held no record for it. */
  | { readonly kind: 'empty' };

/** A staging object opened for reading. */
interface Staged {
  readonly offsets: ObjectOffsets;
  readonly body: ReadableStream<Uint8Array>;
}

async function discard(stored: StoredObject | Staged | null): Promise<void> {
  await stored?.body.cancel().catch(() => undefined);
}

/** Opens the object at `key` with the sink's offsets, or resolves null when it is missing. */
async function open(
  client: S3SinkClient,
  settings: ObjectWriterSettings,
  key: string,
): Promise<(Staged & { readonly etag: string | null }) | null> {
  const got = await client.getObject(settings.bucket, key);
  if (got === null) return null;
  try {
    return {
      offsets: readObjectOffsets(got.metadata, `s3://${settings.bucket}/${key}`),
      body: got.body,
      etag: got.etag,
    };
  } catch (error) {
    await discard(got);
    throw error;
  }
}

/**
 * The final object exists (found by a refused create, or by a read first without conditional
 * writes): nothing to do when it holds every offset `wanted` covers; else append the records
 * above its `last-offset` (from the staging object, read again, and the batch's), under
 * `If-Match` of its ETag.
 */
async function settle(
  client: S3SinkClient,
  settings: ObjectWriterSettings,
  request: SealRequest,
  wanted: ObjectOffsets,
): Promise<SealOutcome> {
  const { key } = request.pending;
  const final = await open(client, settings, key);
  if (final === null) {
    throw new RetriableError(
      `s3://${settings.bucket}/${key} was reported to exist but is gone; the batch will be retried`,
    );
  }
  if (final.offsets.lastOffset >= wanted.lastOffset) {
    await discard(final);
    return { kind: 'present' };
  }
  if (!layoutOf(settings, request.pending).extendable) {
    await discard(final);
    throw new ConnectError(
      `s3://${settings.bucket}/${key} holds offsets up to ${final.offsets.lastOffset}, fewer than ` +
        `its range (up to ${wanted.lastOffset}), and its format cannot be appended to: it was ` +
        'written under another flush.size (or the offsets were reset); remove it',
    );
  }
  const staged = request.readStaging ? await open(client, settings, request.stagingKey) : null;
  if (staged !== null && staged.offsets.firstOffset <= final.offsets.lastOffset) {
    await Promise.all([discard(final), discard(staged)]);
    throw new ConnectError(
      `s3://${settings.bucket}/${key} holds offsets up to ${final.offsets.lastOffset} and its ` +
        `staging object ${request.stagingKey} overlaps it from ${staged.offsets.firstOffset}: ` +
        'they were written under other settings; remove one of them',
    );
  }
  const above = staged?.offsets ?? final.offsets;
  const fresh = request.pending.entries.filter((e) => e.offset > above.lastOffset);
  const last = fresh[fresh.length - 1];
  const headOffsets =
    staged === null
      ? final.offsets
      : {
          firstOffset: final.offsets.firstOffset,
          lastOffset: staged.offsets.lastOffset,
          recordCount: final.offsets.recordCount + staged.offsets.recordCount,
        };
  const offsets = last === undefined ? headOffsets : offsetsAfter(headOffsets, fresh, last);
  await uploadObject(
    client,
    targetOf(settings, request.pending, offsets),
    contentOf(
      settings,
      request.pending,
      staged === null ? [final.body] : [final.body, staged.body],
      fresh,
    ),
    settings.conditionalWrites && final.etag !== null
      ? { kind: 'replace', etag: final.etag }
      : { kind: 'none' },
    settings.partSize,
  );
  return { kind: 'extended', appended: offsets.recordCount - final.offsets.recordCount };
}

/** Writes the final object of `request` unless it exists (see {@link sealObject}). */
async function writeFinal(
  client: S3SinkClient,
  settings: ObjectWriterSettings,
  request: SealRequest,
): Promise<SealOutcome> {
  const { pending } = request;
  const staged = request.readStaging ? await open(client, settings, request.stagingKey) : null;
  const fresh = pending.entries.filter(
    (e) => staged === null || e.offset > staged.offsets.lastOffset,
  );
  const last = fresh[fresh.length - 1];
  if (staged === null && last === undefined) return { kind: 'empty' };
  const offsets =
    last === undefined
      ? (staged as Staged).offsets
      : offsetsAfter(staged?.offsets ?? null, fresh, last);
  if (!settings.conditionalWrites) {
    // No If-None-Match to trust: look first, a blind write could replace a complete object.
    const existing = await client.getObject(settings.bucket, pending.key);
    if (existing !== null) {
      await Promise.all([discard(existing), discard(staged)]);
      return settle(client, settings, request, offsets);
    }
  }
  try {
    const upload = await uploadObject(
      client,
      targetOf(settings, pending, offsets),
      contentOf(settings, pending, staged === null ? [] : [staged.body], fresh),
      settings.conditionalWrites ? { kind: 'create' } : { kind: 'none' },
      settings.partSize,
    );
    return { kind: 'sealed', records: offsets.recordCount, method: upload.method };
  } catch (error) {
    await discard(staged);
    if (!(error instanceof PreconditionFailedError)) throw error;
    return settle(client, settings, request, offsets);
  }
}

/**
 * Seals one final object: unless `known` says this writer already sealed it, writes it once
 * with `If-None-Match: *`, holding the staging object's records (read only when
 * `request.readStaging`) then the batch's records above the staging object's `last-offset`;
 * when the key exists, checks that it holds every offset (else appends the rest, see the file
 * comment). Then deletes the staging object (whether or not it exists; unless
 * `request.deleteStaging` is false), so that a crash between the two steps is repaired by the
 * next seal of the bucket.
 *
 * @example
 * await sealObject(client, settings, {
 *   pending: { key: 'topics/t/partition=0/t+0+00000000000000000000.json', entries },
 *   stagingKey: '_staging/t+0/topics/t/partition=0/t+0+00000000000000000000.json',
 *   readStaging: true,
 * }, known); // GetObject (staging), PutObject (final, If-None-Match: *), DeleteObject (staging)
 */
export async function sealObject(
  client: S3SinkClient,
  settings: ObjectWriterSettings,
  request: SealRequest,
  known: KnownObjects,
): Promise<SealOutcome> {
  let outcome: SealOutcome = { kind: 'present' };
  if (!known.has(request.pending.key)) {
    outcome = await writeFinal(client, settings, request);
    if (outcome.kind !== 'empty') known.add(request.pending.key);
  }
  if (request.deleteStaging !== false) {
    await client.deleteObject(settings.bucket, request.stagingKey);
    known.delete(request.stagingKey);
  }
  return outcome;
}
