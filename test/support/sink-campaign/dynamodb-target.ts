/**
 * The DynamoDB sink under test, on dynalite: a table keyed by the record key (`id`), one item
 * per input record, each write conditional on the record's Kafka coordinates.
 */
import {
  type AttributeValue,
  CreateTableCommand,
  DynamoDBClient,
  ScanCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import type { PluginDescriptor } from '../../../shared/connect/plugin.js';
import { systemDynamoDbSinkDeps } from '../../../shared/plugins/connectors/dynamodb-sink/descriptor.js';
import { DynamoDbSinkConnector } from '../../../shared/plugins/connectors/dynamodb-sink/dynamodb-sink-connector.js';
import { createDynamoDbSinkClient } from '../../../shared/plugins/connectors/dynamodb-sink/sdk-sink-client.js';
import type { DynamoDbSinkClient } from '../../../shared/plugins/connectors/dynamodb-sink/sink-client.js';
import type { Faults } from './faults.js';
import type { CampaignServices, SinkTarget } from './target.js';

/** The DynamoDB sink over the campaign's client, beside the built-in one. */
const DYNAMODB_SINK_CLASS = 'test.campaign.DynamoDbSinkConnector';

/** A DynamoDB client for dynalite. */
export function dynaliteClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** Creates `table` with the string partition key `id` and waits until it is active. */
export async function createItemTable(client: DynamoDBClient, table: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
    }),
  );
  await waitUntilTableExists({ client, maxWaitTime: 30, minDelay: 1 }, { TableName: table });
}

/** Every item of `table` (consistent reads). */
export async function scanAll(
  client: DynamoDBClient,
  table: string,
): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: table,
        ConsistentRead: true,
        ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return items;
}

/** `inner`, crashing before or after each item write where `faults` says. */
function faultyDynamoClient(inner: DynamoDbSinkClient, faults: Faults): DynamoDbSinkClient {
  return {
    describeTable: (table) => inner.describeTable(table),
    async write(write) {
      faults.hit('client', `before DynamoDB ${write.kind}`);
      const outcome = await inner.write(write);
      faults.hit('client', `after DynamoDB ${write.kind}`);
      return outcome;
    },
    destroy: () => inner.destroy(),
  };
}

export interface DynamoTargetOptions {
  /** Whether writes cross the crash points. @default true */
  readonly instrumented?: boolean;
}

/** Creates the table `name` and the DynamoDB sink target writing to it. */
export async function createDynamoTarget(
  services: CampaignServices,
  name: string,
  options: DynamoTargetOptions = {},
): Promise<SinkTarget & { readonly table: string; readonly client: DynamoDBClient }> {
  const client = dynaliteClient(services.dynamoEndpoint);
  const table = name;
  await createItemTable(client, table);
  const instrumented = options.instrumented ?? true;
  return {
    name: 'dynamodb',
    table,
    clientSteps: ['before DynamoDB put', 'after DynamoDB put'],
    client,
    config: {
      'table.name.format': table,
      'aws.dynamodb.endpoint': services.dynamoEndpoint,
      'aws.dynamodb.region': 'us-east-1',
      'aws.access.key.id': 'local',
      'aws.secret.access.key': 'local',
      'pk.mode': 'record_key',
      'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable': 'false',
    },
    container(faults, kafka) {
      const deps = {
        ...systemDynamoDbSinkDeps(),
        createClient: (config: Parameters<typeof createDynamoDbSinkClient>[0]) =>
          instrumented
            ? faultyDynamoClient(createDynamoDbSinkClient(config), faults)
            : createDynamoDbSinkClient(config),
      };
      const dynamoSink: PluginDescriptor<'sink'> = {
        className: DYNAMODB_SINK_CLASS,
        aliases: [],
        type: 'sink',
        version: new DynamoDbSinkConnector(deps).version(),
        create: () => new DynamoDbSinkConnector(deps),
      };
      return { kafka, plugins: [dynamoSink], sinkClass: DYNAMODB_SINK_CLASS };
    },
    async readOutput(input) {
      const items = await scanAll(client, table);
      const byId = new Map(items.map((item) => [item.id?.S ?? '', item]));
      let losses = 0;
      let anomalies = items.length - byId.size;
      for (const record of input.flat()) {
        const item = byId.get(record.id);
        byId.delete(record.id);
        if (item === undefined) losses += 1;
        else if (
          item.seq?.N !== String(record.seq) ||
          item._kafka_offset?.N !== String(record.offset) ||
          item._kafka_partition?.N !== String(record.partition)
        ) {
          anomalies += 1;
        }
      }
      // Items of no input record.
      anomalies += byId.size;
      // One item per key: a record written twice leaves one item, so duplicates cannot show.
      return { duplicates: 0, losses, anomalies, records: items.length };
    },
    async close() {
      client.destroy();
    },
  };
}
