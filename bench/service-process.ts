/**
 * One local service in a process of its own, for the benchmarks: dynalite or s3rver (in AWS,
 * DynamoDB and S3 are remote, so their CPU must not be charged to the event loop of the code
 * under test nor to its baseline), or the local REST API server over a dynalite table (the
 * server a benchmark's HTTP clients call, as clients are not in the server's process). Started
 * by `BenchServices` / `startChildService`; prints the service's URL on its first line, and
 * stops when its standard input ends (the benchmark process exited).
 *
 * Run as `tsx bench/service-process.ts dynalite|s3rver` or
 * `tsx bench/service-process.ts rest-api <dynalite endpoint> <table>`.
 */

import { Agent } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { apiHandler } from '../functions/api/handler.js';
import { startApiServer } from '../local/api-server.js';
import { startDynalite } from '../local/services/dynalite.js';
import { startS3rver } from '../local/services/s3rver.js';
import { createDynamoDbStateStore } from '../shared/adapters/dynamodb/dynamodb-state-store.js';
import { KafkaJsClientFactory } from '../shared/adapters/kafkajs/client.js';
import { createEngine, DEFAULT_ENGINE_SETTINGS } from '../shared/engine/engine.js';

interface Running {
  readonly url: string;
  close(): Promise<void>;
}

async function restApi(endpoint: string, tableName: string): Promise<Running> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // The SDK's default pool (50 sockets) would queue 50 clients' parallel requests.
    requestHandler: { httpAgent: new Agent({ keepAlive: true, maxSockets: 512 }) },
  });
  // The API function's handler over the engine, as in AWS. The benchmarked endpoints never
  // reach Kafka; the clients connect only when used.
  const kafka = new KafkaJsClientFactory({
    brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
  });
  const engine = createEngine(
    {
      store: createDynamoDbStateStore({ client, tableName }),
      kafka,
      reconcile: { nudge: async () => {} },
    },
    { ...DEFAULT_ENGINE_SETTINGS, kafkaClusterId: 'bench' },
  );
  const server = await startApiServer({
    host: '127.0.0.1',
    port: 0,
    handler: apiHandler(() => engine),
  });
  return {
    url: server.url,
    close: async () => {
      await server.close();
      await engine.close();
      await kafka.close();
      client.destroy();
    },
  };
}

async function start(args: readonly string[]): Promise<Running | undefined> {
  const [kind, endpoint, table] = args;
  if (kind === 'dynalite') {
    const running = await startDynalite();
    return { url: running.endpoint, close: () => running.close() };
  }
  if (kind === 's3rver') {
    const running = await startS3rver();
    return { url: running.endpoint, close: () => running.close() };
  }
  if (kind === 'rest-api' && endpoint !== undefined && table !== undefined) {
    return restApi(endpoint, table);
  }
  return undefined;
}

const running = await start(process.argv.slice(2));
if (running === undefined) {
  console.error('usage: service-process.ts dynalite|s3rver|rest-api <dynalite endpoint> <table>');
  process.exit(2);
}
process.stdout.write(`${running.url}\n`);
process.stdin.on('end', () => {
  void running.close().finally(() => process.exit(0));
});
process.stdin.resume();
