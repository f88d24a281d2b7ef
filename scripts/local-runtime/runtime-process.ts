/**
 * `npm start`'s process (`local/main.ts`) as a child of the checks (`check:local-crash`,
 * `check:state-restore`): started on one data folder, reached over its REST API, killed with
 * SIGKILL, paused (SIGSTOP) or stopped with SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RuntimeInfo, readRuntimeInfo } from '../../local/runtime/runtime-info.js';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `read` every 200 ms until it gives a value (errors count as none), or throws after `ms`. */
export async function until<T>(
  what: string,
  read: () => Promise<T | undefined>,
  ms = 60_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

export interface RuntimeSettings {
  readonly dataDir: string;
  readonly logFile: string;
  readonly brokers: readonly string[];
  /** Fixed across restarts: the S3 sink's stored config names the endpoint. */
  readonly s3Port: number;
}

/** One life of the runtime process. */
export class RuntimeProcess {
  private constructor(
    readonly child: ChildProcess,
    readonly info: RuntimeInfo,
  ) {}

  /** Starts `local/main.ts` on the data folder and waits until its REST API answers. */
  static async start(settings: RuntimeSettings): Promise<RuntimeProcess> {
    const out = await open(settings.logFile, 'a');
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'local/main.ts',
        '--data-dir',
        settings.dataDir,
        '--port',
        '0',
        '--s3-port',
        String(settings.s3Port),
        '--enumerator-interval',
        '2',
        '--task-budget',
        '15',
      ],
      {
        cwd: projectRoot,
        env: { ...process.env, KAFKA_BROKERS: settings.brokers.join(','), LOG_LEVEL: 'warn' },
        stdio: ['ignore', out.fd, out.fd],
      },
    );
    await out.close();
    const info = await until('the runtime to start', async () => {
      if (child.exitCode !== null) throw new Error(`the runtime exited with ${child.exitCode}`);
      const found = await readRuntimeInfo(settings.dataDir);
      return found?.pid === child.pid ? found : undefined;
    });
    return new RuntimeProcess(child, info);
  }

  /** A REST call; resolves the status and the parsed JSON body. */
  async http(method: string, path: string, body?: unknown) {
    const response = await fetch(`${this.info.url}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  }

  /** Creates connector `name`; throws unless the API answers 201. */
  async create(name: string, config: Record<string, string>): Promise<void> {
    const created = await this.http('POST', '/connectors', { name, config });
    if (created.status !== 201) {
      throw new Error(
        `creating ${name} answered ${created.status}: ${JSON.stringify(created.body)}`,
      );
    }
  }

  /** Stops connector `name` and waits until its status says STOPPED. */
  async stop(name: string): Promise<void> {
    const stop = await this.http('PUT', `/connectors/${name}/stop`);
    if (stop.status !== 204) throw new Error(`stopping ${name} answered ${stop.status}`);
    await until(`${name} to stop`, async () => {
      const { body } = await this.http('GET', `/connectors/${name}/status`);
      return body?.connector?.state === 'STOPPED' ? true : undefined;
    });
  }

  /** Runs `work` with the process paused (SIGSTOP … SIGCONT): what a kill would leave, on disk. */
  async paused<T>(work: () => Promise<T>): Promise<T> {
    this.child.kill('SIGSTOP');
    try {
      return await work();
    } finally {
      this.child.kill('SIGCONT');
    }
  }

  /** SIGKILL, as a crash or `kill -9` ends it. */
  async kill(): Promise<void> {
    await this.#end('SIGKILL');
  }

  /** SIGTERM: the graceful shutdown. */
  async terminate(): Promise<void> {
    await this.#end('SIGTERM');
  }

  async #end(signal: NodeJS.Signals): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill(signal);
    await exited;
  }
}
