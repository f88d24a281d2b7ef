/**
 * The two sides of the peer benchmark as processes: Apache Kafka Connect's distributed worker
 * (scripts/connect/start.sh) and our local runtime (`node --import tsx local/main.ts`), each
 * with its REST URL and pid, and what /proc says of a pid (CPU seconds, memory).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { OURS_ENV, oursArgs } from './runtime-options.js';

const run = promisify(execFile);
const root = resolve(fileURLToPath(import.meta.url), '../../..');

/** One side: where its REST API answers and which process does its work. */
export interface Side {
  readonly name: 'ours' | 'apache';
  readonly url: string;
  readonly pid: number;
  /** Our side's state store (dynalite) process, measured apart; none on Apache's side. */
  readonly stateStorePid?: number;
  stop(): Promise<void>;
}

/** A free TCP port on loopback (closed again; taken by the caller right after). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Starts a Connect worker with bench/peer/worker.properties and its own group and topics. */
export async function startApacheWorker(brokers: string, runId: string): Promise<Side> {
  const workDir = await mkdtemp(join(tmpdir(), 'peer-connect-'));
  const env = {
    ...process.env,
    KAFKA_BROKERS: brokers,
    CONNECT_WORK_DIR: workDir,
    CONNECT_REST_PORT: String(await freePort()),
    CONNECT_GROUP_ID: `peer-connect-${runId}`,
  };
  const script = (name: string) => join(root, 'scripts/connect', name);
  const { stdout } = await run(
    'bash',
    [script('start.sh'), join(root, 'bench/peer/worker.properties')],
    { env, maxBuffer: 1 << 20 },
  ).catch((error: { stderr?: string }) => {
    throw new Error(`the Kafka Connect worker did not start:\n${error.stderr ?? String(error)}`);
  });
  const url = stdout.trim();
  const pid = Number((await readFile(join(workDir, 'worker.pid'), 'utf8')).trim());
  return {
    name: 'apache',
    url,
    pid,
    stop: async () => {
      await run('bash', [script('stop.sh')], { env }).catch(() => undefined);
      await rm(workDir, { recursive: true, force: true });
    },
  };
}

/** Starts our local runtime in a child process over the given DynamoDB endpoint. */
export async function startOurRuntime(
  brokers: string,
  dynamo: { readonly endpoint: string; readonly pid: number },
): Promise<Side> {
  const dynamoEndpoint = dynamo.endpoint;
  const dataDir = await mkdtemp(join(tmpdir(), 'peer-ours-'));
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'local/main.ts'), ...oursArgs(dataDir, dynamoEndpoint)],
    {
      cwd: root,
      env: { ...process.env, ...OURS_ENV, KAFKA_BROKERS: brokers },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + String(chunk)).slice(-4000);
  });
  const exited = once(child, 'exit');
  const deadline = Date.now() + 120_000;
  let url: string | undefined;
  while (url === undefined) {
    if (child.exitCode !== null) throw new Error(`our runtime exited during start-up:\n${stderr}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`our runtime did not start in 120 s:\n${stderr}`);
    }
    const info = await readFile(join(dataDir, 'runtime.json'), 'utf8').catch(() => undefined);
    if (info !== undefined) url = (JSON.parse(info) as { url: string }).url;
    else await new Promise((r) => setTimeout(r, 200));
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error('our runtime has no pid');
  return {
    name: 'ours',
    url,
    pid,
    stateStorePid: dynamo.pid,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** User + system CPU seconds a process has used so far (/proc/<pid>/stat, its threads included). */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at state, field 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / TICKS_PER_SECOND;
}

/** Resident memory in MB: now (VmRSS) and the peak since the process started (VmHWM). */
export async function memoryMb(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** Calls a side's Connect REST API; throws with the answer on an unexpected status. */
export async function rest(
  side: Side,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(`${side.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) {
    throw new Error(`${side.name}: ${method} ${path} answered ${response.status}: ${text}`);
  }
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

/** Deletes a connector and waits until the side no longer knows it. */
export async function deleteConnector(side: Side, name: string): Promise<void> {
  await rest(side, 'DELETE', `/connectors/${name}`);
  for (let i = 0; i < 300; i++) {
    const response = await fetch(`${side.url}/connectors/${name}`);
    await response.arrayBuffer();
    if (response.status === 404) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${side.name}: connector ${name} still exists 30 s after DELETE`);
}
