import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { ConfigError } from '../../../shared/connect/errors.js';
import type { SourceConnector } from '../../../shared/connect/source.js';
import { parseDatagenRecordIdentity } from '../../../shared/plugins/connectors/datagen/quickstarts.js';
import { checkDelivery } from '../../support/eos-checker.js';
import { functionEnvironment } from '../../support/lambda-function.js';
import { testDynamo, testKafka, uniqueName } from '../../support/services.js';

function lambdaContext(remainingMs: number): Context {
  const started = Date.now();
  return {
    awsRequestId: uniqueName('request'),
    functionName: 'source-task',
    logStreamName: 'local/stream',
    getRemainingTimeInMillis: () => remainingMs - (Date.now() - started),
  } as Context;
}

/** The Lambda entry point, composed from the environment as in AWS, against local services. */
describe('functions/source-task handler', () => {
  const table = uniqueName('state');
  let handlerModule: typeof import('../../../functions/source-task/handler.js');
  let compose: typeof import('../../../functions/_compose.js');

  beforeAll(async () => {
    await ensureTable(testDynamo(), table);
    Object.assign(
      process.env,
      functionEnvironment(table, {
        TRANSACTIONAL_ID_PREFIX: uniqueName('sc'),
        // In Lambda no variable is readable through ${env:...} unless the operator allows it.
        CONFIG_PROVIDERS_ENV_PARAM_ALLOWLIST_PATTERN: 'SC_TEST_.*',
      }),
    );
    compose = await import('../../../functions/_compose.js');
    handlerModule = await import('../../../functions/source-task/handler.js');
  });

  afterAll(async () => {
    await compose.composition().close();
  });

  it('runs a datagen task to its end and reports what it committed', async () => {
    const { store, plugins } = compose.composition().engine;
    const name = uniqueName('orders');
    const topic = `${name}-out`;
    const config = {
      name,
      'connector.class': 'datagen',
      'kafka.topic': topic,
      quickstart: 'orders',
      'source.partitions': '2',
      iterations: '120',
      'records.per.poll': '50',
      'topic.creation.default.partitions': '3',
      'topic.creation.default.replication.factor': '1',
      'producer.override.compression.type': 'gzip',
    };
    await store.configs.createConnector(name, config);
    const connector = plugins.resolve('datagen', 'source').create() as SourceConnector;
    await connector.start(config, { requestTaskReconfiguration: () => {}, raiseError: () => {} });
    const set = await store.configs.putTaskConfigs(name, await connector.taskConfigs(1), 0);

    const result = await handlerModule.handler(
      { connector: name, task: 0, generation: set.tasks[0]?.generation },
      lambdaContext(60_000),
    );

    expect(result.error).toBeUndefined();
    expect(result).toMatchObject({ outcome: 'completed', records: 240 });
    const report = await checkDelivery({
      kafka: testKafka(),
      topic,
      expected: new Map([
        ['0', 120],
        ['1', 120],
      ]),
      identify: (value) => {
        const id = parseDatagenRecordIdentity(value === null ? null : new Uint8Array(value));
        return { partition: String(id.partition), seq: id.seq };
      },
    });
    // Orders are keyed by order id, so one source partition spreads over the topic's three
    // partitions: exactly once holds, but no cross-partition order does.
    expect(report).toMatchObject({ duplicates: 0, losses: 0, records: 240 });
    expect((await store.status.getTaskStatus({ connector: name, task: 0 }))?.state).toBe('RUNNING');
    // topic.creation.default.* created the output topic (the broker's auto-creation gives 1).
    expect(await compose.composition().engine.admin.partitionCounts([topic])).toEqual(
      new Map([[topic, 3]]),
    );
  });

  it('resolves config placeholders at task start and keeps them unresolved in the store', async () => {
    const { store, plugins } = compose.composition().engine;
    const name = uniqueName('secret');
    const topic = `${name}-resolved`;
    process.env.SC_TEST_DATAGEN_TOPIC = topic;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Kafka config placeholder, not a template
    const placeholder = '${env:SC_TEST_DATAGEN_TOPIC}';
    const config = {
      name,
      'connector.class': 'datagen',
      'kafka.topic': placeholder,
      iterations: '10',
    };
    await store.configs.createConnector(name, config);
    const connector = plugins.resolve('datagen', 'source').create() as SourceConnector;
    await connector.start(config, { requestTaskReconfiguration: () => {}, raiseError: () => {} });
    const set = await store.configs.putTaskConfigs(name, await connector.taskConfigs(1), 0);

    const result = await handlerModule.handler(
      { connector: name, task: 0, generation: set.tasks[0]?.generation },
      lambdaContext(60_000),
    );

    expect(result).toMatchObject({ outcome: 'completed', records: 10 });
    expect(await compose.composition().engine.admin.listTopics()).toContain(topic);
    expect((await store.configs.getConnector(name))?.config['kafka.topic']).toBe(placeholder);
  });

  it('rejects a malformed event with a clear error', async () => {
    await expect(
      handlerModule.handler({ connector: 'x', task: -1 }, lambdaContext(1000)),
    ).rejects.toThrow(ConfigError);
  });
});
