/**
 * Start-up recovery of a local S3 folder (s3rver's files), before s3rver serves it:
 *
 * 1. the writes a killed process left pending are finished or discarded
 *    ({@link settlePendingWrites}): with {@link AtomicFilesystemStore} no object is ever torn;
 * 2. once per folder (until {@link VERIFIED_MARKER} is written), every object is verified, since
 *    folders written by s3rver's own store (before the atomic writes) can hold objects a kill
 *    tore: metadata that is not JSON (s3rver answered 500 to every GET, HEAD and conditional PUT
 *    of the key), or bytes that do not match their MD5 (truncated, or newer than their
 *    metadata). Such an object's files are renamed aside (`<file>.torn-<time>`), so that the key
 *    reads as absent and its writer (the S3 sink) writes it again; the bytes stay there to look
 *    at. What such an object held beyond what is written again is not recoverable from the
 *    folder: the kill that tore it had already overwritten its previous version.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  type AtomicFilesystemStore,
  bucketsOf,
  type SettledWrites,
  settlePendingWrites,
} from './s3rver-store.js';

/** Written at the folder's root once every object was verified (s3rver ignores files there). */
export const VERIFIED_MARKER = '.serverless-connect-s3-store.json';

const OBJECT_SUFFIX = '._S3rver_object';
const METADATA_SUFFIX = '._S3rver_metadata.json';
/** s3rver's own folders inside a bucket (multipart parts, pending writes). */
const INTERNAL_FOLDER = /^\._S3rver_/;

/** An object found torn and set aside. */
export interface TornObject {
  readonly bucket: string;
  readonly key: string;
  /** Why it counts as torn. */
  readonly reason: string;
  /** Where its files are now. */
  readonly files: readonly string[];
}

/** What the start-up recovery did. */
export interface StoreRecovery extends SettledWrites {
  /** Whether every object was verified this time (a folder not verified before). */
  readonly verified: boolean;
  readonly torn: readonly TornObject[];
}

function isMissing(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ENOENT';
}

/** The `._S3rver_object` files under `folder`, recursively, skipping s3rver's own folders. */
async function* objectFiles(folder: string): AsyncGenerator<string> {
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (!INTERNAL_FOLDER.test(entry.name)) yield* objectFiles(path);
    } else if (entry.name.endsWith(OBJECT_SUFFIX)) {
      yield path;
    }
  }
}

async function md5Of(path: string): Promise<string> {
  const hash = createHash('md5');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/** Why the object at `objectPath` is torn, or `null` when it is whole. */
async function tornReason(objectPath: string): Promise<string | null> {
  const metadataPath = objectPath.slice(0, -OBJECT_SUFFIX.length) + METADATA_SUFFIX;
  let metadata: unknown;
  try {
    metadata = JSON.parse(await readFile(metadataPath, 'utf8'));
  } catch (error) {
    return isMissing(error) ? 'no metadata file' : 'metadata file is not JSON';
  }
  if (typeof metadata !== 'object' || metadata === null) return 'metadata file is not an object';
  let md5: string;
  try {
    md5 = (await readFile(`${objectPath}.md5`, 'utf8')).trim();
  } catch (error) {
    if (isMissing(error)) return null; // s3rver computes a missing MD5 (objects put by hand)
    throw error;
  }
  const actual = await md5Of(objectPath);
  return actual === md5 ? null : `bytes do not match their MD5 (${md5 || 'empty'} != ${actual})`;
}

/** Renames the files of a torn object aside; resolves their new paths. */
async function setAside(objectPath: string, stamp: string): Promise<string[]> {
  const base = objectPath.slice(0, -OBJECT_SUFFIX.length);
  const moved: string[] = [];
  for (const path of [`${base}${METADATA_SUFFIX}`, `${objectPath}.md5`, objectPath]) {
    const aside = `${path}.torn-${stamp}`;
    try {
      await rename(path, aside);
      moved.push(aside);
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }
  return moved;
}

/** Verifies every object of `root`, setting torn ones aside. */
async function verifyObjects(root: string): Promise<TornObject[]> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const torn: TornObject[] = [];
  for (const bucket of await bucketsOf(root)) {
    for await (const objectPath of objectFiles(join(root, bucket))) {
      const reason = await tornReason(objectPath);
      if (reason === null) continue;
      const key = relative(join(root, bucket), objectPath)
        .slice(0, -OBJECT_SUFFIX.length)
        .split(sep)
        .join('/');
      torn.push({ bucket, key, reason, files: await setAside(objectPath, stamp) });
    }
  }
  return torn;
}

/**
 * Recovers `store`'s folder after an unclean stop (see the file comment). Idempotent; the full
 * verification runs once per folder.
 */
export async function recoverStore(store: AtomicFilesystemStore): Promise<StoreRecovery> {
  const settled = await settlePendingWrites(store);
  const marker = join(store.rootDirectory, VERIFIED_MARKER);
  const verified = await readFile(marker).then(
    () => true,
    (error: unknown) => {
      if (isMissing(error)) return false;
      throw error;
    },
  );
  if (verified) return { ...settled, verified: false, torn: [] };
  const torn = await verifyObjects(store.rootDirectory);
  await writeFile(
    marker,
    `${JSON.stringify({ writes: 'atomic (local/services/s3rver-store.ts)', verifiedAt: new Date().toISOString() })}\n`,
  );
  return { ...settled, verified: true, torn };
}
