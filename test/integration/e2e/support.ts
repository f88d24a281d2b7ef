/**
 * What the end-to-end tests share: a local runtime started in this process against the test
 * broker, with its own dynalite and s3rver on free ports, reached only through HTTP.
 */
import { GetObjectCommand, NoSuchKey, S3Client } from '@aws-sdk/client-s3';
import { inject } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '../../../local/runtime/start.js';
import type { LoadedPluginModule } from '../../../shared/engine/plugin-modules.js';
import { finalKeyOfStaged, sinkOutputKeys } from '../../support/s3-sink-output.js';
import { uniqueName } from '../../support/services.js';

export interface HttpResult {
  readonly status: number;
  readonly text: string;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
  readonly body: any;
}

export type Http = (method: string, path: string, body?: unknown) => Promise<HttpResult>;

/** A JSON client of `baseUrl`. */
export function httpClient(baseUrl: string): Http {
  return async (method, path, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
    });
    const text = await response.text();
    return { status: response.status, text, body: text === '' ? undefined : JSON.parse(text) };
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Calls `read` until `done` accepts its value; fails with the last value after `timeoutMs`. */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 30_000,
  what = 'the condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!done(last)) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)}`);
    }
    await sleep(200);
    last = await read();
  }
  return last;
}

export interface E2eRuntime {
  readonly runtime: LocalRuntime;
  readonly http: Http;
  /** The runtime's JSON log lines so far (printed when a test fails). */
  readonly logs: string[];
  close(): Promise<void>;
}

/**
 * A local runtime in memory on free ports, fast-paced for tests (a full enumerator run every
 * second, 5 s source invocations that end after 0.5 s without records), with the test's own
 * plugins if given.
 */
export async function startE2eRuntime(
  pluginModules: readonly LoadedPluginModule[] = [],
): Promise<E2eRuntime> {
  const logs: string[] = [];
  const runtime = await startLocalRuntime({
    ...(pluginModules.length === 0 ? {} : { pluginModules }),
    port: 0,
    s3Port: 0,
    memory: true,
    brokers: inject('kafkaBrokers'),
    transactionalIdPrefix: uniqueName('e2e'),
    // An offsets topic of its own: a transaction another test left hanging on a shared one (a
    // killed producer, aborted only at its 60 s timeout) would hold back its last stable offset,
    // and with it the fate of this runtime's pending offsets.
    offsetsTopic: uniqueName('e2e-offsets'),
    kafkaClusterId: 'e2e-cluster',
    enumeratorIntervalMs: 1_000,
    sourceBudgetMs: 5_000,
    sourceSettings: { maxIdleMs: 500, idlePollMs: 20, assignmentCheckMs: 200 },
    logLevel: 'info',
    writeLog: (line) => {
      logs.push(line);
      if (logs.length > 2_000) logs.splice(0, 1_000);
    },
  });
  return { runtime, http: httpClient(runtime.url), logs, close: () => runtime.close() };
}

/** `/connectors/<name><suffix>` with the name encoded. */
export function connectorPath(name: string, suffix = ''): string {
  return `/connectors/${encodeURIComponent(name)}${suffix}`;
}

/** A datagen source writing `quickstart` records to `topic` with exactly-once required. */
export function datagenConfig(topic: string, extra: Record<string, string> = {}) {
  return {
    'connector.class': 'datagen',
    'kafka.topic': topic,
    quickstart: 'orders',
    'exactly.once.support': 'required',
    'records.per.poll': '50',
    'topic.creation.default.partitions': '2',
    'topic.creation.default.replication.factor': '1',
    ...extra,
  };
}

/** An S3 sink of `topic` into the runtime's s3rver bucket. */
export function s3SinkConfig(
  runtime: LocalRuntime,
  topic: string,
  extra: Record<string, string> = {},
) {
  return {
    'connector.class': 's3-sink',
    topics: topic,
    's3.bucket.name': runtime.s3.bucket,
    's3.endpoint': runtime.s3.endpoint,
    'aws.access.key.id': runtime.s3.credentials.accessKeyId,
    'aws.secret.access.key': runtime.s3.credentials.secretAccessKey,
    'format.class': 'json',
    'flush.size': '100',
    'partition.discovery.interval.ms': '1000',
    ...extra,
  };
}

/** Every JSON line of the S3 sink's objects under `prefix` (and its staged ones) in the runtime's bucket. */
export async function s3Lines(runtime: LocalRuntime, prefix: string): Promise<unknown[]> {
  const client = new S3Client({
    endpoint: runtime.s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: runtime.s3.credentials,
  });
  try {
    const lines: unknown[] = [];
    const { keys, finals } = await sinkOutputKeys(client, runtime.s3.bucket, prefix);
    const read = async (key: string) => {
      const got = await client.send(new GetObjectCommand({ Bucket: runtime.s3.bucket, Key: key }));
      return (await got.Body?.transformToString()) ?? '';
    };
    for (const [index, key] of keys.entries()) {
      // The sink may seal a staged bucket while we read (while it runs): its records are then in
      // the final object it wrote before deleting the staged one.
      const text = await read(key).catch((error: unknown) => {
        if (index < finals || !(error instanceof NoSuchKey)) throw error;
        return read(finalKeyOfStaged(key));
      });
      for (const line of text.split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
    }
    return lines;
  } finally {
    client.destroy();
  }
}

/** Fails loudly with the runtime's last log lines (call from a failing test's catch). */
export function lastLogs(e2e: E2eRuntime, count = 40): string {
  return e2e.logs.slice(-count).join('\n');
}

export { uniqueName };
