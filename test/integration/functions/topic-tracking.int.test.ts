/**
 * The functions' topic tracking settings (`TOPIC_TRACKING_ENABLE`, `TOPIC_TRACKING_ALLOW_RESET`),
 * composed from the environment as in AWS, against the test broker and dynalite: the source-task
 * function records the topic its task writes to, the API function serves it and honours both
 * settings.
 */
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEnv } from '../../../functions/_env.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import type { PluginRegistry } from '../../../shared/connect/plugin.js';
import type { SourceConnector } from '../../../shared/connect/source.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { runSourceInvocation } from '../../../shared/runtime/source/source-task-runner.js';
import { functionEnvironment, proxyEvent } from '../../support/lambda-function.js';
import { testDynamo, uniqueName } from '../../support/services.js';

function lambdaContext(remainingMs: number): Context {
  const started = Date.now();
  return {
    awsRequestId: uniqueName('request'),
    functionName: 'source-task',
    logStreamName: 'local/stream',
    getRemainingTimeInMillis: () => remainingMs - (Date.now() - started),
  } as Context;
}

/** A datagen source `name` writing 20 records to `topic`, with its one task config written. */
async function datagen(
  store: StateStore,
  plugins: PluginRegistry,
  name: string,
  topic: string,
): Promise<number> {
  const config = { name, 'connector.class': 'datagen', 'kafka.topic': topic, iterations: '20' };
  await store.configs.createConnector(name, config);
  const connector = plugins.resolve('datagen', 'source').create() as SourceConnector;
  await connector.start(config, { requestTaskReconfiguration: () => {}, raiseError: () => {} });
  const set = await store.configs.putTaskConfigs(name, await connector.taskConfigs(1), 0);
  return set.tasks[0]?.generation ?? 0;
}

describe('functions: topic tracking from the environment', () => {
  const table = uniqueName('topics');
  let compose: typeof import('../../../functions/_compose.js');
  let api: typeof import('../../../functions/api/handler.js');
  let sourceTask: typeof import('../../../functions/source-task/handler.js');

  beforeAll(async () => {
    await ensureTable(testDynamo(), table);
    Object.assign(
      process.env,
      functionEnvironment(table, {
        TRANSACTIONAL_ID_PREFIX: uniqueName('sc'),
        TOPIC_TRACKING_ALLOW_RESET: 'false',
      }),
    );
    compose = await import('../../../functions/_compose.js');
    api = await import('../../../functions/api/handler.js');
    sourceTask = await import('../../../functions/source-task/handler.js');
  });

  afterAll(async () => {
    await compose.composition().close();
    delete process.env.TOPIC_TRACKING_ALLOW_RESET;
  });

  it('lists the topic a source task wrote to, and refuses the reset with TOPIC_TRACKING_ALLOW_RESET=false', async () => {
    // Prepare
    const { store, plugins } = compose.composition().engine;
    const name = uniqueName('tracked');
    const topic = `${name}-out`;
    const generation = await datagen(store, plugins, name, topic);
    // Act
    const run = await sourceTask.handler(
      { connector: name, task: 0, generation },
      lambdaContext(60_000),
    );
    const topics = await api.handler(
      proxyEvent('GET', `/connectors/${name}/topics`),
      lambdaContext(29_000),
    );
    await api.handler(proxyEvent('PUT', `/connectors/${name}/stop`), lambdaContext(29_000));
    const reset = await api.handler(
      proxyEvent('PUT', `/connectors/${name}/topics/reset`),
      lambdaContext(29_000),
    );
    // Assess
    expect(run).toMatchObject({ outcome: 'completed', records: 20 });
    expect(topics.statusCode).toBe(200);
    expect(JSON.parse(topics.body)).toEqual({ [name]: { topics: [topic] } });
    expect(reset.statusCode).toBe(403);
    expect(JSON.parse(reset.body)).toEqual({
      error_code: 403,
      message: 'Topic tracking reset is disabled.',
    });
  });

  it('records nothing in a container composed with TOPIC_TRACKING_ENABLE=false', async () => {
    // Prepare
    const disabled = compose.compose(readEnv({ ...process.env, TOPIC_TRACKING_ENABLE: 'false' }));
    try {
      const name = uniqueName('untracked');
      const topic = `${name}-out`;
      const generation = await datagen(disabled.engine.store, disabled.engine.plugins, name, topic);
      // Act
      const run = await runSourceInvocation(disabled.engine.source, {
        connector: name,
        task: 0,
        generation,
        owner: uniqueName('request'),
        workerId: 'untracked',
        deadline: Date.now() + 30_000,
      });
      // Assess
      expect(run).toMatchObject({ outcome: 'completed', records: 20 });
      expect(await disabled.engine.store.topics.listActiveTopics(name)).toEqual([]);
    } finally {
      await disabled.close();
    }
  });
});
