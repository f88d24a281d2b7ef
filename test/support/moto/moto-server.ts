/**
 * moto's server (PyPI `moto`, pinned in `requirements.txt` beside this file) for the integration
 * tests and `npm run check:sink`: AWS S3 with conditional writes (`If-None-Match: *`, `If-Match`)
 * and DynamoDB with DynamoDB Streams (DescribeStream, GetShardIterator, GetRecords), all on one
 * loopback endpoint. Python, so never part of `npm start`, which keeps dynalite and s3rver.
 *
 * The virtual environment `.venv-moto/` (git-ignored) is built with pip on first use and reused
 * while `requirements.txt` is unchanged; `npx tsx test/support/moto/moto-server.ts --install`
 * builds it ahead of time.
 *
 * @example
 * const moto = await startMoto();
 * const s3 = new S3Client({ endpoint: moto.endpoint, forcePathStyle: true, region: 'us-east-1', credentials: moto.credentials });
 * await moto.stop();
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePythonVenv } from '../python-venv.js';

const here = dirname(fileURLToPath(import.meta.url));
const projectRoot = join(here, '..', '..', '..');

/** moto's project-local virtual environment (git-ignored). */
export const MOTO_VENV = join(projectRoot, '.venv-moto');
const REQUIREMENTS = join(here, 'requirements.txt');
const SERVE = join(here, 'serve.py');
/** How long a started server may take to listen (a cold start on 2 busy cores is about 1 s). */
const START_TIMEOUT_MS = 60_000;

/** A running moto server. */
export interface RunningMoto {
  /** `http://127.0.0.1:<port>`: S3 (path style), DynamoDB and DynamoDB Streams. */
  readonly endpoint: string;
  /** Credentials for the SDK clients (moto accepts any). */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** Stops the server (its state is in memory and goes with it). */
  stop(): Promise<void>;
}

/** The pinned requirement specs of `requirements.txt` (comments and blank lines left out). */
export async function motoRequirements(): Promise<string[]> {
  const text = await readFile(REQUIREMENTS, 'utf8');
  return text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line !== '');
}

/** Builds `.venv-moto/` when missing or out of date; returns its python. */
export async function ensureMotoVenv(): Promise<string> {
  return ensurePythonVenv({
    dir: MOTO_VENV,
    packages: await motoRequirements(),
    purpose: 'moto (the integration tests and check:sink)',
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/** Resolves the port `serve.py` prints; rejects with its stderr if it exits or hangs first. */
function listeningPort(child: ChildProcess, stderr: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`moto did not listen within ${START_TIMEOUT_MS} ms:\n${stderr()}`));
    }, START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /^listening (\d+)$/m.exec(out);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      resolve(Number(match[1]));
    };
    const onExit = (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      reject(new Error(`moto exited (${signal ?? `code ${code}`}) before listening:\n${stderr()}`));
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}

export interface MotoStartOptions {
  /**
   * The smallest part (but the last) S3 accepts in a multipart upload: AWS's 5 MiB unless told,
   * lower for a test that drives the S3 sink with small parts (its internal test setting).
   */
  readonly s3MinPartSize?: number;
}

/** AWS S3's smallest part but the last, and the in-memory size moto keeps objects up to. */
const AWS_MIN_PART_SIZE = 5 * 1024 * 1024;

/**
 * Starts moto's server on 127.0.0.1 (a port the OS picks), building its venv first when needed.
 * The server ends with this process even when it is killed: it exits when its stdin closes.
 */
export async function startMoto(options: MotoStartOptions = {}): Promise<RunningMoto> {
  const python = await ensureMotoVenv();
  const env = {
    ...process.env,
    S3_UPLOAD_PART_MIN_SIZE: String(options.s3MinPartSize ?? AWS_MIN_PART_SIZE),
    // moto derives its in-memory object buffer from the part minimum; keep its default.
    MOTO_S3_DEFAULT_KEY_BUFFER_SIZE: String(AWS_MIN_PART_SIZE - 1024),
  };
  const child = spawn(python, [SERVE], { stdio: ['pipe', 'pipe', 'pipe'], env });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-8_000);
  });
  const port = await listeningPort(child, () => stderr);
  child.stdout?.resume();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: 'moto', secretAccessKey: 'moto' },
    stop: async () => {
      const done = exited(child);
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await done;
      clearTimeout(timer);
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--install')) {
  const started = Date.now();
  const python = await ensureMotoVenv();
  console.log(`moto venv ready (${python}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
