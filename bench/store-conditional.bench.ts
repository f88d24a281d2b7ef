import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { createDynamoDbStateStore } from '../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../shared/adapters/dynamodb/ensure-table.js';
import { ITEM_FORMAT_VERSION } from '../shared/adapters/dynamodb/table-schema.js';
import type { StateStore } from '../shared/ports/state-store.js';
import { compareThroughput } from './harness.js';
import { BenchServices } from './services.js';

/**
 * `store-conditional`: the price of the state store's conditional single-item writes on
 * dynalite. Ours = N sink-offset commits through the DynamoDB adapter (a conditional UpdateItem
 * `offset < :new` each, the write every sink batch makes); baseline = N unconditional PutItem
 * of the same item through the raw client. Both sequential, one request in flight, as one task
 * commits. Then it counts the DynamoDB requests the runtime's hot paths make by wrapping the
 * client's `send`: a source transaction (one write, plus one per invocation for the last
 * promotion) and a sink partition batch (1 expected).
 */
const N = 1000;
const COUNTED = 20;

function dynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** Counts every request the client sends. */
function countRequests(client: DynamoDBClient): { readonly count: () => number; reset(): void } {
  let sent = 0;
  const send = client.send.bind(client) as (...args: unknown[]) => Promise<unknown>;
  // The SDK's `send` is overloaded; the wrapper forwards every form unchanged.
  (client as unknown as { send: (...args: unknown[]) => Promise<unknown> }).send = (...args) => {
    sent += 1;
    return send(...args);
  };
  return {
    count: () => sent,
    reset: () => {
      sent = 0;
    },
  };
}

async function requestsPerSourceTransaction(
  store: StateStore,
  counter: ReturnType<typeof countRequests>,
): Promise<number> {
  const connector = 'bench-source';
  await store.configs.createConnector(connector, { 'connector.class': 'VerifiableSource' });
  await store.configs.putTaskConfigs(connector, [{ 'task.id': '0' }], 0);
  const ref = { connector, task: 0 };
  const lease = await store.leases.acquireLease({
    ...ref,
    owner: 'bench',
    generation: 1,
    ttlMs: 60_000,
  });
  const pending = (seq: number) => ({
    seq,
    offsets: [{ partition: { file: 'in.txt' }, offset: { line: seq * 500 } }],
    positions: [{ topic: 'connect-offsets', partition: 0, offset: String(seq) }],
  });
  counter.reset();
  // As the source runner does in one invocation: the first transaction writes its pending
  // entry alone, each later one promotes the one before with its own pending entry, and the
  // last is promoted alone before the invocation ends.
  await store.offsets.writePendingSourceOffsets(ref, pending(1), lease);
  for (let seq = 2; seq <= COUNTED; seq += 1) {
    await store.offsets.promoteAndWritePendingSourceOffsets(ref, seq - 1, pending(seq), lease);
  }
  await store.offsets.promotePendingSourceOffsets(ref, COUNTED, lease);
  return counter.count() / COUNTED;
}

async function requestsPerSinkBatch(
  store: StateStore,
  counter: ReturnType<typeof countRequests>,
): Promise<number> {
  // A partition's first commit also checks for its v3 item and marks the connector v4 (three
  // requests, once in its life); the steady state is counted.
  await store.offsets.commitSinkOffset('bench-sink', {
    topic: 'orders',
    partition: 3,
    nextOffset: 1,
  });
  counter.reset();
  for (let batch = 1; batch <= COUNTED; batch += 1) {
    // As the sink runner does after a partition's batch is durably written.
    await store.offsets.commitSinkOffset('bench-sink', {
      topic: 'orders',
      partition: 3,
      nextOffset: batch * 500,
    });
  }
  return counter.count() / COUNTED;
}

export async function run(services?: BenchServices): Promise<void> {
  const owned = services === undefined ? new BenchServices() : undefined;
  const active = services ?? (owned as BenchServices);
  try {
    const { endpoint } = await active.dynamo();
    const client = dynamoClient(endpoint);
    const tableName = `bench-state-${Date.now().toString(36)}`;
    await ensureTable(client, tableName);
    const store = createDynamoDbStateStore({ client, tableName });

    let offset = 0;
    await compareThroughput({
      name: 'store-conditional',
      unit: 'writes',
      ours: async () => {
        for (let i = 0; i < N; i += 1) {
          offset += 1;
          await store.offsets.commitSinkOffset('bench', {
            topic: 't',
            partition: 0,
            nextOffset: offset,
          });
        }
        return N;
      },
      baseline: async () => {
        for (let i = 0; i < N; i += 1) {
          offset += 1;
          await client.send(
            new PutItemCommand({
              TableName: tableName,
              Item: {
                pk: { S: 'C#bench-baseline' },
                sk: { S: 'SINKOFFSET#t#0' },
                v: { N: String(ITEM_FORMAT_VERSION) },
                topic: { S: 't' },
                partition: { N: '0' },
                offset: { N: String(offset) },
                updatedAt: { N: String(offset) },
              },
            }),
          );
        }
        return N;
      },
    });

    const countingClient = dynamoClient(endpoint);
    const counter = countRequests(countingClient);
    const counted = createDynamoDbStateStore({ client: countingClient, tableName });
    const source = await requestsPerSourceTransaction(counted, counter);
    const sink = await requestsPerSinkBatch(counted, counter);
    console.log(
      `store-conditional: requests per source transaction=${source.toFixed(2)} (promotion folded into the next pending write; expected ${((COUNTED + 1) / COUNTED).toFixed(2)} for ${COUNTED} transactions per invocation)`,
    );
    console.log(
      `store-conditional: requests per sink partition batch=${sink.toFixed(2)} (expected 1)`,
    );
    client.destroy();
    countingClient.destroy();
  } finally {
    await owned?.close();
  }
}
