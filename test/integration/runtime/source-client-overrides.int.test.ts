import { logLevel } from 'kafkajs';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import { kafkaJsCodecs } from '../../../shared/adapters/kafkajs/codecs/kafkajs-codecs.js';
import type { KafkaAdminPort } from '../../../shared/ports/kafka.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { runSourceInvocation } from '../../../shared/runtime/source/source-task-runner.js';
import { testEngine } from '../../support/engine.js';
import { testPlugins } from '../../support/plugin-modules.js';
import {
  SEQUENCE_CONVERTERS,
  SEQUENCE_SOURCE_CLASS,
  sequenceSourceDescriptor,
} from '../../support/sequence-source.js';
import { testDynamo, testKafka, uniqueName } from '../../support/services.js';

const ADMIN_CLIENT_ID = 'source-client-overrides-admin';

async function countCommitted(topic: string, expected: number): Promise<number> {
  const consumer = testKafka().consumer({ groupId: uniqueName('count'), maxWaitTimeInMs: 100 });
  let count = 0;
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async () => {
      count += 1;
    },
  });
  const deadline = Date.now() + 20_000;
  while (count < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await consumer.disconnect();
  return count;
}

describe('source runtime with producer.override.* and admin.override.* (real broker + dynalite)', () => {
  let factory: KafkaJsClientFactory;
  let store: StateStore;
  let workerAdmin: KafkaAdminPort;
  const engines: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    const client = testDynamo();
    const tableName = uniqueName('state');
    await ensureTable(client, tableName);
    store = createDynamoDbStateStore({ client, tableName });
    factory = new KafkaJsClientFactory({
      brokers: inject('kafkaBrokers'),
      logLevel: logLevel.NOTHING,
    });
    workerAdmin = factory.admin();
  });

  afterAll(async () => {
    for (const built of engines) await built.close();
    await workerAdmin.close();
    await factory.close();
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  async function createConnector(overrides: Record<string, string>) {
    const name = uniqueName('overrides');
    const topic = `${name}-out`;
    await workerAdmin.createTopics([{ topic, partitions: 1 }]);
    const config = {
      name,
      'connector.class': SEQUENCE_SOURCE_CLASS,
      ...SEQUENCE_CONVERTERS,
      'offsets.storage.topic': `${name}-offsets`,
      topic,
      partitions: '0',
      total: '30',
      batch: '10',
      ...overrides,
    };
    await store.configs.createConnector(name, config);
    const set = await store.configs.putTaskConfigs(name, [config], 0);
    return { name, topic, generation: set.tasks[0]?.generation ?? 0 };
  }

  /** A container of its own over the shared store and Kafka clients. */
  async function container() {
    const built = await testEngine({
      store,
      kafka: factory,
      pluginModules: testPlugins(sequenceSourceDescriptor),
      settings: { source: { maxIdleMs: 300, idlePollMs: 20 } },
    });
    engines.push(built);
    return built.engine;
  }

  const invocation = (name: string, generation: number) => ({
    connector: name,
    task: 0,
    generation,
    owner: uniqueName('inv'),
    workerId: 'test-worker',
    deadline: Date.now() + 30_000,
  });

  it('compresses with the connector codec and runs admin calls on its own admin client', async () => {
    // Prepare
    const { name, topic, generation } = await createConnector({
      'producer.override.compression.type': 'zstd',
      'admin.override.client.id': ADMIN_CLIENT_ID,
      'admin.override.request.timeout.ms': '15000',
    });
    const engine = await container();
    const perConnector = vi.spyOn(engine.source.producers, 'admin');
    const sharedCreate = vi.spyOn(engine.admin, 'createTopics');
    const compress = vi.spyOn(kafkaJsCodecs.zstd, 'compress');

    // Act
    const result = await runSourceInvocation(engine.source, invocation(name, generation));

    // Assess
    expect(result.error).toBeUndefined();
    expect(result.outcome).toBe('completed');
    expect(perConnector).toHaveBeenCalledWith({
      clientId: ADMIN_CLIENT_ID,
      requestTimeoutMs: 15_000,
    });
    expect(sharedCreate).not.toHaveBeenCalled(); // the offsets topic came from the connector's admin
    expect(compress).toHaveBeenCalled();
    expect(await countCommitted(topic, 30)).toBe(30);
  });

  it('fails the task with Connect-like messages when an override breaks exactly-once', async () => {
    // Prepare
    const { name, generation } = await createConnector({ 'producer.override.acks': '1' });

    // Act
    const result = await runSourceInvocation(
      (await container()).source,
      invocation(name, generation),
    );

    // Assess
    expect(result.outcome).toBe('failed');
    expect(result.error?.message).toBe(
      'Invalid value 1 for configuration producer.override.acks: Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.',
    );
    const status = await store.status.getTaskStatus({ connector: name, task: 0 });
    expect(status?.state).toBe('FAILED');
  });
});
