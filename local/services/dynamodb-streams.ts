/**
 * A DynamoDB Streams stand-in for tests: dynalite has no Streams API and DynamoDB Local cannot
 * be used. moto (test/support/moto) serves the real API too, but keeps one open shard per
 * stream and never trims or expires anything, so shard rollovers and lineage, trimming and
 * iterator expiry are tested here. This loopback HTTP server sits in front of a dynalite
 * endpoint and
 * - proxies the DynamoDB JSON API (`X-Amz-Target: DynamoDB_20120810.*`) to dynalite, keeping
 *   its own registry of stream settings (StreamSpecification on CreateTable/UpdateTable, which
 *   dynalite ignores) and reporting them in DescribeTable (`LatestStreamArn`, …);
 * - captures every PutItem, UpdateItem, DeleteItem, BatchWriteItem and TransactWriteItems
 *   (emulated: dynalite has none) on a stream-enabled table as INSERT/MODIFY/REMOVE records,
 *   reading the item consistently before and after the write while holding the table's write
 *   lock, so the images are exact;
 * - serves the DynamoDB Streams API (`X-Amz-Target: DynamoDBStreams_20120810.*`): ListStreams,
 *   DescribeStream, GetShardIterator, GetRecords, in the shapes the AWS SDK reads.
 *
 * Point both `@aws-sdk/client-dynamodb` and `@aws-sdk/client-dynamodb-streams` at `endpoint`.
 * Writes sent to dynalite directly are not captured. Streams live in memory only.
 *
 * @example
 * const standIn = await startDynamoDbStreamsStandIn({ dynaliteEndpoint, shardRolloverRecords: 5 });
 * const ddb = new DynamoDBClient({ endpoint: standIn.endpoint, region: 'us-east-1', credentials });
 * const streams = new DynamoDBStreamsClient({ endpoint: standIn.endpoint, region: 'us-east-1', credentials });
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError } from './dynamodb-streams/api-error.js';
import {
  type Answer,
  CaptureContext,
  json,
  type RawRequest,
} from './dynamodb-streams/capture-context.js';
import { DynaliteClient, DynaliteError } from './dynamodb-streams/dynalite-client.js';
import { StreamStore } from './dynamodb-streams/stream-store.js';
import {
  describeStream,
  getRecords,
  getShardIterator,
  listStreams,
} from './dynamodb-streams/streams-api.js';
import {
  batchWriteItem,
  createTable,
  deleteTable,
  describeTable,
  updateTable,
  writeItem,
} from './dynamodb-streams/table-api.js';
import { transactWriteItems } from './dynamodb-streams/transact-write.js';

export interface DynamoDbStreamsStandInOptions {
  /** The dynalite endpoint to proxy, e.g. `http://127.0.0.1:4567`. */
  readonly dynaliteEndpoint: string;
  /** Close a shard after this many records and open a child shard. @default never */
  readonly shardRolloverRecords?: number;
  /** How long shard iterators stay valid (ms). @default 15 minutes */
  readonly iteratorTtlMs?: number;
  /** The clock (epoch ms), for record times and iterator expiry. @default Date.now */
  readonly now?: () => number;
  /** Port to listen on; a free one when 0 or absent. */
  readonly port?: number;
}

/** A running stand-in. */
export interface RunningDynamoDbStreams {
  /** `http://127.0.0.1:<port>`, for the SDK clients' `endpoint`. */
  readonly endpoint: string;
  /** Closes the open shard of `tableName`'s stream (even an empty one) and opens a child; returns the child's id. */
  rolloverShard(tableName: string): string;
  /** Trims every stream record stored so far, as if the 24-hour retention had passed. */
  trimAll(): void;
  close(): Promise<void>;
}

const STREAMS_PREFIX = 'DynamoDBStreams_20120810.';
const DYNAMODB_PREFIX = 'DynamoDB_20120810.';

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, answer: Answer): void {
  res.writeHead(answer.status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(answer.text),
    'x-amzn-requestid': randomUUID(),
  });
  res.end(answer.text);
}

function streamsOperation(
  store: StreamStore,
  operation: string,
  input: Record<string, unknown>,
): Answer {
  switch (operation) {
    case 'ListStreams':
      return json(listStreams(store, input));
    case 'DescribeStream':
      return json(describeStream(store, input));
    case 'GetShardIterator':
      return json(getShardIterator(store, input));
    case 'GetRecords':
      return json(getRecords(store, input));
    default:
      throw new ApiError('UnknownOperationException', `Unknown operation ${operation}`);
  }
}

async function dynamoOperation(
  context: CaptureContext,
  operation: string,
  input: Record<string, unknown>,
  raw: RawRequest,
): Promise<Answer> {
  switch (operation) {
    case 'CreateTable':
      return createTable(context, input);
    case 'UpdateTable':
      return updateTable(context, input);
    case 'DescribeTable':
      return describeTable(context, input);
    case 'DeleteTable':
      return deleteTable(context, input);
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return writeItem(context, operation, input, raw);
    case 'BatchWriteItem':
      return batchWriteItem(context, input, raw);
    case 'TransactWriteItems':
      return transactWriteItems(context, input);
    default:
      return context.dynalite.forward(raw.headers, raw.body);
  }
}

async function handle(context: CaptureContext, req: IncomingMessage): Promise<Answer> {
  const body = await readBody(req);
  const target = String(req.headers['x-amz-target'] ?? '');
  const raw = { headers: req.headers, body };
  if (req.method !== 'POST') return context.dynalite.forward(req.headers, body);
  let input: Record<string, unknown>;
  try {
    input = body === '' ? {} : (JSON.parse(body) as Record<string, unknown>);
  } catch {
    return json({ __type: 'com.amazon.coral.service#SerializationException' }, 400);
  }
  if (target.startsWith(STREAMS_PREFIX)) {
    return streamsOperation(context.streams, target.slice(STREAMS_PREFIX.length), input);
  }
  if (target.startsWith(DYNAMODB_PREFIX)) {
    return dynamoOperation(context, target.slice(DYNAMODB_PREFIX.length), input, raw);
  }
  return context.dynalite.forward(req.headers, body);
}

/** Starts the stand-in on loopback in front of `options.dynaliteEndpoint`. */
export async function startDynamoDbStreamsStandIn(
  options: DynamoDbStreamsStandInOptions,
): Promise<RunningDynamoDbStreams> {
  const store = new StreamStore({
    ...(options.shardRolloverRecords === undefined
      ? {}
      : { shardRolloverRecords: options.shardRolloverRecords }),
    ...(options.iteratorTtlMs === undefined ? {} : { iteratorTtlMs: options.iteratorTtlMs }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const context = new CaptureContext(new DynaliteClient(options.dynaliteEndpoint), store);
  const server = createServer((req, res) => {
    handle(context, req).then(
      (answer) => send(res, answer),
      (error: unknown) => {
        if (error instanceof DynaliteError) send(res, error.response);
        else if (error instanceof ApiError) send(res, json(error.body(), error.status));
        else {
          const message = error instanceof Error ? error.message : String(error);
          send(res, json(new ApiError('InternalServerError', message, 500).body(), 500));
        }
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    rolloverShard: (tableName) => store.rollover(tableName),
    trimAll: () => store.trimAll(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
