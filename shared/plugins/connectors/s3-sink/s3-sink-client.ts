/**
 * What the S3 sink needs from S3, as a narrow interface (so the task is testable with an
 * in-memory fake), and its implementation over the AWS SDK.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { ConnectError, RetriableError } from 'serverless-connect/connect';
import { toConnectError } from '../s3-source/object-reader.js';

/** An existing object: its body as a stream, its user metadata and its ETag. */
export interface StoredObject {
  readonly body: ReadableStream<Uint8Array>;
  /** User metadata (`x-amz-meta-*`), keys in lower case without the prefix. */
  readonly metadata: Readonly<Record<string, string>>;
  /** The ETag (quoted, as S3 sends it), or `null` when S3 sent none. */
  readonly etag: string | null;
}

/**
 * A precondition on a write: `create` fails when the key exists (`If-None-Match: *`),
 * `replace` fails unless the object still has `etag` (`If-Match`), `none` writes blindly.
 */
export type WriteCondition =
  | { readonly kind: 'create' }
  | { readonly kind: 'replace'; readonly etag: string }
  | { readonly kind: 'none' };

/** Where an object goes and what describes it. */
export interface ObjectTarget {
  readonly bucket: string;
  readonly key: string;
  /** User metadata to store (keys without `x-amz-meta-`). */
  readonly metadata: Readonly<Record<string, string>>;
  readonly contentType: string;
}

/** One uploaded part of a multipart upload. */
export interface UploadedPart {
  readonly partNumber: number;
  readonly etag: string;
  /** The part's CRC32 checksum when S3 returned one (passed back on completion). */
  readonly checksumCrc32?: string;
}

/**
 * The S3 operations of the sink. Every failure rejects with a {@link ConnectError}: a
 * `RetriableError` for throttling, 5xx and network failures, a
 * {@link PreconditionFailedError} (also retriable) when a write's {@link WriteCondition} did not
 * hold (another writer created, changed or deleted the object), a non-retriable
 * `ConnectError` for the rest (access denied, no such bucket).
 */
export interface S3SinkClient {
  /** Opens `key` with its metadata, or resolves `null` when it does not exist. */
  getObject(bucket: string, key: string): Promise<StoredObject | null>;
  /** Writes a whole object in one request; resolves its new ETag (`null` when S3 sent none). */
  putObject(
    target: ObjectTarget,
    body: Uint8Array,
    condition: WriteCondition,
  ): Promise<string | null>;
  /** Starts a multipart upload; resolves its upload id. */
  createMultipartUpload(target: ObjectTarget): Promise<string>;
  /** Uploads part `partNumber` (1-based) of an upload. */
  uploadPart(
    bucket: string,
    key: string,
    uploadId: string,
    partNumber: number,
    body: Uint8Array,
  ): Promise<UploadedPart>;
  /** Completes an upload: the object appears, with the metadata given at its creation. */
  completeMultipartUpload(
    bucket: string,
    key: string,
    uploadId: string,
    parts: readonly UploadedPart[],
    condition: WriteCondition,
  ): Promise<void>;
  /** Aborts an upload, discarding its parts. */
  abortMultipartUpload(bucket: string, key: string, uploadId: string): Promise<void>;
  /** Every key under `prefix`, in key order (all pages). */
  listKeys(bucket: string, prefix: string): Promise<string[]>;
  /** Deletes `key`; resolves as well when it does not exist. */
  deleteObject(bucket: string, key: string): Promise<void>;
  /** Releases the client's sockets. */
  destroy(): void;
}

/**
 * A conditional write did not hold: the object exists (`create`), changed or vanished
 * (`replace`), or another conditional write on the key was in progress (S3's 409
 * ConditionalRequestConflict). Retriable: re-read the object and write again. The S3 sink
 * tells it apart from other failures to fall back from an optimistic create to an append.
 */
export class PreconditionFailedError extends RetriableError {
  /** S3's error code: `PreconditionFailed`, `ConditionalRequestConflict` or `NoSuchKey`. */
  readonly s3Code: string;

  constructor(message: string, s3Code: string, options: { readonly cause?: unknown } = {}) {
    super(message, options);
    this.s3Code = s3Code;
  }
}

/** The name and HTTP status of an AWS SDK error (or of anything shaped like one). */
function describe(error: unknown): { name: string; message: string; status: unknown } {
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    message?: unknown;
    $metadata?: { httpStatusCode?: unknown };
  };
  return {
    name: typeof e.name === 'string' ? e.name : 'Error',
    message: String(e.message),
    status: e.$metadata?.httpStatusCode,
  };
}

/**
 * `error` as a {@link ConnectError}, like the S3 source's mapping (throttling, 5xx and network
 * failures retriable; other 4xx not), except that failed preconditions (412
 * PreconditionFailed, 409 ConditionalRequestConflict) become a {@link PreconditionFailedError}
 * and a vanished multipart upload (NoSuchUpload) a RetriableError.
 */
export function toSinkError(error: unknown, what: string): ConnectError {
  if (error instanceof ConnectError) return error;
  const { name, message, status } = describe(error);
  if (name === 'PreconditionFailed' || name === 'ConditionalRequestConflict' || status === 412) {
    return new PreconditionFailedError(
      `${what} failed: ${name}: the object changed concurrently (${message}); the batch will be retried`,
      status === 412 ? 'PreconditionFailed' : name,
      { cause: error },
    );
  }
  if (name === 'NoSuchUpload') {
    return new RetriableError(
      `${what} failed: ${name}: the multipart upload vanished (${message}); the batch will be retried`,
      { cause: error },
    );
  }
  return toConnectError(error, what);
}

/**
 * {@link toSinkError} for a write under `condition`: S3 answers an `If-Match` on a key that no
 * longer exists with 404 NoSuchKey, which is a lost race too.
 */
function toWriteError(error: unknown, what: string, condition: WriteCondition): ConnectError {
  const { name, message } = describe(error);
  if (condition.kind === 'replace' && name === 'NoSuchKey') {
    return new PreconditionFailedError(
      `${what} failed: ${name}: the object was deleted concurrently (${message}); the batch will be retried`,
      'NoSuchKey',
      { cause: error },
    );
  }
  return toSinkError(error, what);
}

function conditionHeaders(condition: WriteCondition): { IfMatch?: string; IfNoneMatch?: string } {
  if (condition.kind === 'create') return { IfNoneMatch: '*' };
  if (condition.kind === 'replace') return { IfMatch: condition.etag };
  return {};
}

/** The {@link S3SinkClient} over an AWS SDK `S3Client` (which it destroys on `destroy`). */
export function sdkS3SinkClient(client: S3Client): S3SinkClient {
  const where = (bucket: string, key: string) => `s3://${bucket}/${key}`;
  return {
    async getObject(bucket, key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        const metadata: Record<string, string> = {};
        for (const [k, v] of Object.entries(out.Metadata ?? {})) metadata[k.toLowerCase()] = v;
        return {
          body:
            out.Body === undefined
              ? new ReadableStream<Uint8Array>({ start: (c) => c.close() })
              : (out.Body.transformToWebStream() as ReadableStream<Uint8Array>),
          metadata,
          etag: out.ETag ?? null,
        };
      } catch (error) {
        if (error instanceof NoSuchKey) return null;
        throw toSinkError(error, `Reading ${where(bucket, key)}`);
      }
    },
    async putObject(target, body, condition) {
      try {
        const out = await client.send(
          new PutObjectCommand({
            Bucket: target.bucket,
            Key: target.key,
            Body: body,
            ContentLength: body.length,
            ContentType: target.contentType,
            Metadata: { ...target.metadata },
            ...conditionHeaders(condition),
          }),
        );
        return out.ETag ?? null;
      } catch (error) {
        throw toWriteError(error, `Writing ${where(target.bucket, target.key)}`, condition);
      }
    },
    async createMultipartUpload(target) {
      try {
        const out = await client.send(
          new CreateMultipartUploadCommand({
            Bucket: target.bucket,
            Key: target.key,
            ContentType: target.contentType,
            Metadata: { ...target.metadata },
            ChecksumAlgorithm: 'CRC32',
          }),
        );
        if (out.UploadId === undefined) {
          throw new RetriableError(
            `S3 returned no upload id for ${where(target.bucket, target.key)}`,
          );
        }
        return out.UploadId;
      } catch (error) {
        throw toSinkError(error, `Starting the upload of ${where(target.bucket, target.key)}`);
      }
    },
    async uploadPart(bucket, key, uploadId, partNumber, body) {
      try {
        const out = await client.send(
          new UploadPartCommand({
            Bucket: bucket,
            Key: key,
            UploadId: uploadId,
            PartNumber: partNumber,
            Body: body,
            ContentLength: body.length,
            ChecksumAlgorithm: 'CRC32',
          }),
        );
        if (out.ETag === undefined) {
          throw new RetriableError(
            `S3 returned no ETag for part ${partNumber} of ${where(bucket, key)}`,
          );
        }
        return {
          partNumber,
          etag: out.ETag,
          ...(out.ChecksumCRC32 === undefined ? {} : { checksumCrc32: out.ChecksumCRC32 }),
        };
      } catch (error) {
        throw toSinkError(error, `Uploading part ${partNumber} of ${where(bucket, key)}`);
      }
    },
    async completeMultipartUpload(bucket, key, uploadId, parts, condition) {
      try {
        await client.send(
          new CompleteMultipartUploadCommand({
            Bucket: bucket,
            Key: key,
            UploadId: uploadId,
            MultipartUpload: {
              Parts: parts.map((p) => ({
                PartNumber: p.partNumber,
                ETag: p.etag,
                ...(p.checksumCrc32 === undefined ? {} : { ChecksumCRC32: p.checksumCrc32 }),
              })),
            },
            ...conditionHeaders(condition),
          }),
        );
      } catch (error) {
        throw toWriteError(error, `Completing the upload of ${where(bucket, key)}`, condition);
      }
    },
    async abortMultipartUpload(bucket, key, uploadId) {
      try {
        await client.send(
          new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }),
        );
      } catch (error) {
        throw toSinkError(error, `Aborting the upload of ${where(bucket, key)}`);
      }
    },
    async listKeys(bucket, prefix) {
      const keys: string[] = [];
      let token: string | undefined;
      try {
        do {
          const page = await client.send(
            new ListObjectsV2Command({
              Bucket: bucket,
              Prefix: prefix,
              ...(token === undefined ? {} : { ContinuationToken: token }),
            }),
          );
          for (const o of page.Contents ?? []) if (o.Key !== undefined) keys.push(o.Key);
          token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
        } while (token !== undefined);
      } catch (error) {
        throw toSinkError(error, `Listing ${where(bucket, prefix)}`);
      }
      return keys;
    },
    async deleteObject(bucket, key) {
      try {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      } catch (error) {
        throw toSinkError(error, `Deleting ${where(bucket, key)}`);
      }
    },
    destroy() {
      client.destroy();
    },
  };
}
