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
import type { Engine } from '../../../shared/engine/engine.js';
import { systemClock } from '../../../shared/ports/clock.js';
import {
  runSourceInvocation,
  type SourceRunResult,
} from '../../../shared/runtime/source/source-task-runner.js';
import { testEngine } from '../../support/engine.js';
import { checkDelivery } from '../../support/eos-checker.js';
import { MOTO_CREDENTIALS, testDynamo, testKafka, uniqueName } from '../../support/services.js';

const region = 'us-east-1';

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

/** Where the source table and its stream live: one endpoint serving DynamoDB and its Streams API. */
interface StreamsService {
  readonly endpoint: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

/**
 * DynamoDB table → its stream → the connector → the exactly-once runner → Kafka, the source
 * tasks' state in DynamoDB on dynalite. `service()` is the table's server, known once the
 * suite's `beforeAll` ran.
 */
function sourceHarness(service: () => StreamsService) {
  let ddb: DynamoDBClient;
  let factory: KafkaJsClientFactory;
  /** The source tasks' container: an engine over the state table and the test broker. */
  let engine: Engine;
  let closeEngine: () => Promise<void>;
  const stateDynamo = testDynamo();
  const stateTable = uniqueName('ddbs-state');
  const store = createDynamoDbStateStore({
    client: stateDynamo,
    tableName: stateTable,
    clock: systemClock,
  });

  beforeAll(async () => {
    const { endpoint, credentials } = service();
    ddb = new DynamoDBClient({ endpoint, region, credentials });
    await ensureTable(stateDynamo, stateTable);
    factory = new KafkaJsClientFactory({
      brokers: inject('kafkaBrokers'),
      logLevel: logLevel.NOTHING,
    });
    ({ engine, close: closeEngine } = await testEngine({
      store,
      kafka: factory,
      settings: { source: { maxIdleMs: 400, idlePollMs: 50 } },
    }));
  });

  afterAll(async () => {
    await closeEngine?.();
    ddb?.destroy();
    stateDynamo.destroy();
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
    const { endpoint, credentials } = service();
    const name = uniqueName('ddbsrc');
    const config = {
      name,
      'connector.class': 'dynamodb-streams',
      'tasks.max': String(tasksMax),
      'table.name': table,
      'dynamodb.endpoint': endpoint,
      'dynamodb.region': region,
      'aws.access.key.id': credentials.accessKeyId,
      'aws.secret.access.key': credentials.secretAccessKey,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the connector's own placeholder.
      topic: 'cdc-${table}',
      'poll.max.records': '4',
      'shard.refresh.interval.ms': '200',
      'key.converter.schemas.enable': 'false',
      'value.converter.schemas.enable': 'false',
      'exactly.once.support': 'required',
    };
    await store.configs.createConnector(name, config);
    const connector = engine.plugins
      .resolve('dynamodb-streams', 'source')
      .create() as SourceConnector;
    await connector.start(config, { requestTaskReconfiguration: () => {}, raiseError: () => {} });
    const set = await store.configs.putTaskConfigs(name, await connector.taskConfigs(tasksMax), 0);
    await connector.stop();
    const run = (task: number): Promise<SourceRunResult> =>
      runSourceInvocation(engine.source, {
        connector: name,
        task,
        generation: set.tasks.find((t) => t.task === task)?.generation ?? 0,
        owner: uniqueName('inv'),
        workerId: 'test',
        deadline: Date.now() + 30_000,
      });
    return { run, topic: `cdc-${table}` };
  }

  /**
   * Four items changed across two invocations (inserts, updates, removes, re-inserts): every
   * change is delivered once, in order per item.
   */
  async function deliversEveryChangeOnce(): Promise<void> {
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
  }

  return { createTable, put, update, remove, deploy, deliversEveryChangeOnce };
}

describe('DynamoDB Streams source through the exactly-once runtime (moto DynamoDB Streams + real broker)', () => {
  const moto = (): StreamsService => ({
    endpoint: inject('motoEndpoint'),
    credentials: MOTO_CREDENTIALS,
  });
  const source = sourceHarness(moto);

  it('delivers every change once, in order per item, across two invocations', async () => {
    await source.deliversEveryChangeOnce();
  });

  it('delivers through the one task that owns the stream when two tasks share it', async () => {
    // Prepare: moto keeps one open shard per stream, so one of the two tasks owns it.
    const table = await source.createTable();
    const ids = ['a', 'b', 'c'];
    const { run, topic } = await source.deploy(table, 2);
    for (let step = 1; step <= 3; step++) {
      for (const id of ids) {
        await (step === 1 ? source.put(table, id, step) : source.update(table, id, step));
      }
    }

    // Act
    const results = [await run(0), await run(1)];
    const again = [await run(0), await run(1)];
    const report = await checkDelivery({
      kafka: testKafka(),
      topic,
      expected: new Map(ids.map((id) => [id, 3])),
      identify,
    });

    // Assess
    expect(results.map((r) => r.outcome)).toEqual(['completed', 'completed']);
    expect(results.map((r) => r.records).sort((x, y) => x - y)).toEqual([0, 9]);
    expect(again.map((r) => r.records)).toEqual([0, 0]);
    expect(report).toMatchObject({ duplicates: 0, losses: 0, reordered: 0, records: 9 });
  });
});

/**
 * The same through our stand-in (local/services/dynamodb-streams.ts, in front of dynalite),
 * which closes a shard every 5 records and opens a child: moto never closes a shard, so shard
 * lineage (a child read only after its parent, across tasks) is tested here.
 */
describe('DynamoDB Streams source through the exactly-once runtime (stand-in with shard rollovers + dynalite + real broker)', () => {
  let standIn: RunningDynamoDbStreams;

  // Registered before the harness's hooks, so the stand-in is up when they run.
  beforeAll(async () => {
    standIn = await startDynamoDbStreamsStandIn({
      dynaliteEndpoint: inject('dynamoEndpoint'),
      shardRolloverRecords: 5,
    });
  });

  afterAll(async () => {
    await standIn?.close();
  });

  const source = sourceHarness(() => ({
    endpoint: standIn.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  }));

  it('delivers every change once, in order per item, across shard rollovers and two invocations', async () => {
    await source.deliversEveryChangeOnce();
  });

  it('keeps each item in order when parent and child shards belong to different tasks', async () => {
    // Prepare: 18 changes of 3 items over shards of 5 records, spread over 2 tasks by shard id.
    const table = await source.createTable();
    const ids = ['a', 'b', 'c'];
    const { run, topic } = await source.deploy(table, 2);
    for (let step = 1; step <= 6; step++) {
      for (const id of ids) {
        await (step === 1 ? source.put(table, id, step) : source.update(table, id, step));
      }
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
