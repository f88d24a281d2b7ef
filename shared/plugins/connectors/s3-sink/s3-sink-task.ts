/**
 * The S3 sink task: encodes each batch's records, groups them by object, and writes every
 * touched object when the batch is committed. See `README.md` beside this file for the
 * exactly-once object layout.
 */
import {
  type ConnectError,
  DataError,
  IllegalStateError,
  parseTopicPartitionKey,
  type SinkRecord,
  SinkTask,
  type SinkTaskContext,
  type TopicPartition,
  type TopicPartitionOffsets,
  topicPartitionKey,
} from 'serverless-connect/connect';
import { type BatchObject, completeBelow, needsListing, planCommit } from './commit-plan.js';
import {
  bucketStart,
  objectKey,
  parseStagingKey,
  type StagedKey,
  stagingKey,
  stagingPrefix,
} from './object-naming.js';
import { sealObject } from './object-sealer.js';
import {
  KnownObjects,
  type ObjectWriterSettings,
  type PendingEntry,
  type WriteOutcome,
  writeObject,
} from './object-writer.js';
import { createPartitioner, type Partitioner, type WallClock } from './partitioners.js';
import {
  ByteArrayRecordFormat,
  encodeRecord,
  JsonRecordFormat,
  type RecordFormat,
} from './record-format.js';
import type { S3SinkClient } from './s3-sink-client.js';
import {
  createS3SinkClient,
  parseS3SinkConfig,
  S3_SINK_VERSION,
  type S3SinkConfig,
} from './s3-sink-config.js';

/** What the S3 sink connector and task are built from. */
export interface S3SinkDeps {
  /** The time source of the `Wallclock` timestamp extractor. */
  readonly clock: WallClock;
  /**
   * Builds the S3 client of a config (destroyed by the task on `stop`).
   * @default createS3SinkClient (the AWS SDK)
   */
  readonly createClient?: (config: S3SinkConfig) => S3SinkClient;
  /**
   * Internal, for tests: the multipart threshold and part size in bytes, overriding
   * `s3.part.size` (which cannot go below S3's 5 MiB). Not a user config.
   */
  readonly partSize?: number;
  /** Internal: how many objects are written at once. @default 4 */
  readonly writeConcurrency?: number;
}

/** An object being assembled from the current batch. */
interface PendingBuild extends BatchObject {
  readonly entries: PendingEntry[];
}

interface Running {
  readonly config: S3SinkConfig;
  readonly context: SinkTaskContext;
  readonly client: S3SinkClient;
  readonly format: RecordFormat;
  readonly partitioner: Partitioner;
  readonly extension: string;
  readonly settings: ObjectWriterSettings;
}

function formatOf(config: S3SinkConfig): RecordFormat {
  return config.format === 'json'
    ? new JsonRecordFormat(config.jsonDecimalFormat)
    : new ByteArrayRecordFormat(config.byteArrayExtension, config.byteArraySeparator);
}

function contentTypeOf(config: S3SinkConfig): string {
  if (config.compression === 'gzip') return 'application/gzip';
  return config.format === 'json' ? 'application/x-ndjson' : 'application/octet-stream';
}

/** Runs `work` over `items`, at most `limit` at a time; rejects with the worst failure. */
async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const worker = async () => {
    while (next < items.length && failures.length === 0) {
      const item = items[next++] as T;
      await work(item).catch((error: unknown) => {
        failures.push(error);
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  // A non-retriable failure (access denied) wins over a retriable one: the task must fail.
  const fatal = failures.find((e) => !(e as Partial<ConnectError>).retriable);
  if (failures.length > 0) throw fatal ?? failures[0];
}

/**
 * Writes records to S3 objects named by Kafka coordinates, exactly once under redelivery.
 *
 * - `put` encodes each record (format, then partitioner) and files it under its object key
 *   (see `object-naming.ts`). A record that cannot be encoded (DataError) goes to
 *   `context.errantRecordReporter`, or fails the batch when there is none. Nothing is written
 *   yet, and nothing is kept beyond the batch: records at or below an offset already buffered
 *   for their partition replace the buffered tail (a redelivery into a warm task).
 * - `preCommit` writes every object the batch touched (with conditional writes and no read: a
 *   key this task has not seen exist is created under `If-None-Match: *`, an object it wrote
 *   itself is appended to from the bytes it wrote under `If-Match`; otherwise, or when S3
 *   refuses that write, read its `last-offset`, append the records above it, write it back;
 *   see `object-writer.ts`), then returns `currentOffsets`;
 *   it throws instead when any write failed (RetriableError for throttling, 5xx, network and
 *   lost races; ConnectError for access denied or a missing bucket), so offsets are returned
 *   only for data durably written. The buffered records stay until a preCommit succeeds, so
 *   a retried preCommit rewrites them (idempotently).
 * - Object keys and contents depend only on the records (with the Record and RecordField
 *   timestamp extractors), so any replay with any batch boundaries, after a crash anywhere,
 *   converges to the objects of a single clean pass, each record exactly once.
 *
 * @example
 * const task = new S3SinkTask({ clock: { now: () => Date.now() } });
 * await task.start({ 's3.bucket.name': 'b', 'flush.size': '1000', 'format.class': 'json' }, ctx);
 * await task.put(records);
 * const durable = await task.preCommit(currentOffsets);
 */
export class S3SinkTask extends SinkTask {
  readonly #deps: S3SinkDeps;
  #running: Running | null = null;
  /** Pending objects by source partition key, then by object key. */
  readonly #pending = new Map<string, Map<string, PendingBuild>>();
  /** The last offset buffered per source partition key. */
  readonly #lastOffsets = new Map<string, number>();
  /** The first offset buffered per source partition key (since the last successful flush). */
  readonly #firstOffsets = new Map<string, number>();
  /** `s3.write.mode=once`: per source partition key, below which offset this task sealed every bucket. */
  readonly #sealedBelow = new Map<string, number>();
  /** Keys this task instance created or read as existing, and the objects it wrote. */
  #known = new KnownObjects();

  constructor(deps: S3SinkDeps) {
    super();
    this.#deps = deps;
  }

  version(): string {
    return S3_SINK_VERSION;
  }

  /** Parses the task config (ConfigError when invalid) and creates the S3 client. */
  async start(props: Readonly<Record<string, string>>, context: SinkTaskContext): Promise<void> {
    const config = parseS3SinkConfig(props);
    const format = formatOf(config);
    const partitioner = createPartitioner(config.partitioner, this.#deps.clock);
    const client = (this.#deps.createClient ?? createS3SinkClient)(config);
    this.#running?.client.destroy();
    this.#clear();
    this.#sealedBelow.clear();
    this.#known = new KnownObjects();
    this.#running = {
      config,
      context,
      client,
      format,
      partitioner,
      extension: format.extension + (config.compression === 'gzip' ? '.gz' : ''),
      settings: {
        bucket: config.bucket,
        compression: config.compression,
        contentType: contentTypeOf(config),
        partSize: this.#deps.partSize ?? config.partSize,
        conditionalWrites: config.conditionalWrites,
      },
    };
  }

  async put(records: readonly SinkRecord[]): Promise<void> {
    const running = this.#requireRunning();
    const reports: Promise<void>[] = [];
    for (const record of records) {
      const tp = topicPartitionKey({
        topic: record.originalTopic,
        partition: record.originalKafkaPartition,
      });
      const offset = record.originalKafkaOffset;
      const last = this.#lastOffsets.get(tp);
      if (last !== undefined && offset <= last) this.#rewind(tp, offset);
      this.#lastOffsets.set(tp, offset);
      const first = this.#firstOffsets.get(tp);
      if (first === undefined || offset < first) this.#firstOffsets.set(tp, offset);
      let key: string;
      let bytes: Uint8Array | null;
      try {
        bytes = encodeRecord(running.format, record, running.config.nullValues);
        if (bytes === null) continue;
        key = this.#keyOf(running, record);
      } catch (error) {
        const reporter = running.context.errantRecordReporter;
        if (!(error instanceof DataError) || reporter === null) throw error;
        reports.push(reporter.report(record, error));
        continue;
      }
      let objects = this.#pending.get(tp);
      if (objects === undefined) {
        objects = new Map();
        this.#pending.set(tp, objects);
      }
      let pending = objects.get(key);
      if (pending === undefined) {
        const topic = record.originalTopic;
        const partition = record.originalKafkaPartition;
        pending = {
          key,
          stagingKey: stagingKey(running.config.stagingDir, topic, partition, key),
          bucketStart: bucketStart(offset, running.config.flushSize),
          entries: [],
        };
        objects.set(key, pending);
      }
      pending.entries.push({ offset, bytes });
    }
    await Promise.all(reports);
  }

  /**
   * Writes every pending object; the buffer is cleared only when all writes succeeded. With
   * `s3.write.mode=once`, objects of complete buckets are sealed and the others staged (see
   * `commit-plan.ts`); with `progressive` every object is written where it ends up.
   */
  override async flush(currentOffsets: TopicPartitionOffsets): Promise<void> {
    const running = this.#requireRunning();
    const concurrency = this.#deps.writeConcurrency ?? 4;
    if (running.config.writeMode === 'progressive') {
      const objects = [...this.#pending.values()].flatMap((byKey) => [...byKey.values()]);
      await forEachLimited(
        objects,
        concurrency,
        (pending): Promise<WriteOutcome> =>
          writeObject(running.client, running.settings, pending, this.#known),
      );
    } else {
      await this.#commitOnce(running, currentOffsets, concurrency);
    }
    this.#clear();
  }

  /** Seals the objects of complete buckets, stages the others (`s3.write.mode=once`). */
  async #commitOnce(
    running: Running,
    currentOffsets: TopicPartitionOffsets,
    concurrency: number,
  ): Promise<void> {
    const { config, client, settings } = running;
    const tps = [...new Set([...this.#lastOffsets.keys(), ...currentOffsets.keys()])];
    const plans: { tp: string; plan: ReturnType<typeof planCommit> }[] = [];
    await forEachLimited(tps, concurrency, async (tp) => {
      const last = this.#lastOffsets.get(tp);
      const next = Math.max(currentOffsets.get(tp) ?? 0, last === undefined ? 0 : last + 1);
      const below = completeBelow(next, config.flushSize);
      const listed = needsListing(below, this.#sealedBelow.get(tp))
        ? await this.#listStaged(running, tp)
        : [];
      const objects = [...(this.#pending.get(tp)?.values() ?? [])];
      const batch = { firstOffset: this.#firstOffsets.get(tp) ?? next, nextOffset: next, objects };
      plans.push({ tp, plan: planCommit(batch, config.flushSize, listed) });
    });
    const writes = plans.flatMap(({ plan }) => [
      ...plan.seal.map((request) => () => sealObject(client, settings, request, this.#known)),
      ...plan.stage.map((pending) => () => writeObject(client, settings, pending, this.#known)),
    ]);
    await forEachLimited(writes, concurrency, (write) => write());
    for (const { tp, plan } of plans) {
      this.#sealedBelow.set(tp, Math.max(plan.completeBelow, this.#sealedBelow.get(tp) ?? 0));
    }
  }

  /** The staged objects of source partition `tp` (this connector's `topics.dir` and format). */
  async #listStaged(running: Running, tp: string): Promise<StagedKey[]> {
    const { config } = running;
    const { topic, partition } = parseTopicPartitionKey(tp);
    const prefix = stagingPrefix(config.stagingDir, topic, partition);
    const under = config.topicsDir === '' ? prefix : `${prefix}${config.topicsDir}/`;
    const keys = await running.client.listKeys(config.bucket, under);
    const c = { topicsDir: config.topicsDir, topic, kafkaPartition: partition };
    return keys.flatMap((key) => {
      const staged = parseStagingKey(key, prefix, { ...c, extension: running.extension });
      return staged === null ? [] : [staged];
    });
  }

  /** Flushes, then returns `currentOffsets`: everything put so far is durable in S3. */
  override async preCommit(currentOffsets: TopicPartitionOffsets): Promise<TopicPartitionOffsets> {
    await this.flush(currentOffsets);
    return currentOffsets;
  }

  /** Drops what is buffered for `partitions` (the runtime redelivers what it did not commit). */
  override async close(partitions: readonly TopicPartition[]): Promise<void> {
    for (const tp of partitions) {
      const key = topicPartitionKey(tp);
      this.#pending.delete(key);
      this.#lastOffsets.delete(key);
      this.#firstOffsets.delete(key);
      this.#sealedBelow.delete(key);
    }
  }

  async stop(): Promise<void> {
    this.#clear();
    this.#running?.client.destroy();
    this.#running = null;
  }

  #requireRunning(): Running {
    if (this.#running === null) throw new IllegalStateError('The S3 sink task is not started');
    return this.#running;
  }

  #clear(): void {
    this.#pending.clear();
    this.#lastOffsets.clear();
    this.#firstOffsets.clear();
  }

  /** Forgets the buffered records of `tp` at or above `offset`. */
  #rewind(tp: string, offset: number): void {
    const objects = this.#pending.get(tp);
    if (objects === undefined) return;
    for (const [key, pending] of objects) {
      const kept = pending.entries.filter((e) => e.offset < offset);
      if (kept.length === 0) objects.delete(key);
      else pending.entries.splice(0, pending.entries.length, ...kept);
    }
  }

  #keyOf(running: Running, record: SinkRecord): string {
    const { config } = running;
    return objectKey({
      topicsDir: config.topicsDir,
      directoryTopic: record.topic,
      encodedPartition: running.partitioner.encodePartition(record),
      topic: record.originalTopic,
      kafkaPartition: record.originalKafkaPartition,
      bucketStart: bucketStart(record.originalKafkaOffset, config.flushSize),
      extension: running.extension,
    });
  }
}
