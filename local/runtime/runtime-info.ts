import { readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { LocalRuntime } from './start.js';

/**
 * `<data dir>/runtime.json`: where a running `npm start` serves and keeps things, so
 * `npm run demo` and `npm run check:local-crash` find it. Written at start-up, removed on a
 * graceful exit (a killed process leaves it behind; `pid` tells whether it is still alive).
 */
export interface RuntimeInfo {
  readonly pid: number;
  readonly url: string;
  readonly brokers: readonly string[];
  readonly s3: {
    readonly endpoint: string;
    readonly bucket: string;
    readonly accessKeyId: string;
    readonly secretAccessKey: string;
    readonly directory: string | null;
  };
  readonly dynamoEndpoint: string;
  readonly startedAt: string;
}

export const RUNTIME_INFO_FILE = 'runtime.json';

export function runtimeInfoOf(runtime: LocalRuntime, pid = process.pid): RuntimeInfo {
  return {
    pid,
    url: runtime.url,
    brokers: runtime.brokers,
    s3: {
      endpoint: runtime.s3.endpoint,
      bucket: runtime.s3.bucket,
      accessKeyId: runtime.s3.credentials.accessKeyId,
      secretAccessKey: runtime.s3.credentials.secretAccessKey,
      directory: runtime.s3.directory ?? null,
    },
    dynamoEndpoint: runtime.dynamo.endpoint,
    startedAt: new Date().toISOString(),
  };
}

export async function writeRuntimeInfo(dataDir: string, info: RuntimeInfo): Promise<string> {
  const file = join(dataDir, RUNTIME_INFO_FILE);
  await writeFile(file, `${JSON.stringify(info, null, 2)}\n`);
  return file;
}

/** The info of a runtime whose process is alive, else undefined. */
export async function readRuntimeInfo(dataDir: string): Promise<RuntimeInfo | undefined> {
  const text = await readFile(join(dataDir, RUNTIME_INFO_FILE), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const info = JSON.parse(text) as RuntimeInfo;
    process.kill(info.pid, 0);
    return info;
  } catch {
    return undefined;
  }
}

export async function removeRuntimeInfo(dataDir: string): Promise<void> {
  await rm(join(dataDir, RUNTIME_INFO_FILE), { force: true });
}

/** A path for humans: relative to the working directory when inside it. */
export function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === '' ? '.' : rel.startsWith('..') ? path : `./${rel}`;
}

/** The start-up banner. */
export function banner(runtime: LocalRuntime): string {
  const url = runtime.url;
  const broker = runtime.brokerStartedHere
    ? 'the pinned local broker, started here (stopped on exit)'
    : 'KAFKA_BROKERS or an already running local broker';
  const s3Where =
    runtime.s3.directory === undefined
      ? 'a temporary folder (--memory)'
      : shownPath(runtime.s3.directory);
  const dynamoWhere =
    runtime.dynamo.directory === undefined
      ? 'in memory (--memory)'
      : shownPath(runtime.dynamo.directory);
  const { accessKeyId, secretAccessKey } = runtime.s3.credentials;
  return [
    '',
    `serverless-connect local runtime (Kafka Connect REST API ${runtime.connectVersion})`,
    '',
    `  REST API    ${url}`,
    `              curl -s ${url}/connectors    curl -s ${url}/connector-plugins`,
    `  Kafka       ${runtime.brokers.join(',')}  (${broker}, cluster ${runtime.kafkaClusterId})`,
    `  S3          ${runtime.s3.endpoint}  (s3rver; bucket ${runtime.s3.bucket}; keys ${accessKeyId}/${secretAccessKey}; objects in ${s3Where})`,
    runtime.dynamo.external
      ? `  DynamoDB    ${runtime.dynamo.endpoint}  (given by --dynamodb-endpoint; table ${runtime.dynamo.table})`
      : `  DynamoDB    ${runtime.dynamo.endpoint}  (dynalite; table ${runtime.dynamo.table}; ${dynamoWhere})`,
    `  enumerator  every ${runtime.enumeratorIntervalMs / 1000} s and after every change; source tasks in-process, ${runtime.sourceBudgetMs / 1000} s per invocation`,
    `  logs        JSON lines on stdout; levels: curl -s -X PUT -H 'Content-Type: application/json' -d '{"level":"DEBUG"}' ${url}/admin/loggers/root`,
    '',
    '  Ctrl-C stops gracefully: in-flight transactions finish or abort, nothing partial is committed.',
    '',
  ].join('\n');
}
