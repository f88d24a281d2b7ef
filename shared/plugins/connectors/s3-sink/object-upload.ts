/**
 * Uploads a byte stream as one S3 object with bounded memory: content up to `partSize` bytes
 * goes in one PutObject; larger content streams through a multipart upload in parts of exactly
 * `partSize` bytes (the last one smaller), aborted on any failure. At most one part (plus one
 * incoming chunk) is held in memory.
 */
import { ConnectError } from 'serverless-connect/connect';
import {
  type ObjectTarget,
  type S3SinkClient,
  toSinkError,
  type UploadedPart,
  type WriteCondition,
} from './s3-sink-client.js';

/** S3's smallest part size (except the last part): 5 MiB. */
export const MIN_PART_SIZE = 5 * 1024 * 1024;

/** Collects chunks up to a size, then hands out exact slices. */
class PartBuffer {
  #chunks: Uint8Array[] = [];
  size = 0;

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.size += chunk.length;
  }

  /** Removes and returns the first `n` bytes (or everything when `n` is omitted). */
  take(n = this.size): Uint8Array {
    const out = new Uint8Array(Math.min(n, this.size));
    let filled = 0;
    while (filled < out.length) {
      const head = this.#chunks[0] as Uint8Array;
      const used = Math.min(head.length, out.length - filled);
      out.set(used === head.length ? head : head.subarray(0, used), filled);
      filled += used;
      if (used === head.length) this.#chunks.shift();
      else this.#chunks[0] = head.subarray(used);
    }
    this.size -= out.length;
    return out;
  }
}

/** How an upload went: one PutObject, or a multipart upload of `parts` parts. */
export type UploadMethod =
  | { readonly kind: 'put' }
  | { readonly kind: 'multipart'; readonly parts: number };

/** What S3 holds after a single PutObject: the bytes written and their ETag. */
export interface StoredContent {
  /** The ETag S3 answered, or `null` when it sent none. */
  readonly etag: string | null;
  /** The object's bytes as stored (compressed when the object is). */
  readonly bytes: Uint8Array;
}

/** How an upload went and, for a single PutObject, what S3 stores now. */
export interface UploadResult {
  readonly method: UploadMethod;
  /** Set after a single PutObject (a multipart upload's content is not kept). */
  readonly stored?: StoredContent;
}

/** The content of an object: a stream, or its chunks already in memory. */
export type ObjectContent = ReadableStream<Uint8Array> | readonly Uint8Array[];

/** `chunks` as one array (the chunk itself when there is one). */
function joined(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** A stream of `chunks`. */
function streamOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

/** Reads the next chunk, mapping stream failures (S3 body, gzip) to ConnectErrors. */
async function read(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  target: ObjectTarget,
): Promise<Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>> {
  try {
    return await reader.read();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && code.startsWith('Z_')) {
      throw new ConnectError(
        `s3://${target.bucket}/${target.key} holds invalid gzip data; it was not written by this connector with s3.compression.type=gzip`,
        { cause: error },
      );
    }
    throw toSinkError(error, `Reading the content of s3://${target.bucket}/${target.key}`);
  }
}

/**
 * Writes `content` to `target` under `condition` (applied to the PutObject or to the
 * completion, so the object changes atomically either way). Rejects with the ConnectError of
 * the first failure, after cancelling `content` and aborting any multipart upload (an abort
 * failure is ignored: a bucket lifecycle rule should clean incomplete uploads). Content given
 * as chunks in memory and no larger than `partSize` is joined and put without a stream.
 */
export async function uploadObject(
  client: S3SinkClient,
  target: ObjectTarget,
  content: ObjectContent,
  condition: WriteCondition,
  partSize: number,
): Promise<UploadResult> {
  if (!(content instanceof ReadableStream)) {
    let size = 0;
    for (const chunk of content) size += chunk.length;
    if (size > partSize)
      return uploadObject(client, target, streamOf(content), condition, partSize);
    const bytes = joined(content, size);
    try {
      const etag = await client.putObject(target, bytes, condition);
      return { method: { kind: 'put' }, stored: { etag, bytes } };
    } catch (error) {
      throw toSinkError(error, `Writing s3://${target.bucket}/${target.key}`);
    }
  }
  const reader = content.getReader();
  const buffer = new PartBuffer();
  let uploadId: string | null = null;
  const parts: UploadedPart[] = [];
  try {
    for (let chunk = await read(reader, target); !chunk.done; chunk = await read(reader, target)) {
      buffer.push(chunk.value);
      while (buffer.size > partSize) {
        uploadId ??= await client.createMultipartUpload(target);
        const partNumber = parts.length + 1;
        parts.push(
          await client.uploadPart(
            target.bucket,
            target.key,
            uploadId,
            partNumber,
            buffer.take(partSize),
          ),
        );
      }
    }
    if (uploadId === null) {
      const bytes = buffer.take();
      const etag = await client.putObject(target, bytes, condition);
      return { method: { kind: 'put' }, stored: { etag, bytes } };
    }
    if (buffer.size > 0) {
      const partNumber = parts.length + 1;
      parts.push(
        await client.uploadPart(target.bucket, target.key, uploadId, partNumber, buffer.take()),
      );
    }
    await client.completeMultipartUpload(target.bucket, target.key, uploadId, parts, condition);
    return { method: { kind: 'multipart', parts: parts.length } };
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    if (uploadId !== null) {
      await client.abortMultipartUpload(target.bucket, target.key, uploadId).catch(() => undefined);
    }
    throw toSinkError(error, `Writing s3://${target.bucket}/${target.key}`);
  }
}
