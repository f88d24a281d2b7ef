import {
  CreateTableCommand,
  DeleteItemCommand,
  DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type RunningDynamoDbStreams,
  startDynamoDbStreamsStandIn,
} from '../../../local/services/dynamodb-streams.js';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import type { SourceConnector } from '../../../shared/connect/source.js';
import { builtinRegistry } from '../../../shared/plugins/registry.js';
import { systemClock } from '../../../shared/ports/clock.js';
import type { KafkaAdminPort } from '../../../shared/ports/kafka.js';
import { silentLogger } from '../../../shared/ports/logger.js';
import { buildSourcePipeline } from '../../../shared/runtime/pipeline/source-pipeline.js';
import { ProducerPool } from '../../../shared/runtime/source/producer-pool.js';
import {
  defaultSourceRuntimeSettings,
  runSourceInvocation,
  type SourceRunResult,
} from '../../../shared/runtime/source/source-task-runner.js';
import { checkDelivery } from '../../support/eos-checker.js';
import { testDynamo, testKafka, uniqueName } from '../../support/services.js';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface ChangeValue {
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  keys: { id: string };
  newImage: { step: number } | null;
  oldImage: { step: number } | null;
}

/**
 * Every write of the tests carries `step` = 1, 2, 3… per item; a REMOVE is the step after the
 * removed image's. So each item's records must read steps 1..n, once each, in order.
 */
function identify(value: Buffer | null): { partition: string; seq: number } {
  const change = JSON.parse(value?.toString() ?? '{}') as ChangeValue;
  const step =
    change.eventName === 'REMOVE' ? (change.oldImage?.step ?? 0) + 1 : (change.newImage?.step ?? 0);
  return { partition: change.keys.id, seq: step };
}

/** DynamoDB table → stand-in stream → the connector → the exactly-once runner → Kafka. */
describe('DynamoDB Streams source through the exactly-once runtime (stand-in + dynalite + real broker)', () => {
  let standIn: RunningDynamoDbStreams;
  let ddb: DynamoDBClient;
  let factory: KafkaJsClientFactory;
  let admin: KafkaAdminPort;
  let pool: ProducerPool;
  const registry = builtinRegistry();
  const stateDynamo = testDynamo();
  const stateTable = uniqueName('ddbs-state');
  const store = createDynamoDbStateStore({
    client: stateDynamo,
    tableName: stateTable,
    clock: systemClock,
  });

  beforeAll(async () => {
    standIn = await startDynamoDbStreamsStandIn({
      dynaliteEndpoint: inject('dynamoEndpoint'),
      shardRolloverRecords: 5,
    });
    ddb = new DynamoDBClient({ endpoint: standIn.endpoint, region: 'us-east-1', credentials });
    await ensureTable(stateDynamo, stateTable);
    factory = new KafkaJsClientFactory({
      brokers: inject('kafkaBrokers'),
      logLevel: logLevel.NOTHING,
    });
    admin = factory.admin();
    pool = new ProducerPool(factory);
  });

  afterAll(async () => {
    await pool.closeAll();
    await admin.close();
    ddb.destroy();
    stateDynamo.destroy();
    await standIn.close();
  });

  async function createTable(): Promise<string> {
    const table = uniqueName('items');
    await ddb.send(
      new CreateTableCommand({
        TableName: table,
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    );
    return table;
  }

  const put = (table: string, id: string, step: number) =>
    ddb.send(
      new PutItemCommand({ TableName: table, Item: { id: { S: id }, step: { N: String(step) } } }),
    );
  const update = (table: string, id: string, step: number) =>
    ddb.send(
      new UpdateItemCommand({
        TableName: table,
        Key: { id: { S: id } },
        UpdateExpression: 'SET step = :s',
        ExpressionAttributeValues: { ':s': { N: String(step) } },
      }),
    );
  const remove = (table: string, id: string) =>
    ddb.send(new DeleteItemCommand({ TableName: table, Key: { id: { S: id } } }));

  /** Creates the connector and its task configs; returns a runner of one task invocation. */
  async function deploy(table: string, tasksMax: number) {
    const name = uniqueName('ddbsrc');
    const config = {
      name,
      'connector.class': 'dynamodb-streams',
      'tasks.max': String(tasksMax),
      'table.name': table,
      'dynamodb.endpoint': standIn.endpoint,
      'dynamodb.region': 'us-east-1',
      'aws.access.key.id': 'local',
      'aws.secret.access.key': 'local',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the connector's own placeholder.
      topic: 'cdc-${table}',
      'poll.max.records': '4',
      'shard.refresh.interval.ms': '200',
      'key.converter.schemas.enable': 'false',
      'value.converter.schemas.enable': 'false',
      'exactly.once.support': 'required',
    };
    await store.configs.createConnector(name, config);
    const connector = registry.resolve('dynamodb-streams', 'source').create() as SourceConnector;
    await connector.start(config, { requestTaskReconfiguration: () => {}, raiseError: () => {} });
    const set = await store.configs.putTaskConfigs(name, await connector.taskConfigs(tasksMax), 0);
    await connector.stop();
    const run = (task: number): Promise<SourceRunResult> =>
      runSourceInvocation(
        {
          store,
          admin,
          producers: pool,
          plugins: registry,
          clock: systemClock,
          sleep,
          buildPipeline: (parsed, t) =>
            buildSourcePipeline(parsed, t, {
              plugins: registry,
              logger: silentLogger,
              clock: systemClock,
              sleep,
            }),
          settings: { ...defaultSourceRuntimeSettings, maxIdleMs: 400, idlePollMs: 50 },
        },
        {
          connector: name,
          task,
          generation: set.tasks.find((t) => t.task === task)?.generation ?? 0,
          owner: uniqueName('inv'),
          workerId: 'test',
          deadline: Date.now() + 30_000,
        },
      );
    return { run, topic: `cdc-${table}` };
  }

  it('delivers every change once, in order per item, across shard rollovers and two invocations', async () => {
    // Prepare
    const table = await createTable();
    const ids = ['k0', 'k1', 'k2', 'k3'];
    const { run, topic } = await deploy(table, 1);
    for (const id of ids) await put(table, id, 1);
    for (const id of ids) await update(table, id, 2);

    // Act
    const first = await run(0);
    for (const id of ids) await update(table, id, 3);
    for (const id of ['k0', 'k1']) await remove(table, id);
    for (const id of ['k2', 'k3']) await put(table, id, 4);
    const second = await run(0);
    const report = await checkDelivery({
      kafka: testKafka(),
      topic,
      expected: new Map(ids.map((id) => [id, 4])),
      identify,
    });

    // Assess
    expect(first).toMatchObject({ outcome: 'completed', records: 8 });
    expect(second).toMatchObject({ outcome: 'completed', records: 8 });
    expect(report).toMatchObject({ duplicates: 0, losses: 0, reordered: 0, records: 16 });
  });

  it('keeps each item in order when parent and child shards belong to different tasks', async () => {
    // Prepare: 18 changes of 3 items over shards of 5 records, spread over 2 tasks by shard id.
    const table = await createTable();
    const ids = ['a', 'b', 'c'];
    const { run, topic } = await deploy(table, 2);
    for (let step = 1; step <= 6; step++) {
      for (const id of ids) await (step === 1 ? put(table, id, step) : update(table, id, step));
    }

    // Act: alternate the tasks' invocations until a whole round delivers nothing.
    const outcomes: string[] = [];
    let delivered = 0;
    for (let round = 0; round < 10; round++) {
      const results = [await run(0), await run(1)];
      outcomes.push(...results.map((r) => r.outcome));
      const records = results.reduce((n, r) => n + r.records, 0);
      delivered += records;
      if (records === 0 && delivered > 0) break;
    }
    const report = await checkDelivery({
      kafka: testKafka(),
      topic,
      expected: new Map(ids.map((id) => [id, 6])),
      identify,
    });

    // Assess
    expect(new Set(outcomes)).toEqual(new Set(['completed']));
    expect(delivered).toBe(18);
    expect(report).toMatchObject({ duplicates: 0, losses: 0, reordered: 0, records: 18 });
  }, 120_000);
});
