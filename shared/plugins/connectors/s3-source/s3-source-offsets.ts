/**
 * The S3 source's partitions, offsets and headers: partition `{"bucket": b, "key": k}` (one per
 * object), offset `{"position": n, "eof": e}` (lines consumed, and whether the object is done).
 */
import { DataError, type SourceOffset, type SourcePartition } from 'serverless-connect/connect';

/** The source partition keys: `{"bucket": "b", "key": "k"}`. */
export const S3_BUCKET_PARTITION_KEY = 'bucket';
export const S3_KEY_PARTITION_KEY = 'key';
/** The source offset keys: `{"position": 42, "eof": false}`. */
export const S3_POSITION_OFFSET_KEY = 'position';
export const S3_EOF_OFFSET_KEY = 'eof';
/** Headers on every record (string schema). */
export const S3_BUCKET_HEADER = 's3.bucket';
export const S3_KEY_HEADER = 's3.key';
export const S3_LINE_HEADER = 's3.line';
/** How many source partitions one offset read asks for. */
export const OFFSET_READ_CHUNK = 100;

/** A parsed source partition. */
export interface S3ObjectRef {
  readonly bucket: string;
  readonly key: string;
}

/** A parsed source offset: lines consumed, and whether the object is complete. */
export interface S3ObjectOffset {
  readonly position: number;
  readonly eof: boolean;
}

/** The source partition of object `key` in `bucket`. */
export function s3SourcePartition(bucket: string, key: string): SourcePartition {
  return { [S3_BUCKET_PARTITION_KEY]: bucket, [S3_KEY_PARTITION_KEY]: key };
}

/** The source offset after line `position`. */
export function s3SourceOffset(position: number, eof: boolean): SourceOffset {
  return { [S3_POSITION_OFFSET_KEY]: position, [S3_EOF_OFFSET_KEY]: eof };
}

/** The object of a source partition. Throws DataError when it is not an S3 source partition. */
export function parseS3SourcePartition(partition: SourcePartition): S3ObjectRef {
  const bucket = partition[S3_BUCKET_PARTITION_KEY];
  const key = partition[S3_KEY_PARTITION_KEY];
  if (typeof bucket !== 'string' || bucket === '' || typeof key !== 'string' || key === '') {
    throw new DataError(
      `Invalid S3 source partition: expected {"${S3_BUCKET_PARTITION_KEY}": <string>, "${S3_KEY_PARTITION_KEY}": <string>}, got ${JSON.stringify(partition)}`,
    );
  }
  return { bucket, key };
}

function toPosition(value: unknown): number | null {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'bigint') n = Number(value);
  else if (typeof value === 'string' && /^\d+$/.test(value)) n = Number(value);
  else return null;
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

function toEof(value: unknown): boolean | null {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  return null;
}

/**
 * A stored offset (`{position: 0, eof: false}` when none). A missing `eof` means false.
 * Throws DataError when malformed.
 */
export function parseS3SourceOffset(offset: SourceOffset | null): S3ObjectOffset {
  if (offset === null) return { position: 0, eof: false };
  const position = toPosition(offset[S3_POSITION_OFFSET_KEY]);
  const eof = toEof(offset[S3_EOF_OFFSET_KEY]);
  if (position === null || eof === null) {
    throw new DataError(
      `Invalid S3 source offset: expected {"${S3_POSITION_OFFSET_KEY}": <integer ≥ 0>, "${S3_EOF_OFFSET_KEY}": <boolean>}, got ${JSON.stringify(offset)}`,
    );
  }
  return { position, eof };
}
