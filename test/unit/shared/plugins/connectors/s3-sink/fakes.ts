import type {
  ErrantRecordReporter,
  SinkTaskContext,
} from '../../../../../../shared/connect/context.js';
import { RetriableError } from '../../../../../../shared/connect/errors.js';
import { SinkRecord, type SinkRecordInit } from '../../../../../../shared/connect/records.js';
import type {
  ObjectTarget,
  S3SinkClient,
  StoredObject,
  UploadedPart,
  WriteCondition,
} from '../../../../../../shared/plugins/connectors/s3-sink/s3-sink-client.js';
import { toSinkError } from '../../../../../../shared/plugins/connectors/s3-sink/s3-sink-client.js';

/** A clock the test sets by hand. */
export class FakeClock {
  constructor(public time = 1_700_000_000_000) {}
  now(): number {
    return this.time;
  }
}

/** One object of the fake bucket. */
export interface FakeObject {
  readonly bytes: Uint8Array;
  readonly metadata: Readonly<Record<string, string>>;
  readonly etag: string;
  readonly contentType: string;
}

interface Upload {
  readonly target: ObjectTarget;
  readonly parts: Map<number, Uint8Array>;
}

/** The kinds of call the fake records, in order. */
export type CallKind = 'get' | 'put' | 'create' | 'part' | 'complete' | 'abort' | 'list' | 'delete';

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) controller.close();
      else {
        controller.enqueue(bytes.slice(at, at + size));
        at += size;
      }
    },
  });
}

/** An S3-shaped error as the AWS SDK throws it. */
export function sdkError(name: string, status: number, fault: 'client' | 'server'): Error {
  return Object.assign(new Error(`${name} (fake)`), {
    name,
    $fault: fault,
    $metadata: { httpStatusCode: status },
  });
}

/**
 * An in-memory bucket behind {@link S3SinkClient}: ETags, user metadata, conditional writes,
 * multipart uploads, bodies streamed in small chunks, and failures to inject.
 */
export class FakeS3Sink implements S3SinkClient {
  readonly objects = new Map<string, FakeObject>();
  readonly uploads = new Map<string, Upload>();
  /** Every call in order, with the condition of puts and completions. */
  readonly calls: { kind: CallKind; key: string; condition?: WriteCondition }[] = [];
  destroyed = false;
  /** How many times each key was written (successful puts and completed uploads). */
  readonly writes = new Map<string, number>();
  /** Mutating calls (put, create, part, complete, delete) so far. */
  mutations = 0;
  /**
   * When set, the mutating call with this index (counted by {@link mutations}) and every one
   * after it fail with a RetriableError: the process "crashed" there.
   */
  crashAt: number | null = null;
  /** Errors thrown by the next calls of a kind, in order. */
  readonly failures = new Map<CallKind, Error[]>();
  /** Runs after a getObject resolves and before the caller continues (to race writers). */
  afterGet: ((key: string) => void) | null = null;
  #etags = 0;

  constructor(
    readonly bucket = 'bucket',
    readonly chunkSize = 5,
  ) {}

  /** Stores an object directly (as another writer would). */
  store(key: string, bytes: Uint8Array, metadata: Record<string, string>): void {
    this.objects.set(key, {
      bytes,
      metadata,
      etag: `"e${++this.#etags}"`,
      contentType: 'application/octet-stream',
    });
  }

  #record(kind: CallKind, key: string, condition?: WriteCondition): void {
    this.calls.push(condition === undefined ? { kind, key } : { kind, key, condition });
    const failure = this.failures.get(kind)?.shift();
    if (failure !== undefined) throw toSinkError(failure, `${kind} ${key}`);
    if (kind === 'get' || kind === 'abort' || kind === 'list') return;
    const index = this.mutations++;
    if (this.crashAt !== null && index >= this.crashAt) {
      throw new RetriableError(`crash before ${kind} ${key}`);
    }
  }

  #checkBucket(bucket: string): void {
    if (bucket !== this.bucket) {
      throw toSinkError(sdkError('NoSuchBucket', 404, 'client'), `bucket ${bucket}`);
    }
  }

  #check(key: string, condition: WriteCondition): void {
    const current = this.objects.get(key);
    const failed =
      (condition.kind === 'create' && current !== undefined) ||
      (condition.kind === 'replace' && current?.etag !== condition.etag);
    if (failed) throw toSinkError(sdkError('PreconditionFailed', 412, 'client'), `write ${key}`);
  }

  #write(target: ObjectTarget, bytes: Uint8Array): string {
    const etag = `"e${++this.#etags}"`;
    this.writes.set(target.key, (this.writes.get(target.key) ?? 0) + 1);
    this.objects.set(target.key, {
      bytes,
      metadata: { ...target.metadata },
      etag,
      contentType: target.contentType,
    });
    return etag;
  }

  async getObject(bucket: string, key: string): Promise<StoredObject | null> {
    this.#checkBucket(bucket);
    this.#record('get', key);
    const o = this.objects.get(key);
    this.afterGet?.(key);
    if (o === undefined) return null;
    return { body: chunked(o.bytes, this.chunkSize), metadata: { ...o.metadata }, etag: o.etag };
  }

  async putObject(target: ObjectTarget, body: Uint8Array, condition: WriteCondition) {
    this.#checkBucket(target.bucket);
    this.#record('put', target.key, condition);
    this.#check(target.key, condition);
    return this.#write(target, body.slice());
  }

  async createMultipartUpload(target: ObjectTarget): Promise<string> {
    this.#checkBucket(target.bucket);
    this.#record('create', target.key);
    const id = `upload-${this.uploads.size + 1}-${target.key}`;
    this.uploads.set(id, { target, parts: new Map() });
    return id;
  }

  async uploadPart(
    _bucket: string,
    key: string,
    uploadId: string,
    partNumber: number,
    body: Uint8Array,
  ): Promise<UploadedPart> {
    this.#record('part', key);
    const upload = this.uploads.get(uploadId);
    if (upload === undefined) throw toSinkError(sdkError('NoSuchUpload', 404, 'client'), key);
    upload.parts.set(partNumber, body.slice());
    return { partNumber, etag: `"p${partNumber}"` };
  }

  async completeMultipartUpload(
    _bucket: string,
    key: string,
    uploadId: string,
    parts: readonly UploadedPart[],
    condition: WriteCondition,
  ): Promise<void> {
    this.#record('complete', key, condition);
    const upload = this.uploads.get(uploadId);
    if (upload === undefined) throw toSinkError(sdkError('NoSuchUpload', 404, 'client'), key);
    this.#check(key, condition);
    const bytes = parts.map((p) => upload.parts.get(p.partNumber) ?? new Uint8Array());
    this.#write(upload.target, concat(bytes));
    this.uploads.delete(uploadId);
  }

  async abortMultipartUpload(_bucket: string, key: string, uploadId: string): Promise<void> {
    this.#record('abort', key);
    this.uploads.delete(uploadId);
  }

  async listKeys(bucket: string, prefix: string): Promise<string[]> {
    this.#checkBucket(bucket);
    this.#record('list', prefix);
    return [...this.objects.keys()].filter((k) => k.startsWith(prefix)).sort();
  }

  async deleteObject(bucket: string, key: string): Promise<void> {
    this.#checkBucket(bucket);
    this.#record('delete', key);
    this.objects.delete(key);
  }

  destroy(): void {
    this.destroyed = true;
  }

  /** How many calls of `kind` were made. */
  count(kind: CallKind): number {
    return this.calls.filter((c) => c.kind === kind).length;
  }
}

/** `bytes` decompressed when `gzip`, as text. */
export async function textOf(bytes: Uint8Array, gzip = false): Promise<string> {
  const stream = new Blob([bytes]).stream();
  const body = gzip ? stream.pipeThrough(new DecompressionStream('gzip')) : stream;
  return new TextDecoder().decode(await new Response(body).arrayBuffer());
}

/** A SinkRecord of `orders` partition 0 unless told otherwise. */
export function sinkRecord(
  init: Partial<SinkRecordInit> & { kafkaOffset: number; value?: unknown },
): SinkRecord {
  return new SinkRecord({ topic: 'orders', kafkaPartition: 0, ...init });
}

/** An errant record reporter that remembers what it was given. */
export class RecordingReporter implements ErrantRecordReporter {
  readonly reported: { record: SinkRecord; error: Error }[] = [];
  constructor(readonly reject = false) {}
  async report(record: SinkRecord, error: Error): Promise<void> {
    this.reported.push({ record, error });
    if (this.reject) throw new Error('errors.tolerance=none');
  }
}

/** A sink task context for `props`, with `reporter` as its errant record reporter. */
export function sinkContext(
  props: Readonly<Record<string, string>>,
  reporter: ErrantRecordReporter | null = null,
): SinkTaskContext {
  return {
    configs: () => props,
    offset: () => {},
    timeout: () => {},
    assignment: () => [],
    pause: () => {},
    resume: () => {},
    requestCommit: () => {},
    errantRecordReporter: reporter,
  };
}

/** The next offsets (last + 1) per `topic-partition` of `records`, as the runtime passes them. */
export function currentOffsets(records: readonly SinkRecord[]): Map<string, number> {
  const offsets = new Map<string, number>();
  for (const r of records) offsets.set(`${r.topic}-${r.kafkaPartition}`, r.kafkaOffset + 1);
  return offsets;
}
