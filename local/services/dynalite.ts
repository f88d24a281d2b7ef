import type { AddressInfo } from 'node:net';
import { ClassicLevel } from 'classic-level';
import dynalite from 'dynalite';

/** A DynamoDB-compatible server (dynalite) running in this process. */
export interface RunningDynamo {
  /** `http://127.0.0.1:<port>`, for the SDK's `endpoint`. */
  readonly endpoint: string;
  close(): Promise<void>;
}

export interface DynaliteStartOptions {
  /** Keep tables in this folder; in memory when absent. */
  readonly path?: string;
  /** Port to listen on; a free one when 0 or absent. */
  readonly port?: number;
}

/** Why dynalite's folder could not be opened. */
export type DynamoFolderProblem =
  /** LevelDB found its files damaged (or one of them missing). */
  | 'damaged'
  /** Another process has the folder open (LevelDB's lock). */
  | 'in-use';

/**
 * dynalite's folder cannot be opened. dynalite itself opens its LevelDB lazily and throws the
 * failure, uncaught, at the first request; {@link startDynalite} opens the folder first and
 * throws this instead.
 */
export class DynamoFolderError extends Error {
  override readonly name = 'DynamoFolderError';

  constructor(
    readonly folder: string,
    readonly problem: DynamoFolderProblem,
    /** LevelDB's own words, e.g. `Corruption: no meta-nextfile entry in descriptor`. */
    readonly detail: string,
    options?: ErrorOptions,
  ) {
    super(`dynalite's folder ${folder} is ${problem}: ${detail}`, options);
  }
}

/** LevelDB's error behind a failed open (`LEVEL_DATABASE_NOT_OPEN` carries it as its cause). */
function levelCause(error: unknown): { code: string; message: string } {
  const cause = (error as { cause?: unknown }).cause ?? error;
  const { code, message } = cause as { code?: unknown; message?: unknown };
  return { code: typeof code === 'string' ? code : '', message: String(message ?? cause) };
}

/** LevelDB's codes for files it found damaged or missing. */
const DAMAGE_CODES = new Set(['LEVEL_CORRUPTION', 'LEVEL_IO_ERROR']);

/** True for LevelDB's "the files are damaged (or missing)" errors, however they reached us. */
export function isLevelDamage(error: unknown): boolean {
  return DAMAGE_CODES.has(levelCause(error).code);
}

/**
 * Opens the LevelDB in `path` (creating it when new) and reads every key, which opens every
 * table file (LevelDB opens them lazily, so a damaged one would otherwise surface only at
 * dynalite's first read of it); throws what stops it.
 */
async function checkFolder(path: string): Promise<void> {
  const db = new ClassicLevel(path);
  try {
    await db.open();
    for await (const _ of db.keys()) {
      // Reading is the check.
    }
  } catch (error) {
    const { code, message } = levelCause(error);
    if (code === 'LEVEL_LOCKED')
      throw new DynamoFolderError(path, 'in-use', message, { cause: error });
    if (DAMAGE_CODES.has(code)) {
      throw new DynamoFolderError(path, 'damaged', message, { cause: error });
    }
    throw error;
  } finally {
    await db.close();
  }
}

/**
 * Starts dynalite on loopback. Tables are created instantly (no CREATING phase). With a `path`,
 * throws a {@link DynamoFolderError} when the folder is damaged or held by another process.
 */
export async function startDynalite(options: DynaliteStartOptions = {}): Promise<RunningDynamo> {
  if (options.path !== undefined) await checkFolder(options.path);
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.path === undefined ? {} : { path: options.path }),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
