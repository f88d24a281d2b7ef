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
 * failure is ignored: a bucket lifecycle rule should clean incomplete uploads).
 */
export async function uploadObject(
  client: S3SinkClient,
  target: ObjectTarget,
  content: ReadableStream<Uint8Array>,
  condition: WriteCondition,
  partSize: number,
): Promise<UploadMethod> {
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
      await client.putObject(target, buffer.take(), condition);
      return { kind: 'put' };
    }
    if (buffer.size > 0) {
      const partNumber = parts.length + 1;
      parts.push(
        await client.uploadPart(target.bucket, target.key, uploadId, partNumber, buffer.take()),
      );
    }
    await client.completeMultipartUpload(target.bucket, target.key, uploadId, parts, condition);
    return { kind: 'multipart', parts: parts.length };
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    if (uploadId !== null) {
      await client.abortMultipartUpload(target.bucket, target.key, uploadId).catch(() => undefined);
    }
    throw toSinkError(error, `Writing s3://${target.bucket}/${target.key}`);
  }
}
