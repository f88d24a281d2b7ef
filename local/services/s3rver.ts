import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { recoverStore, type StoreRecovery } from './s3rver-recovery.js';
import { AtomicFilesystemStore } from './s3rver-store.js';

/** The credentials s3rver accepts. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

/** An S3-compatible server (s3rver) running in this process. */
export interface RunningS3 {
  /** `http://127.0.0.1:<port>`; use with `forcePathStyle: true`. */
  readonly endpoint: string;
  /** The credentials s3rver accepts. */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** What the start-up recovery of the folder did (writes a killed process left, torn objects). */
  readonly recovery: StoreRecovery;
  close(): Promise<void>;
}

export interface S3rverStartOptions {
  /** Keep objects in this folder; a temporary folder, removed on close, when absent. */
  readonly directory?: string;
  readonly port?: number;
}

/**
 * Starts s3rver on loopback with strict SigV4 checking, over a store whose writes a killed
 * process cannot tear (`s3rver-store.ts`), after recovering the folder (`s3rver-recovery.ts`).
 */
export async function startS3rver(options: S3rverStartOptions = {}): Promise<RunningS3> {
  const temporary = options.directory === undefined;
  const directory = options.directory ?? (await mkdtemp(join(tmpdir(), 'sc-s3rver-')));
  const server = new S3rver({
    address: '127.0.0.1',
    port: options.port ?? 0,
    directory,
    silent: true,
  });
  const store = new AtomicFilesystemStore(directory);
  // s3rver reads its store from `store` and from every request's context.
  const internals = server as unknown as { store: unknown; context: { store: unknown } };
  internals.store = store;
  internals.context.store = store;
  const recovery = await recoverStore(store);
  const address = await server.run();
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    credentials: S3RVER_CREDENTIALS,
    recovery,
    close: async () => {
      await server.close();
      if (temporary) await rm(directory, { recursive: true, force: true });
    },
  };
}
