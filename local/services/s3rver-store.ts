/**
 * s3rver's filesystem store with writes that a killed process cannot tear.
 *
 * s3rver keeps an object as three files: `<name>._S3rver_object` (the bytes),
 * `<name>._S3rver_object.md5` (the ETag) and `<name>._S3rver_metadata.json` (content headers and
 * `x-amz-meta-*`), and writes them in place one after the other. `npm start` runs s3rver inside
 * its own process, so a SIGKILL (or a crash) in the middle of a write left a truncated object
 * under the old metadata (records silently gone, or appended twice by the next write), new bytes
 * under the old metadata, or an empty metadata file that made every GET, HEAD and conditional
 * PUT of the key answer 500 until someone removed the files.
 *
 * Here a write first puts its target (bucket and key) and then all three files, complete, into a
 * pending folder of its own (`<bucket>/._S3rver_pending/<id>/`, beside s3rver's
 * `._S3rver_uploads`), then renames the object's bytes into place (the commit point: a rename
 * within a file system is atomic), then its MD5 and its metadata, and empties and removes the
 * folder. {@link settlePendingWrites}, run at start-up before s3rver serves, finishes what a
 * killed process left: a pending folder still holding the object's bytes, or only the target,
 * was cut before the commit point and is discarded (the key keeps its previous version); one
 * holding the MD5 or the metadata without the bytes was committed and gets them moved into
 * place. Atomic against a killed process, not against a power loss (no fsync).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import S3Object from 's3rver/lib/models/object.js';
import FilesystemStore from 's3rver/lib/stores/filesystem.js';

/** s3rver's resource name of the pending folder: `<bucket>/._S3rver_pending/`. */
const PENDING = 'pending';
/** Files of one pending write, in the order they are written. */
const TARGET_FILE = 'target.json';
const OBJECT_FILE = 'object';
const MD5_FILE = 'object.md5';
const METADATA_FILE = 'metadata.json';

/** The three files of one stored object. */
interface ObjectFiles {
  readonly object: string;
  readonly md5: string;
  readonly metadata: string;
}

function isMissing(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ENOENT';
}

async function ignoreMissing(work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

/** What s3rver stores of a write's headers (its own `putMetadata` rule). */
function storedMetadata(headers: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of S3Object.ALLOWED_METADATA) {
    if (headers[name] !== undefined) out[name] = headers[name];
  }
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith('x-amz-meta-')) out[name] = value;
  }
  return out;
}

/** Streams `content` into a new file at `path`; resolves its size and hex MD5. */
async function writeContent(content: Readable | Buffer, path: string) {
  const md5 = createHash('md5');
  let size = 0;
  await pipeline(
    Buffer.isBuffer(content) ? Readable.from([content]) : content,
    new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        md5.update(chunk);
        size += chunk.length;
        callback(null, chunk);
      },
    }),
    createWriteStream(path, { flags: 'wx' }),
  );
  return { size, md5: md5.digest('hex') };
}

/**
 * Moves a committed pending write's MD5 and metadata (those still there) into place and
 * removes its folder. Safe to repeat after a kill at any point.
 */
async function finishCommit(pending: string, files: ObjectFiles): Promise<void> {
  await ignoreMissing(rename(join(pending, MD5_FILE), files.md5));
  await ignoreMissing(rename(join(pending, METADATA_FILE), files.metadata));
  await ignoreMissing(unlink(join(pending, TARGET_FILE))); // an empty folder: nothing left to do
  await rm(pending, { recursive: true, force: true });
}

/**
 * Discards an uncommitted pending write: its MD5 and metadata first and its object last, so
 * that a kill in between still finds the object and discards again.
 */
async function rollBack(pending: string): Promise<void> {
  await ignoreMissing(unlink(join(pending, MD5_FILE)));
  await ignoreMissing(unlink(join(pending, METADATA_FILE)));
  await ignoreMissing(unlink(join(pending, OBJECT_FILE)));
  await rm(pending, { recursive: true, force: true });
}

/** s3rver's filesystem store whose object writes are atomic against a killed process. */
export class AtomicFilesystemStore extends FilesystemStore {
  /** The three files of `bucket`/`key`. */
  filesOf(bucket: string, key: string): ObjectFiles {
    return {
      object: this.getResourcePath(bucket, key, 'object'),
      md5: this.getResourcePath(bucket, key, 'object.md5'),
      metadata: this.getResourcePath(bucket, key, 'metadata.json'),
    };
  }

  override async putObject(
    object: FilesystemStore.S3rverObject,
  ): Promise<{ size: number; md5: string }> {
    const pending = join(
      this.getResourcePath(object.bucket, undefined, PENDING),
      `${Date.now()}-${randomBytes(6).toString('hex')}`,
    );
    const files = this.filesOf(object.bucket, object.key);
    let written: { size: number; md5: string };
    await mkdir(pending, { recursive: true });
    try {
      await writeFile(
        join(pending, TARGET_FILE),
        JSON.stringify({ bucket: object.bucket, key: object.key }),
      );
      written = await writeContent(object.content, join(pending, OBJECT_FILE));
      await writeFile(join(pending, MD5_FILE), written.md5);
      await writeFile(
        join(pending, METADATA_FILE),
        JSON.stringify(storedMetadata(object.metadata), null, 2),
      );
      await mkdir(dirname(files.object), { recursive: true });
    } catch (error) {
      await rollBack(pending);
      throw error;
    }
    await rename(join(pending, OBJECT_FILE), files.object); // the commit point
    await finishCommit(pending, files);
    return written;
  }

  /** A copy is a read of the source and an atomic write of the destination. */
  override async copyObject(
    srcBucket: string,
    srcKey: string,
    destBucket: string,
    destKey: string,
    replacementMetadata: Readonly<Record<string, string>> | null,
  ): Promise<Record<string, string | number>> {
    const source = await this.getMetadata(srcBucket, srcKey);
    const metadata = Object.fromEntries(
      Object.entries(replacementMetadata ?? source).map(([k, v]) => [k, String(v)]),
    );
    await this.putObject({
      bucket: destBucket,
      key: destKey,
      content: createReadStream(this.filesOf(srcBucket, srcKey).object),
      metadata,
    });
    return this.getMetadata(destBucket, destKey);
  }

  /** Removes the object's bytes first: a kill afterwards leaves no half-deleted object. */
  override async deleteObject(bucket: string, key: string): Promise<void> {
    await ignoreMissing(unlink(this.filesOf(bucket, key).object));
    await super.deleteObject(bucket, key);
  }
}

/** What {@link settlePendingWrites} found. */
export interface SettledWrites {
  /** Writes interrupted before their commit point, discarded: the keys kept their versions. */
  readonly rolledBack: number;
  /** Writes interrupted after it, completed: the keys hold the new versions. */
  readonly rolledForward: number;
}

/** The buckets of a store folder (its subfolders). */
export async function bucketsOf(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch((error: unknown) => {
    if (isMissing(error)) return [];
    throw error;
  });
  return entries.filter((e) => e.isDirectory()).map((e) => e.name);
}

/**
 * Finishes the writes a killed process left in `store`'s pending folders (see the file
 * comment). Run it before s3rver serves; running it again changes nothing.
 */
export async function settlePendingWrites(store: AtomicFilesystemStore): Promise<SettledWrites> {
  let rolledBack = 0;
  let rolledForward = 0;
  for (const bucket of await bucketsOf(store.rootDirectory)) {
    const folder = store.getResourcePath(bucket, undefined, PENDING);
    const writes = await readdir(folder).catch((error: unknown) => {
      if (isMissing(error)) return [];
      throw error;
    });
    for (const id of writes) {
      const pending = join(folder, id);
      const names = new Set(await readdir(pending).catch(() => []));
      if (names.size === 0) {
        await rm(pending, { recursive: true, force: true });
        continue;
      }
      if (names.has(OBJECT_FILE) || !(names.has(MD5_FILE) || names.has(METADATA_FILE))) {
        await rollBack(pending);
        rolledBack += 1;
        continue;
      }
      // Committed: the target was written, complete, before the object was.
      const target = JSON.parse(await readFile(join(pending, TARGET_FILE), 'utf8')) as {
        bucket: string;
        key: string;
      };
      await finishCommit(pending, store.filesOf(target.bucket, target.key));
      rolledForward += 1;
    }
  }
  return { rolledBack, rolledForward };
}
