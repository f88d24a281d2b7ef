import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kafka } from 'kafkajs';
import { readRuntimeInfo } from '../local/runtime/runtime-info.js';
import { parseOffsetRecord } from '../shared/runtime/source/offsets-topic.js';

/**
 * The local runtime (`local/main.ts`, what `npm start` runs) as a child process the checks kill,
 * stop and start again on one data folder, and what they ask it over its REST API.
 */

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A whole-number flag `--<name> N` of the script's command line. */
export function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} takes a whole number`);
  return value;
}

/** mulberry32: seeded, so a failing run can be replayed. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Asks `read` until it answers something other than undefined (errors count as no answer). */
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

export interface RuntimeProcess {
  readonly child: ChildProcess;
  readonly url: string;
}

export interface RuntimeProcessOptions {
  readonly dataDir: string;
  readonly brokers: readonly string[];
  /** Where the child's stdout and stderr go (appended). */
  readonly logFile: string;
  /** The local S3 server's port: fixed, so sink configs naming it survive restarts. 0: any. */
  readonly s3Port?: number;
  /** Further `local/main.ts` options. */
  readonly args?: readonly string[];
}

/** Starts `local/main.ts` on the data folder and waits until its REST API answers. */
export async function startRuntimeProcess(options: RuntimeProcessOptions): Promise<RuntimeProcess> {
  const out = await open(options.logFile, 'a');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'local/main.ts',
      '--data-dir',
      options.dataDir,
      '--port',
      '0',
      '--s3-port',
      String(options.s3Port ?? 0),
      ...(options.args ?? []),
    ],
    {
      cwd: projectRoot,
      env: { ...process.env, KAFKA_BROKERS: options.brokers.join(','), LOG_LEVEL: 'warn' },
      stdio: ['ignore', out.fd, out.fd],
    },
  );
  await out.close();
  const info = await until('the runtime to start', async () => {
    if (child.exitCode !== null) throw new Error(`the runtime exited with ${child.exitCode}`);
    const found = await readRuntimeInfo(options.dataDir);
    return found?.pid === child.pid ? found : undefined;
  });
  return { child, url: info.url };
}

/** SIGKILL, and waits until the process is gone. */
export async function killRuntime(runtime: RuntimeProcess): Promise<void> {
  if (runtime.child.exitCode !== null || runtime.child.signalCode !== null) return;
  const exited = once(runtime.child, 'exit');
  runtime.child.kill('SIGKILL');
  await exited;
}

/** SIGTERM (a graceful shutdown), and waits until the process is gone. */
export async function stopRuntime(runtime: RuntimeProcess): Promise<void> {
  if (runtime.child.exitCode !== null || runtime.child.signalCode !== null) return;
  const exited = once(runtime.child, 'exit');
  runtime.child.kill('SIGTERM');
  await exited;
}

/** One REST call; the body parsed as JSON when there is one. */
export async function http(runtime: RuntimeProcess, method: string, path: string, body?: unknown) {
  const response = await fetch(`${runtime.url}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** Committed seq per datagen partition, from `GET /connectors/{c}/offsets`. */
export async function committedSeqs(
  runtime: RuntimeProcess,
  connector: string,
): Promise<Map<string, number>> {
  const { body } = await http(runtime, 'GET', `/connectors/${connector}/offsets`);
  const out = new Map<string, number>();
  for (const entry of (body?.offsets ?? []) as {
    partition: Record<string, unknown>;
    offset: { seq?: number } | null;
  }[]) {
    out.set(String(entry.partition['datagen.partition']), Number(entry.offset?.seq ?? 0));
  }
  return out;
}

/** Waits until every one of `partitions` committed past `before` (records flow again). */
export async function progressed(
  runtime: RuntimeProcess,
  connector: string,
  before: ReadonlyMap<string, number>,
  partitions: readonly string[],
): Promise<Map<string, number>> {
  return until(
    'progress on every source partition',
    async () => {
      const now = await committedSeqs(runtime, connector);
      const all = partitions.every((p) => (now.get(p) ?? 0) > (before.get(p) ?? 0));
      return all ? now : undefined;
    },
    120_000,
  );
}

/**
 * Committed seq per datagen partition as Kafka holds it: the connector's records on its offsets
 * topic, read read_committed (what Connect's own offsets view reads); a tombstone resets a
 * partition. The state store's view can lag it by the last transaction of an invocation fenced
 * between its commit and its promotion; the next invocation settles that as committed.
 */
export async function committedInKafka(
  kafka: Kafka,
  offsetsTopic: string,
  connector: string,
  partitions: number,
): Promise<Map<string, number>> {
  const consumer = kafka.consumer({
    groupId: `${connector}-offsets-check-${Date.now()}`,
    readUncommitted: false,
  });
  const out = new Map<string, number>();
  let lastNews = Date.now();
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: offsetsTopic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        lastNews = Date.now();
        const parsed = parseOffsetRecord(
          message.key === null ? null : new Uint8Array(message.key),
          message.value === null ? null : new Uint8Array(message.value),
        );
        if (parsed === undefined || parsed.connector !== connector) return;
        const partition = String(parsed.entry.partition['datagen.partition']);
        const seq = Number((parsed.entry.offset as { seq?: number } | null)?.seq ?? 0);
        out.set(partition, Math.max(out.get(partition) ?? 0, seq));
      },
    });
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && (out.size < partitions || Date.now() - lastNews < 2_000)) {
      await sleep(100);
    }
  } finally {
    await consumer.disconnect();
  }
  return out;
}
