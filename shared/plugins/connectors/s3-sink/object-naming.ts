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
  const file = `${c.topic}+${c.kafkaPartition}+${padOffset(c.bucketStart)}${c.extension}`;
  return [c.topicsDir, c.directoryTopic, c.encodedPartition, file]
    .filter((s) => s !== '')
    .join('/');
}
