import diagnosticsChannel from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { createRequire } from 'node:module';

/**
 * Counts the billable requests this process makes, for the cost table (bench/cost.ts): every
 * AWS SDK request to DynamoDB and S3 (seen on Node's `http.client.request.start` diagnostics
 * channel, so whichever code built the client, the runtime's own included) and every Kafka
 * request kafkajs sends (its `Connection.prototype.send`, through which every kafkajs request
 * goes, wrapped once). Counts only grow; a caller takes a snapshot before and after the work it
 * measures and keeps the difference ({@link diffCounts}).
 *
 * Keys are `<service>:<operation>`: `dynamodb:PutItem` (the `X-Amz-Target` operation),
 * `s3:PUT PutObject` (the method, then the SDK's `x-id` command name when it sends one),
 * `kafka:Produce` (the Kafka API name).
 */
export type RequestCounts = ReadonlyMap<string, number>;

const counts = new Map<string, number>();
let installed = false;

function add(key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function header(request: ClientRequest, name: string): string {
  const value = request.getHeader(name);
  return Array.isArray(value) ? value.join(',') : String(value ?? '');
}

/** The key of an AWS SDK request, or undefined for any other HTTP request. */
export function awsRequestKey(request: {
  readonly method: string;
  readonly path: string;
  readonly target: string;
  readonly userAgent: string;
}): string | undefined {
  const api = /\bapi\/([a-z0-9-]+)#/.exec(request.userAgent)?.[1];
  if (api === 'dynamodb') {
    const operation = request.target.split('.')[1];
    return `dynamodb:${operation ?? 'unknown'}`;
  }
  if (api === 's3') {
    const query = new URLSearchParams(request.path.split('?')[1] ?? '');
    const command = query.get('x-id');
    // ListObjectsV2 is a GET on the bucket with `list-type=2`; billed as a LIST (tier 1).
    const name = command ?? (query.get('list-type') === null ? '' : 'ListObjectsV2');
    return `s3:${request.method}${name === '' ? '' : ` ${name}`}`;
  }
  return undefined;
}

function onHttpRequest(message: unknown): void {
  const request = (message as { request?: ClientRequest }).request;
  if (request === undefined) return;
  const key = awsRequestKey({
    method: request.method,
    path: request.path,
    target: header(request, 'x-amz-target'),
    userAgent: header(request, 'user-agent'),
  });
  if (key !== undefined) add(key);
}

interface KafkaJsConnection {
  send(this: unknown, args: { request: { apiName: string } }): Promise<unknown>;
}

function wrapKafkaJs(): void {
  // kafkajs has no exports map: its connection module is the one its clients use.
  const require = createRequire(import.meta.url);
  const Connection = require('kafkajs/src/network/connection') as {
    prototype: KafkaJsConnection;
  };
  const send = Connection.prototype.send;
  if (typeof send !== 'function') {
    throw new Error('kafkajs Connection.prototype.send is missing: cannot count Kafka requests');
  }
  Connection.prototype.send = function countedSend(args) {
    add(`kafka:${args.request.apiName}`);
    return send.call(this, args);
  };
}

/** Starts counting (once per process; later calls do nothing). */
export function installRequestCounter(): void {
  if (installed) return;
  installed = true;
  diagnosticsChannel.subscribe('http.client.request.start', onHttpRequest);
  wrapKafkaJs();
}

/** The counts so far (a copy). */
export function requestCounts(): RequestCounts {
  return new Map(counts);
}

/** `after − before`, keeping only keys that grew. */
export function diffCounts(before: RequestCounts, after: RequestCounts): Map<string, number> {
  const diff = new Map<string, number>();
  for (const [key, n] of after) {
    const delta = n - (before.get(key) ?? 0);
    if (delta > 0) diff.set(key, delta);
  }
  return diff;
}

/** `a + b`, key by key. */
export function addCounts(a: RequestCounts, b: RequestCounts): Map<string, number> {
  const sum = new Map(a);
  for (const [key, n] of b) sum.set(key, (sum.get(key) ?? 0) + n);
  return sum;
}
