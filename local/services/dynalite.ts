import type { AddressInfo } from 'node:net';
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

/** Starts dynalite on loopback. Tables are created instantly (no CREATING phase). */
export async function startDynalite(options: DynaliteStartOptions = {}): Promise<RunningDynamo> {
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
