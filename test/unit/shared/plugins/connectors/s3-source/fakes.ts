import type {
  OffsetStorageReader,
  SourceTaskContext,
} from '../../../../../../shared/connect/context.js';
import type { SourceOffset, SourceRecord } from '../../../../../../shared/connect/records.js';
import type {
  ListPage,
  ListRequest,
  OpenedObject,
  S3SourceClient,
} from '../../../../../../shared/plugins/connectors/s3-source/object-reader.js';

/** A clock the test moves by hand. */
export class FakeClock {
  constructor(public time = 1_000_000) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

const encoder = new TextEncoder();

/** A stream of `bytes` cut into chunks of `chunkSize`, erroring once `failAt` bytes are sent. */
export function chunkedStream(
  bytes: Uint8Array,
  chunkSize: number,
  failAt = Number.POSITIVE_INFINITY,
): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= failAt) {
        controller.error(new Error('socket hang up'));
        return;
      }
      if (at >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(at, at + chunkSize));
      at += chunkSize;
    },
  });
}

/** `text` gzip-compressed with the web-standard CompressionStream. */
export async function gzip(text: string): Promise<Uint8Array> {
  const stream = new Blob([encoder.encode(text)])
    .stream()
    .pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

interface StoredObject {
  readonly bytes: Uint8Array;
  readonly lastModified: number;
}

/**
 * An in-memory S3 bucket behind {@link S3SourceClient}: lexicographic listings with
 * delimiters and pages of `pageSize`, bodies streamed in `chunkSize` chunks, and failures to
 * inject.
 */
export class FakeS3 implements S3SourceClient {
  readonly objects = new Map<string, StoredObject>();
  readonly gets: string[] = [];
  lists = 0;
  destroyed = false;
  /** Rejects the next getObject calls with these errors, in order. */
  readonly getFailures: Error[] = [];
  /** When set, getObject waits for it, or rejects when its signal aborts. */
  hold: Promise<void> | null = null;
  /** The next body of a key errors after this many bytes (once). */
  readonly bodyFailures = new Map<string, number>();

  constructor(
    readonly bucket = 'bucket',
    readonly pageSize = 1000,
    readonly chunkSize = 7,
  ) {}

  put(key: string, body: string | Uint8Array, lastModified = 1_700_000_000_000): this {
    const bytes = typeof body === 'string' ? encoder.encode(body) : body;
    this.objects.set(key, { bytes, lastModified });
    return this;
  }

  async listPage(request: ListRequest): Promise<ListPage> {
    this.lists++;
    if (request.bucket !== this.bucket) throw new Error(`NoSuchBucket ${request.bucket}`);
    const keys = [...this.objects.keys()].filter((k) => k.startsWith(request.prefix)).sort();
    const entries: { key: string; prefix: boolean }[] = [];
    for (const key of keys) {
      const rest = key.slice(request.prefix.length);
      const at = request.delimiter === undefined ? -1 : rest.indexOf(request.delimiter);
      if (at === -1) entries.push({ key, prefix: false });
      else {
        const common = request.prefix + rest.slice(0, at + 1);
        if (entries[entries.length - 1]?.key !== common)
          entries.push({ key: common, prefix: true });
      }
    }
    const start = Number(request.continuationToken ?? '0');
    const page = entries.slice(start, start + this.pageSize);
    const next = start + this.pageSize;
    return {
      objects: page
        .filter((e) => !e.prefix)
        .map((e) => {
          const o = this.objects.get(e.key);
          return { key: e.key, size: o?.bytes.length ?? 0, lastModified: o?.lastModified ?? null };
        }),
      commonPrefixes: page.filter((e) => e.prefix).map((e) => e.key),
      nextToken: next < entries.length ? String(next) : null,
    };
  }

  async getObject(bucket: string, key: string, signal?: AbortSignal): Promise<OpenedObject | null> {
    this.gets.push(key);
    if (this.hold !== null) {
      const aborted = new Promise<never>((_, reject) =>
        signal?.addEventListener('abort', () => reject(new Error('aborted'))),
      );
      await Promise.race([this.hold, aborted]);
    }
    const failure = this.getFailures.shift();
    if (failure !== undefined) throw failure;
    const o = bucket === this.bucket ? this.objects.get(key) : undefined;
    if (o === undefined) return null;
    const failAt = this.bodyFailures.get(key);
    this.bodyFailures.delete(key);
    return { body: chunkedStream(o.bytes, this.chunkSize, failAt), lastModified: o.lastModified };
  }

  destroy(): void {
    this.destroyed = true;
  }
}

/** An offset reader over stored offsets keyed by object key (any bucket). */
export function offsetReader(stored: ReadonlyMap<string, SourceOffset>): OffsetStorageReader {
  const offsetOf = (partition: Readonly<Record<string, unknown>>) =>
    stored.get(String(partition.key)) ?? null;
  return {
    offset: async (partition) => offsetOf(partition),
    offsets: async (partitions) =>
      partitions.map((partition) => ({ partition, offset: offsetOf(partition) })),
  };
}

export function taskContext(
  props: Readonly<Record<string, string>>,
  stored: ReadonlyMap<string, SourceOffset> = new Map(),
): SourceTaskContext {
  return {
    configs: () => props,
    offsetStorageReader: offsetReader(stored),
    transactionContext: null,
    pluginMetrics: () => ({ gauge: () => {} }),
  };
}

/** The latest offset per object key of `records`, as a runtime would have committed them. */
export function committed(records: readonly SourceRecord[]): Map<string, SourceOffset> {
  const offsets = new Map<string, SourceOffset>();
  for (const r of records) {
    if (r.sourcePartition !== null && r.sourceOffset !== null) {
      offsets.set(String(r.sourcePartition.key), r.sourceOffset);
    }
  }
  return offsets;
}

/** `key:line=value` of each record, for order checks. */
export function lines(records: readonly SourceRecord[] | null): string[] {
  return (records ?? []).map(
    (r) =>
      `${String(r.sourcePartition?.key)}:${String(r.headers.lastWithName('s3.line')?.value)}=${JSON.stringify(r.value)}`,
  );
}
