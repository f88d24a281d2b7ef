import { type AttributeValue, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { PluginDescriptor } from '../shared/connect/plugin.js';
import { systemDynamoDbSinkDeps } from '../shared/plugins/connectors/dynamodb-sink/descriptor.js';
import { DynamoDbSinkConnector } from '../shared/plugins/connectors/dynamodb-sink/dynamodb-sink-connector.js';
import { createDynamoDbSinkClient } from '../shared/plugins/connectors/dynamodb-sink/sdk-sink-client.js';
import type { DynamoDbSinkClient } from '../shared/plugins/connectors/dynamodb-sink/sink-client.js';
import { createItemTable, dynaliteClient } from '../test/support/sink-campaign/dynamodb-target.js';
import type { BenchServices } from './services.js';
import { forEachLimited, prepareSinkBench, timedSinkDescriptor } from './sink-runner.js';
import type { Timings } from './timings.js';

/**
 * `dynamodb-sink`: the DynamoDB sink (pk.mode=record_key, one item per record, each PutItem
 * conditional on the record's Kafka coordinates, 25 in flight) through the sink runtime, vs raw
 * PutItem of the same items (the same write kind, unconditional) with 25 in flight. 2
 * partitions, 2,000 records of ~200 bytes per round in ESM batches of 500, dynalite.
 */
const PARTITIONS = 2;
const PER_ROUND = 2_000;
const BATCH = 500;
/** The sink's default `batch.size`: writes in flight. */
const CONCURRENCY = 25;

const decoder = new TextDecoder();

/** `inner`, timing each item write. */
function timedClient(inner: DynamoDbSinkClient, timings: Timings): DynamoDbSinkClient {
  return {
    describeTable: (table) => inner.describeTable(table),
    write: (write) => timings.time('dynamodb PutItem', () => inner.write(write)),
    destroy: () => inner.destroy(),
  };
}

/** The item the sink writes for a record (value attributes, key, Kafka coordinates). */
function itemOf(record: {
  topic: string;
  partition: number;
  offset: number;
  value: Uint8Array | null;
}): Record<string, AttributeValue> {
  const value = JSON.parse(decoder.decode(record.value ?? new Uint8Array())) as {
    id: string;
    partition: number;
    seq: number;
    text: string;
  };
  return {
    id: { S: value.id },
    partition: { N: String(value.partition) },
    seq: { N: String(value.seq) },
    text: { S: value.text },
    _kafka_topic: { S: record.topic },
    _kafka_partition: { N: String(record.partition) },
    _kafka_offset: { N: String(record.offset) },
  };
}

export async function run(services: BenchServices): Promise<void> {
  const bench = await prepareSinkBench(services, {
    name: 'dynamodb-sink',
    partitions: PARTITIONS,
    perRound: PER_ROUND,
    batch: BATCH,
  });
  const client = dynaliteClient(bench.dynamoEndpoint);
  const oursTable = `${bench.prefix}-ours`;
  const baselineTable = `${bench.prefix}-baseline`;
  await createItemTable(client, oursTable);
  await createItemTable(client, baselineTable);

  const deps = {
    ...systemDynamoDbSinkDeps(),
    createClient: (config: Parameters<typeof createDynamoDbSinkClient>[0]) =>
      timedClient(createDynamoDbSinkClient(config), bench.timings),
  };
  const dynamoSink: PluginDescriptor<'sink'> = {
    className: 'bench.DynamoDbSink',
    aliases: [],
    type: 'sink',
    version: new DynamoDbSinkConnector(deps).version(),
    create: () => new DynamoDbSinkConnector(deps),
  };
  const engine = bench.container({
    plugins: [timedSinkDescriptor(dynamoSink, 'bench.TimedDynamoDbSinkConnector', bench.timings)],
  });
  const connector = `${bench.prefix}-ours`;
  await bench.createConnector(connector, {
    name: connector,
    'connector.class': 'bench.TimedDynamoDbSinkConnector',
    topics: bench.topic,
    'table.name.format': oursTable,
    'aws.dynamodb.endpoint': bench.dynamoEndpoint,
    'aws.dynamodb.region': 'us-east-1',
    'aws.access.key.id': 'local',
    'aws.secret.access.key': 'local',
    'pk.mode': 'record_key',
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
    'value.converter.schemas.enable': 'false',
  });
  const items = bench.slices.map((slice) => slice.batches.map((batch) => batch.map(itemOf)));

  try {
    await bench.compare(
      async () => bench.runOurs(engine, connector, bench.nextSlice('ours')),
      (slice, batch) =>
        forEachLimited(items[slice.index]?.[batch] ?? [], CONCURRENCY, (item) =>
          client.send(new PutItemCommand({ TableName: baselineTable, Item: item })),
        ),
    );
  } finally {
    await bench.close();
    client.destroy();
  }
}
