/**
 * Object keys of the S3 sink: deterministic functions of a record's Kafka coordinates and its
 * encoded partition, so that every replay of the same records addresses the same objects.
 *
 * `<topics.dir>/<topic>/<encodedPartition>/<topic>+<kafkaPartition>+<bucketStart>.<ext>`, where
 * the bucket of offset `o` is `floor(o / flush.size)` and `bucketStart` its first offset,
 * zero-padded to 20 digits so that keys sort by offset.
 */

/** Digits of the start offset in file names (any 64-bit offset fits). */
export const OFFSET_DIGITS = 20;

/** The first offset of the bucket holding `offset`. */
export function bucketStart(offset: number, flushSize: number): number {
  return Math.floor(offset / flushSize) * flushSize;
}

/** `offset` left-padded with zeros to {@link OFFSET_DIGITS} digits. */
export function padOffset(offset: number): string {
  return String(offset).padStart(OFFSET_DIGITS, '0');
}

/** `topics.dir` without leading or trailing slashes (`''` for the bucket root). */
export function normalizeTopicsDir(topicsDir: string): string {
  return topicsDir.replace(/^\/+|\/+$/g, '');
}

/** What an object key is made of. */
export interface ObjectCoordinates {
  /** `topics.dir`, normalized. */
  readonly topicsDir: string;
  /** The record's topic (after transformations): the directory. */
  readonly directoryTopic: string;
  readonly encodedPartition: string;
  /** The topic and partition the records were consumed from: the file name. */
  readonly topic: string;
  readonly kafkaPartition: number;
  readonly bucketStart: number;
  /** The extension with its dot, compression included (`.json.gz`). */
  readonly extension: string;
}

/** The object key of `c`. */
export function objectKey(c: ObjectCoordinates): string {
  const directory = objectDirectory(c);
  const file = objectFileName(c.topic, c.kafkaPartition, c.bucketStart, c.extension);
  return directory === '' ? file : `${directory}/${file}`;
}

/** The directory of the objects of `c`: `<topics.dir>/<topic>/<encodedPartition>`. */
export function objectDirectory(
  c: Pick<ObjectCoordinates, 'topicsDir' | 'directoryTopic' | 'encodedPartition'>,
): string {
  return [c.topicsDir, c.directoryTopic, c.encodedPartition].filter((s) => s !== '').join('/');
}

/** The file name of the object of `topic`'s `kafkaPartition` starting at `start`. */
export function objectFileName(
  topic: string,
  kafkaPartition: number,
  start: number,
  extension: string,
): string {
  return `${topic}+${kafkaPartition}+${padOffset(start)}${extension}`;
}

/**
 * Where the records of a bucket that is not complete yet wait (`s3.write.mode=once`): the
 * staging directory (`_staging` by default: outside `topics.dir`, and ignored by Hive, Athena
 * and Spark since it starts with `_`), then `<topic>+<kafkaPartition>/` (one prefix per Kafka
 * partition, so that one listing finds its staged objects whatever their encoded partition),
 * then the final key.
 *
 * @example
 * stagingKey('_staging', 'orders', 3, 'topics/orders/partition=3/orders+3+00000000000000002000.json')
 * // '_staging/orders+3/topics/orders/partition=3/orders+3+00000000000000002000.json'
 */
export function stagingKey(
  stagingDir: string,
  topic: string,
  kafkaPartition: number,
  finalKey: string,
): string {
  return `${stagingPrefix(stagingDir, topic, kafkaPartition)}${finalKey}`;
}

/** The prefix of every staging key of one Kafka partition (see {@link stagingKey}). */
export function stagingPrefix(stagingDir: string, topic: string, kafkaPartition: number): string {
  return `${stagingDir}/${topic}+${kafkaPartition}/`;
}

/** A staged object of one Kafka partition, as listed. */
export interface StagedKey {
  readonly stagingKey: string;
  readonly finalKey: string;
  readonly bucketStart: number;
}

/**
 * The final key and bucket of `key`, listed under `stagingPrefix(stagingDir, topic,
 * kafkaPartition)`, when it is a staging key of that Kafka partition under `topicsDir` with
 * `extension`; null otherwise (another connector's, or not the sink's).
 */
export function parseStagingKey(
  key: string,
  prefix: string,
  c: Pick<ObjectCoordinates, 'topicsDir' | 'topic' | 'kafkaPartition' | 'extension'>,
): StagedKey | null {
  if (!key.startsWith(prefix)) return null;
  const finalKey = key.slice(prefix.length);
  if (c.topicsDir !== '' && !finalKey.startsWith(`${c.topicsDir}/`)) return null;
  const file = finalKey.slice(finalKey.lastIndexOf('/') + 1);
  const head = `${c.topic}+${c.kafkaPartition}+`;
  const digits = file.slice(head.length, head.length + OFFSET_DIGITS);
  if (!file.startsWith(head) || !/^\d+$/.test(digits) || digits.length !== OFFSET_DIGITS) {
    return null;
  }
  if (file.slice(head.length + OFFSET_DIGITS) !== c.extension) return null;
  const start = Number(digits);
  return Number.isSafeInteger(start) ? { stagingKey: key, finalKey, bucketStart: start } : null;
}
