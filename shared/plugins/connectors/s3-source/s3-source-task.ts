/**
 * The S3 source task: lists the objects under its prefixes, reads each one line by line
 * (streaming, gzip-aware) and turns every line into a record, resuming after the committed
 * offsets.
 *
 * Source partition: `{"bucket": b, "key": k}`, one per object. Source offset after a record:
 * `{"position": n, "eof": e}`, where `n` is the number of lines of the object consumed so
 * far (the record's 1-based line number: empty and blank lines count) and `e` is true when no
 * further record follows in the object. Lines rather than bytes, because line numbers stay
 * meaningful for gzip objects and make resuming a matter of skipping `n` lines.
 *
 * Objects are assumed immutable once written (as the S3 sink writes them): a completed object
 * (`eof` true) is never read again, even if it is overwritten.
 */
import {
  DataError,
  Headers,
  Schemas,
  type SourcePartition,
  SourceRecord,
  SourceTask,
  type SourceTaskContext,
} from 'serverless-connect/connect';
import {
  compressionOf,
  decompress,
  LineReader,
  listAll,
  type S3ObjectSummary,
  type S3SourceClient,
} from './object-reader.js';
import {
  createS3SourceClient,
  parseS3SourceTaskConfig,
  S3_SOURCE_VERSION,
  type S3SourceConfig,
  type S3SourceTaskConfig,
} from './s3-source-config.js';
import {
  OFFSET_READ_CHUNK,
  parseS3SourceOffset,
  S3_BUCKET_HEADER,
  S3_KEY_HEADER,
  S3_LINE_HEADER,
  s3SourceOffset,
  s3SourcePartition,
} from './s3-source-offsets.js';

export * from './s3-source-offsets.js';

/** The time source (structurally the runtime's `Clock`): epoch milliseconds, never backwards. */
export interface S3SourceClock {
  now(): number;
}

/** What the S3 source connector and task are built from. */
export interface S3SourceDeps {
  /** Paces `s3.poll.interval.ms`. */
  readonly clock: S3SourceClock;
  /**
   * Builds the S3 client of a config (destroyed by the caller when done).
   * @default createS3SourceClient (the AWS SDK)
   */
  readonly createClient?: (config: S3SourceConfig) => S3SourceClient;
}

/** What the task knows of one listed object. */
interface Progress {
  /** Lines consumed (and covered by a returned record or skipped as malformed). */
  position: number;
  complete: boolean;
  lastModified: number | null;
}

interface Line {
  readonly text: string;
  /** 1-based physical line number. */
  readonly number: number;
}

/** The object being read. */
interface OpenObject {
  readonly key: string;
  readonly partition: SourcePartition;
  readonly lines: LineReader;
  readonly abort: AbortController;
  readonly timestamp: number | null;
  /** Physical lines read from the stream. */
  read: number;
  /** The next line to turn into a record (read ahead, to know `eof`), `null` at the end. */
  pending: Line | null;
}

interface Running {
  readonly config: S3SourceTaskConfig;
  readonly context: SourceTaskContext;
  readonly client: S3SourceClient;
}

function parseValue(config: S3SourceTaskConfig, key: string, line: Line): unknown {
  if (config.format === 'text') return line.text;
  try {
    return JSON.parse(line.text) as unknown;
  } catch (error) {
    throw new DataError(
      `Line ${line.number} of s3://${config.bucket}/${key} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * Reads the objects under the prefixes of its task config into records.
 *
 * - Listing: on the first poll and then at most every `s3.poll.interval.ms`, once the objects
 *   listed before are read, it lists every key under `task.prefixes` (recursively) and, with
 *   `task.root.objects`, the keys directly under `s3.prefix`; empty objects are ignored. The
 *   committed offsets of keys it has not seen yet are read then; objects whose offset says
 *   `eof` are skipped, the others are read in lexicographic key order, each resuming after
 *   its stored `position`. An object that ends with no new record (e.g. only blank lines
 *   remain) is remembered as complete until the task stops.
 * - Records: `topic`, no key, the line as the value (`text`: optional string schema;
 *   `jsonl`: the parsed JSON, schemaless, blank lines skipped), the object's LastModified as
 *   timestamp, headers `s3.bucket`, `s3.key`, `s3.line`.
 * - `poll` returns at most `batch.max.rows` records (possibly from several objects), or
 *   `null` when there is nothing new. A line that is not JSON fails the poll with DataError
 *   (after the records before it were returned); the line is then consumed, so a runtime that
 *   tolerates the error and polls again continues after it, while a failed task resumes at it.
 *   Invalid gzip data fails with DataError and the object is skipped until the task restarts.
 *   S3 and network failures fail with RetriableError; the object is reopened on the next poll.
 *
 * @example
 * const task = new S3SourceTask({ clock: { now: () => Date.now() } });
 * await task.start({ 's3.bucket.name': 'b', topic: 'lines' }, context);
 * const records = await task.poll();
 */
export class S3SourceTask extends SourceTask {
  readonly #deps: S3SourceDeps;
  #running: Running | null = null;
  readonly #progress = new Map<string, Progress>();
  #queue: string[] = [];
  #open: OpenObject | null = null;
  /** Aborts the GetObject in flight, if any. */
  #opening: AbortController | null = null;
  #lastListAt: number | null = null;
  #deferred: unknown = null;
  #stopped = false;

  constructor(deps: S3SourceDeps) {
    super();
    this.#deps = deps;
  }

  version(): string {
    return S3_SOURCE_VERSION;
  }

  /** Parses the task config (ConfigError when invalid) and creates the S3 client. */
  async start(props: Readonly<Record<string, string>>, context: SourceTaskContext): Promise<void> {
    const config = parseS3SourceTaskConfig(props);
    const createClient = this.#deps.createClient ?? createS3SourceClient;
    this.#running = { config, context, client: createClient(config) };
  }

  async poll(): Promise<SourceRecord[] | null> {
    const running = this.#running;
    if (running === null || this.#stopped) return null;
    if (this.#deferred !== null) {
      const error = this.#deferred;
      this.#deferred = null;
      throw error;
    }
    const records: SourceRecord[] = [];
    try {
      await this.#fill(running, records);
    } catch (error) {
      if (this.#stopped) return records.length === 0 ? null : records;
      if (records.length === 0) throw error;
      this.#deferred = error;
    }
    return records.length === 0 ? null : records;
  }

  /** Stops reading: cancels the open object and releases the S3 client. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#opening?.abort();
    const open = this.#open;
    this.#open = null;
    if (open !== null) await this.#close(open);
    this.#running?.client.destroy();
  }

  /** Appends records to `records` until the batch is full or nothing is left to read now. */
  async #fill(running: Running, records: SourceRecord[]): Promise<void> {
    while (records.length < running.config.batchMaxRows && !this.#stopped) {
      const open = this.#open ?? (await this.#openNext(running, records.length === 0));
      if (open === null) return;
      const line = open.pending;
      const progress = this.#progressOf(open.key);
      if (line === null) {
        progress.complete = true;
        this.#open = null;
        await this.#close(open);
        continue;
      }
      let value: unknown;
      try {
        value = parseValue(running.config, open.key, line);
      } catch (error) {
        progress.position = line.number;
        // A stream failure here is handled by #advance (the object is reopened or skipped).
        await this.#advance(running, open).catch(() => undefined);
        throw error;
      }
      await this.#advance(running, open);
      records.push(this.#record(running, open, line, value));
      progress.position = line.number;
    }
  }

  #record(running: Running, open: OpenObject, line: Line, value: unknown): SourceRecord {
    const { bucket, topic, format } = running.config;
    const headers = new Headers()
      .add(S3_BUCKET_HEADER, bucket, Schemas.STRING)
      .add(S3_KEY_HEADER, open.key, Schemas.STRING)
      .add(S3_LINE_HEADER, String(line.number), Schemas.STRING);
    return new SourceRecord({
      sourcePartition: open.partition,
      sourceOffset: s3SourceOffset(line.number, open.pending === null),
      topic,
      valueSchema: format === 'text' ? Schemas.OPTIONAL_STRING : null,
      value,
      timestamp: open.timestamp,
      headers,
    });
  }

  #progressOf(key: string): Progress {
    let progress = this.#progress.get(key);
    if (progress === undefined) {
      progress = { position: 0, complete: false, lastModified: null };
      this.#progress.set(key, progress);
    }
    return progress;
  }

  #listDue(running: Running): boolean {
    return (
      this.#lastListAt === null ||
      this.#deps.clock.now() - this.#lastListAt >= running.config.pollIntervalMs
    );
  }

  /** Opens the next queued object (listing first when the queue is empty and a listing is due). */
  async #openNext(running: Running, mayList: boolean): Promise<OpenObject | null> {
    while (!this.#stopped) {
      let key = this.#queue.shift();
      if (key === undefined) {
        if (!mayList || !this.#listDue(running)) return null;
        await this.#list(running);
        mayList = false;
        key = this.#queue.shift();
        if (key === undefined) return null;
      }
      const open = await this.#openObject(running, key);
      if (open !== null) return open;
    }
    return null;
  }

  /** Opens `key` positioned after its consumed lines; `null` when it no longer exists. */
  async #openObject(running: Running, key: string): Promise<OpenObject | null> {
    const { bucket, compression } = running.config;
    const progress = this.#progressOf(key);
    const abort = new AbortController();
    let opened: Awaited<ReturnType<S3SourceClient['getObject']>>;
    this.#opening = abort;
    try {
      opened = await running.client.getObject(bucket, key, abort.signal);
    } catch (error) {
      this.#queue.unshift(key);
      throw error;
    } finally {
      this.#opening = null;
    }
    if (this.#stopped) {
      await opened?.body.cancel().catch(() => undefined);
      return null;
    }
    if (opened === null) {
      progress.complete = true;
      return null;
    }
    const open: OpenObject = {
      key,
      partition: s3SourcePartition(bucket, key),
      lines: new LineReader(
        decompress(opened.body, compressionOf(key, compression)),
        `s3://${bucket}/${key}`,
      ),
      abort,
      timestamp: opened.lastModified ?? progress.lastModified,
      read: 0,
      pending: null,
    };
    this.#open = open;
    await this.#advance(running, open, progress.position);
    return open;
  }

  /**
   * Skips to line `skipTo`, then reads the next line to emit into `open.pending` (`null` at
   * the end). On a failure the object is closed and either queued again (retriable) or, for
   * invalid data, remembered as complete; then the error is rethrown.
   */
  async #advance(running: Running, open: OpenObject, skipTo = 0): Promise<void> {
    try {
      while (open.read < skipTo) {
        if ((await open.lines.next()) === null) break;
        open.read++;
      }
      open.pending = null;
      for (let text = await open.lines.next(); text !== null; text = await open.lines.next()) {
        open.read++;
        if (running.config.format === 'jsonl' && text.trim() === '') continue;
        open.pending = { text, number: open.read };
        break;
      }
    } catch (error) {
      if (this.#open === open) this.#open = null;
      await this.#close(open);
      if (error instanceof DataError) this.#progressOf(open.key).complete = true;
      else if (!this.#stopped) this.#queue.unshift(open.key);
      throw error;
    }
  }

  async #close(open: OpenObject): Promise<void> {
    open.abort.abort();
    await open.lines.cancel();
  }

  /** Lists the task's objects, reads the offsets of new ones and queues the incomplete ones. */
  async #list(running: Running): Promise<void> {
    const { client, config, context } = running;
    this.#lastListAt = this.#deps.clock.now();
    const listed = new Map<string, S3ObjectSummary>();
    const add = (objects: readonly S3ObjectSummary[]) => {
      for (const o of objects) if (o.size > 0) listed.set(o.key, o);
    };
    for (const prefix of config.prefixes) {
      add((await listAll(client, { bucket: config.bucket, prefix })).objects);
    }
    if (config.rootObjects) {
      const root = { bucket: config.bucket, prefix: config.prefix, delimiter: '/' };
      add((await listAll(client, root)).objects);
    }
    const unseen = [...listed.keys()].filter((key) => !this.#progress.has(key));
    for (let i = 0; i < unseen.length; i += OFFSET_READ_CHUNK) {
      const chunk = unseen.slice(i, i + OFFSET_READ_CHUNK);
      const stored = await context.offsetStorageReader.offsets(
        chunk.map((key) => s3SourcePartition(config.bucket, key)),
      );
      chunk.forEach((key, j) => {
        const offset = parseS3SourceOffset(stored[j]?.offset ?? null);
        this.#progress.set(key, {
          position: offset.position,
          complete: offset.eof,
          lastModified: listed.get(key)?.lastModified ?? null,
        });
      });
    }
    this.#queue = [...listed.keys()]
      .filter((key) => this.#progress.get(key)?.complete !== true)
      .sort();
  }
}
