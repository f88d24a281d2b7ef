/**
 * Reading S3 objects for the S3 source connector: the narrow S3 client the connector and task
 * use (list a page, open an object's body), its AWS SDK implementation, listing helpers, gzip
 * decompression through the web-standard `DecompressionStream`, and {@link LineReader}, which
 * splits a byte stream into lines incrementally (an object is never held in memory whole).
 */
import {
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  type S3Client,
} from '@aws-sdk/client-s3';
import { ConnectError, DataError, RetriableError } from 'serverless-connect/connect';

/** One object of a listing. */
export interface S3ObjectSummary {
  readonly key: string;
  /** Bytes. */
  readonly size: number;
  /** Epoch milliseconds, or `null` when S3 sent none. */
  readonly lastModified: number | null;
}

/** A ListObjectsV2 request. */
export interface ListRequest {
  readonly bucket: string;
  readonly prefix: string;
  /** `'/'` to group keys into common prefixes ("directories"); omitted lists recursively. */
  readonly delimiter?: string;
  readonly continuationToken?: string;
}

/** One page of a ListObjectsV2 response. */
export interface ListPage {
  readonly objects: readonly S3ObjectSummary[];
  readonly commonPrefixes: readonly string[];
  /** The token of the next page, `null` on the last page. */
  readonly nextToken: string | null;
}

/** An opened object: its body as a byte stream and its LastModified. */
export interface OpenedObject {
  readonly body: ReadableStream<Uint8Array>;
  /** Epoch milliseconds, or `null` when S3 sent none. */
  readonly lastModified: number | null;
}

/**
 * What the S3 source needs from S3. Errors are {@link ConnectError}s: `RetriableError` for
 * throttling, 5xx and network failures, a non-retriable `ConnectError` for the rest (access
 * denied, no such bucket).
 */
export interface S3SourceClient {
  /** One page of ListObjectsV2. */
  listPage(request: ListRequest): Promise<ListPage>;
  /** Opens `key`'s body, or resolves `null` when the object no longer exists. */
  getObject(bucket: string, key: string, signal?: AbortSignal): Promise<OpenedObject | null>;
  /** Releases the client's sockets. */
  destroy(): void;
}

const RETRIABLE_S3_ERRORS = new Set([
  'SlowDown',
  'Throttling',
  'ThrottlingException',
  'RequestTimeout',
  'RequestTimeTooSkewed',
  'InternalError',
  'ServiceUnavailable',
  'TimeoutError',
]);

/**
 * `error` as a {@link ConnectError}: ConnectErrors pass through; S3 client faults (4xx) are
 * not retriable; server faults, throttling and failures without an S3 response (network,
 * timeouts) are retriable.
 */
export function toConnectError(error: unknown, what: string): ConnectError {
  if (error instanceof ConnectError) return error;
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    message?: unknown;
    $fault?: unknown;
    $metadata?: { httpStatusCode?: unknown };
  };
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const message = `${what} failed: ${name}: ${typeof e.message === 'string' ? e.message : String(error)}`;
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : 0;
  const clientFault = e.$fault === 'client' || (status >= 400 && status < 500);
  if (clientFault && !RETRIABLE_S3_ERRORS.has(name) && status !== 429) {
    return new ConnectError(message, { cause: error });
  }
  return new RetriableError(message, { cause: error });
}

/** The {@link S3SourceClient} over an AWS SDK `S3Client` (which it destroys on `destroy`). */
export function sdkS3SourceClient(client: S3Client): S3SourceClient {
  return {
    async listPage(request) {
      try {
        const out = await client.send(
          new ListObjectsV2Command({
            Bucket: request.bucket,
            Prefix: request.prefix,
            ...(request.delimiter === undefined ? {} : { Delimiter: request.delimiter }),
            ...(request.continuationToken === undefined
              ? {}
              : { ContinuationToken: request.continuationToken }),
          }),
        );
        return {
          objects: (out.Contents ?? []).flatMap((o) =>
            o.Key === undefined
              ? []
              : [
                  {
                    key: o.Key,
                    size: o.Size ?? 0,
                    lastModified: o.LastModified?.getTime() ?? null,
                  },
                ],
          ),
          commonPrefixes: (out.CommonPrefixes ?? []).flatMap((p) =>
            p.Prefix === undefined ? [] : [p.Prefix],
          ),
          nextToken: out.IsTruncated === true ? (out.NextContinuationToken ?? null) : null,
        };
      } catch (error) {
        throw toConnectError(error, `Listing s3://${request.bucket}/${request.prefix}`);
      }
    },
    async getObject(bucket, key, signal) {
      try {
        const out = await client.send(
          new GetObjectCommand({ Bucket: bucket, Key: key }),
          signal === undefined ? {} : { abortSignal: signal },
        );
        if (out.Body === undefined) {
          return { body: new ReadableStream<Uint8Array>(), lastModified: null };
        }
        return {
          body: out.Body.transformToWebStream() as ReadableStream<Uint8Array>,
          lastModified: out.LastModified?.getTime() ?? null,
        };
      } catch (error) {
        if (error instanceof NoSuchKey) return null;
        throw toConnectError(error, `Reading s3://${bucket}/${key}`);
      }
    },
    destroy() {
      client.destroy();
    },
  };
}

/** Every page of a listing, concatenated. */
export async function listAll(
  client: S3SourceClient,
  request: Omit<ListRequest, 'continuationToken'>,
): Promise<{ objects: S3ObjectSummary[]; commonPrefixes: string[] }> {
  const objects: S3ObjectSummary[] = [];
  const commonPrefixes: string[] = [];
  let token: string | null = null;
  do {
    const page: ListPage = await client.listPage(
      token === null ? request : { ...request, continuationToken: token },
    );
    objects.push(...page.objects);
    commonPrefixes.push(...page.commonPrefixes);
    token = page.nextToken;
  } while (token !== null);
  return { objects, commonPrefixes };
}

/** How objects are compressed: `auto` means gzip when the key ends with `.gz`. */
export type FileCompression = 'none' | 'gzip' | 'auto';

/** The compression of `key` under the `file.compression` setting. */
export function compressionOf(key: string, setting: FileCompression): 'none' | 'gzip' {
  if (setting !== 'auto') return setting;
  return key.toLowerCase().endsWith('.gz') ? 'gzip' : 'none';
}

/** `body` decompressed when `compression` is gzip (multi-member gzip files included). */
export function decompress(
  body: ReadableStream<Uint8Array>,
  compression: 'none' | 'gzip',
): ReadableStream<Uint8Array> {
  if (compression === 'none') return body;
  return body.pipeThrough(new DecompressionStream('gzip'));
}

/** True for zlib's errors (`Z_DATA_ERROR`, `Z_BUF_ERROR`…): the bytes are not valid gzip. */
function isZlibError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('Z_');
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/**
 * Splits a byte stream into UTF-8 lines as it arrives.
 *
 * - Lines end with `\n` or `\r\n` (a terminator split across chunks is handled); a lone `\r`
 *   is kept as text. The terminator is not part of the line.
 * - A last line without a terminator is returned; a stream ending with a terminator has no
 *   extra empty last line. Empty lines in between are returned as `''` (the caller decides).
 * - A leading UTF-8 BOM is dropped; invalid UTF-8 becomes U+FFFD.
 * - Memory holds one chunk plus the current line, so a huge line is held whole.
 * - Stream errors reject {@link LineReader.next}: DataError when gzip data is invalid, the
 *   error as a {@link ConnectError} (see {@link toConnectError}) otherwise.
 *
 * @example
 * const lines = new LineReader(decompress(opened.body, 'gzip'));
 * for (let line = await lines.next(); line !== null; line = await lines.next()) use(line);
 */
export class LineReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder('utf-8');
  readonly #what: string;
  /** Complete lines not yet returned, from #index on. */
  #lines: string[] = [];
  #index = 0;
  /** Pieces of the current, unterminated line. */
  #partial: string[] = [];
  #done = false;
  #cancelled = false;

  /** `what` names the stream in error messages (e.g. `s3://bucket/key`). */
  constructor(stream: ReadableStream<Uint8Array>, what = 'stream') {
    this.#reader = stream.getReader();
    this.#what = what;
  }

  /**
   * The next line, or `null` at the end of the stream. Rejects with a ConnectError once
   * {@link LineReader.cancel} was called, so a cancelled stream is never taken for a complete one.
   */
  async next(): Promise<string | null> {
    while (this.#index >= this.#lines.length) {
      if (this.#cancelled) throw new ConnectError(`Reading ${this.#what} was cancelled`);
      if (this.#done) return null;
      await this.#fill();
    }
    const line = this.#lines[this.#index] ?? '';
    this.#index++;
    return line;
  }

  /** Stops reading and releases the stream (idempotent; never throws). */
  async cancel(): Promise<void> {
    this.#cancelled = true;
    this.#done = true;
    this.#lines = [];
    this.#index = 0;
    await this.#reader.cancel().catch(() => undefined);
  }

  async #fill(): Promise<void> {
    this.#lines = [];
    this.#index = 0;
    let chunk: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;
    try {
      chunk = await this.#reader.read();
    } catch (error) {
      this.#done = true;
      if (isZlibError(error)) {
        throw new DataError(`${this.#what} is not valid gzip data`, { cause: error });
      }
      throw toConnectError(error, `Reading ${this.#what}`);
    }
    if (this.#cancelled) return;
    if (chunk.done) {
      this.#done = true;
      this.#partial.push(this.#decoder.decode());
      const rest = this.#partial.join('');
      this.#partial = [];
      if (rest !== '') this.#lines.push(stripCr(rest));
      return;
    }
    this.#split(this.#decoder.decode(chunk.value, { stream: true }));
  }

  #split(text: string): void {
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      this.#partial.push(text.slice(start, nl));
      this.#lines.push(stripCr(this.#partial.join('')));
      this.#partial = [];
      start = nl + 1;
    }
    if (start < text.length) this.#partial.push(text.slice(start));
  }
}
