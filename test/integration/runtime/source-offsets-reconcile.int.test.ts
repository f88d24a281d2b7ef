import {
  type AttributeValue,
  BatchWriteItemCommand,
  type DynamoDBClient,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import type { Engine } from '../../../shared/engine/engine.js';
import { KAFKA_OFFSETS_TASK } from '../../../shared/ports/offset-store.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import {
  runSourceInvocation,
  type SourceRunResult,
} from '../../../shared/runtime/source/source-task-runner.js';
import { testEngine } from '../../support/engine.js';
import { checkDelivery } from '../../support/eos-checker.js';
import { testPlugins } from '../../support/plugin-modules.js';
import {
  SEQUENCE_CONVERTERS,
  SEQUENCE_SOURCE_CLASS,
  sequenceSourceDescriptor,
} from '../../support/sequence-source.js';
import { testDynamo, testKafka, uniqueName } from '../../support/services.js';

type Item = Record<string, AttributeValue>;

/** A state table of its own (the one a deployment would lose, or restore). */
async function freshTable(client: DynamoDBClient): Promise<{ name: string; store: StateStore }> {
  const name = uniqueName('state');
  await ensureTable(client, name);
  return { name, store: createDynamoDbStateStore({ client, tableName: name }) };
}

async function scanAll(client: DynamoDBClient, table: string): Promise<Item[]> {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const out = await client.send(
      new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start !== undefined);
  return items;
}

async function batchWrite(
  client: DynamoDBClient,
  table: string,
  requests: NonNullable<
    ConstructorParameters<typeof BatchWriteItemCommand>[0]['RequestItems']
  >[string],
) {
  for (let i = 0; i < requests.length; i += 25) {
    await client.send(
      new BatchWriteItemCommand({ RequestItems: { [table]: requests.slice(i, i + 25) } }),
    );
  }
}

/** Puts the table back as `snapshot` had it: a point-in-time restore. */
async function restore(client: DynamoDBClient, table: string, snapshot: Item[]): Promise<void> {
  const now = await scanAll(client, table);
  await batchWrite(
    client,
    table,
    now.map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } as Item } })),
  );
  await batchWrite(
    client,
    table,
    snapshot.map((item) => ({ PutRequest: { Item: item } })),
  );
}

/** Every (p, seq) of the topic, read_committed: duplicates and losses against 1..total. */
async function audit(topic: string, partitions: number, total: number) {
  const kafka = testKafka();
  const report = await checkDelivery({
    kafka,
    topic,
    expected: new Map(Array.from({ length: partitions }, (_, p) => [String(p), total])),
    identify: (value) => {
      const { p, seq } = JSON.parse(value?.toString() ?? '{}') as { p: number; seq: number };
      return { partition: String(p), seq };
    },
  });
  return { duplicates: report.duplicates, losses: report.losses };
}

describe('source offsets: Kafka stays the truth when the state table is lost or restored', () => {
  let factory: KafkaJsClientFactory;
  let dynamo: DynamoDBClient;

  beforeAll(() => {
    factory = new KafkaJsClientFactory({
      brokers: inject('kafkaBrokers'),
      logLevel: logLevel.NOTHING,
    });
    dynamo = testDynamo();
  });

  afterAll(async () => {
    await factory.close();
  });

  /** The sequence connector (2 source partitions of `total` records) in `store`; its generation. */
  async function createConnector(store: StateStore, name: string, total: number) {
    const config = {
      name,
      'connector.class': SEQUENCE_SOURCE_CLASS,
      ...SEQUENCE_CONVERTERS,
      'offsets.storage.topic': `${name}-offsets`,
      topic: `${name}-out`,
      partitions: '0,1',
      total: String(total),
      batch: '10',
    };
    await store.configs.createConnector(name, config);
    const set = await store.configs.putTaskConfigs(name, [config], 0);
    return set.tasks[0]?.generation ?? 0;
  }

  /** A container: an engine over `store` whose invocations stop after `cap` records. */
  async function container(store: StateStore, cap = 1_000_000) {
    return testEngine({
      store,
      kafka: factory,
      pluginModules: testPlugins(sequenceSourceDescriptor),
      settings: { source: { maxIdleMs: 300, idlePollMs: 20, maxRecordsPerInvocation: cap } },
    });
  }

  function invoke(engine: Engine, name: string, generation: number): Promise<SourceRunResult> {
    return runSourceInvocation(engine.source, {
      connector: name,
      task: 0,
      generation,
      owner: uniqueName('inv'),
      workerId: 'test-worker',
      deadline: Date.now() + 30_000,
    });
  }

  /** One invocation in a container of its own (a cold start). */
  async function coldInvoke(store: StateStore, name: string, generation: number, cap?: number) {
    const { engine, close } = await container(store, cap);
    try {
      return await invoke(engine, name, generation);
    } finally {
      await close();
    }
  }

  it('resumes from the offsets topic after the table was lost and the connector re-created', async () => {
    // Prepare: 40 of 60 records per partition written with the first table.
    const name = uniqueName('lost');
    const first = await freshTable(dynamo);
    const generation = await createConnector(first.store, name, 60);
    const before = await coldInvoke(first.store, name, generation, 80);
    // Act: a new, empty table (the old one is gone); the user re-creates the connector.
    const second = await freshTable(dynamo);
    const recreated = await createConnector(second.store, name, 60);
    const after = await coldInvoke(second.store, name, recreated);
    // Assess
    expect(before.error).toBeUndefined();
    expect(before).toMatchObject({ outcome: 'completed', records: 80 });
    expect(after.outcome).toBe('completed');
    expect(await audit(`${name}-out`, 2, 60)).toEqual({ duplicates: 0, losses: 0 });
    expect(after.reconcile?.adopted).toBe(2);
    expect(after.records).toBe(40);
    const kafkaEntry = await second.store.offsets.getKafkaSourceOffsets(name);
    expect(kafkaEntry.watermark?.topic).toBe(`${name}-offsets`);
    const listed = await second.store.offsets.listSourceOffsets(name);
    expect(listed[0]?.task).toBe(KAFKA_OFFSETS_TASK);
  });

  it('resumes where it was when the connector is deleted and created again under its name', async () => {
    // Prepare: 20 of 40 records per partition written, then DELETE /connectors/{name}.
    const name = uniqueName('deleted');
    const { store } = await freshTable(dynamo);
    const generation = await createConnector(store, name, 40);
    const before = await coldInvoke(store, name, generation, 40);
    await store.configs.deleteConnector(name, { keepOffsets: true });
    // Act
    const recreated = await createConnector(store, name, 40);
    const after = await coldInvoke(store, name, recreated);
    // Assess: the offsets were kept, as Kafka Connect keeps them; nothing written twice.
    expect(before.records).toBe(40);
    expect(await audit(`${name}-out`, 2, 40)).toEqual({ duplicates: 0, losses: 0 });
    expect(after.records).toBe(40);
  });

  it('resumes from the offsets topic after the table was restored to an earlier copy', async () => {
    const name = uniqueName('restored');
    const { name: table, store } = await freshTable(dynamo);
    const generation = await createConnector(store, name, 90);
    const first = await coldInvoke(store, name, generation, 60);
    const snapshot = await scanAll(dynamo, table);
    const second = await coldInvoke(store, name, generation, 60);
    // Act: the table goes back to the copy taken between the two invocations.
    await restore(dynamo, table, snapshot);
    const third = await coldInvoke(store, name, generation);
    // Assess
    expect([first.records, second.records]).toEqual([60, 60]);
    expect(await audit(`${name}-out`, 2, 90)).toEqual({ duplicates: 0, losses: 0 });
    expect(third.reconcile?.adopted).toBe(2);
    expect(third.records).toBe(60);
  });

  it('reads the topic once per task start in a container, and again when the table moved under it', async () => {
    const name = uniqueName('warm');
    const { name: table, store } = await freshTable(dynamo);
    const generation = await createConnector(store, name, 50);
    const { engine, close } = await container(store, 20);
    try {
      const cold = await invoke(engine, name, generation);
      const snapshot = await scanAll(dynamo, table);
      const warm = await invoke(engine, name, generation);
      await restore(dynamo, table, snapshot);
      const afterRestore = await invoke(engine, name, generation);
      const rest = [await invoke(engine, name, generation), await invoke(engine, name, generation)];
      // Assess: the cold start read the topic (nothing to adopt), the warm one did not, the one
      // after the restore read it and adopted both partitions.
      expect(cold.reconcile).toEqual({ read: 0, adopted: 0 });
      expect(warm.reconcile).toBeUndefined();
      expect(afterRestore.reconcile?.adopted).toBe(2);
      expect(rest.map((r) => r.reconcile)).toEqual([undefined, undefined]);
      expect(await audit(`${name}-out`, 2, 50)).toEqual({ duplicates: 0, losses: 0 });
    } finally {
      await close();
    }
  });

  it('keeps a REST offsets reset in the offsets topic, so a lost table starts the partitions afresh', async () => {
    // Prepare: 30 of 30 records per partition written, then the connector stopped.
    const name = uniqueName('reset');
    const first = await freshTable(dynamo);
    const generation = await createConnector(first.store, name, 30);
    await coldInvoke(first.store, name, generation);
    await first.store.configs.setTargetState(name, 'STOPPED');
    const tasks = await first.store.configs.getTaskConfigs(name);
    const stopped = await first.store.configs.putTaskConfigs(name, [], tasks.version);
    await first.store.configs.clearFencing(name, stopped.version);
    const { engine, close } = await container(first.store);
    try {
      // Act: DELETE /connectors/{name}/offsets; then the table is lost and the connector re-created.
      await engine.service.offsets.reset(name);
    } finally {
      await close();
    }
    const second = await freshTable(dynamo);
    const recreated = await createConnector(second.store, name, 30);
    const after = await coldInvoke(second.store, name, recreated);
    // Assess: the reset holds (every record again), though the table that recorded it is gone.
    expect(after.records).toBe(60);
    expect(after.reconcile?.adopted).toBe(2);
    const kafkaEntry = await second.store.offsets.getKafkaSourceOffsets(name);
    expect(kafkaEntry.offsets.map((e) => e.offset)).toEqual([null, null]);
  });
});
