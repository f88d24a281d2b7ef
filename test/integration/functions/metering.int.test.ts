import { CreateBucketCommand } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { requestClasses } from '../../../bench/cost.js';
import { installRequestCounter, requestCounts } from '../../../bench/request-counter.js';
import type { Composition } from '../../../functions/_compose.js';
import { localLambdaContext } from '../../../local/esm/lambda-context.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { type EsmSourceRecord, toEsmEvent } from '../../../shared/adapters/lambda/esm-event.js';
import type { SourceConnector } from '../../../shared/connect/source.js';
import type { Usage } from '../../../shared/ports/metering.js';
import { HOUR_MS } from '../../../shared/runtime/metering/metering.js';
import { recordBytes } from '../../../shared/runtime/metering/record-bytes.js';
import { sumUsage } from '../../../shared/runtime/metering/usage.js';
import { sinkFunctionAlias } from '../../../shared/runtime/sink/function-alias.js';
import { TASK_PARTITIONS_KEY } from '../../../shared/runtime/task/task-split.js';
import { functionEnvironment } from '../../support/lambda-function.js';
import { testDynamo, testS3, uniqueName } from '../../support/services.js';
import { readTopicRecords } from '../../support/topic-reader.js';

/** The requests this process sent since `before`, by `<service>:<operation>` (bench's witness). */
function requestsSince(before: ReadonlyMap<string, number>): Record<string, number> {
  const grown: Record<string, number> = {};
  for (const [key, n] of requestCounts()) {
    const delta = n - (before.get(key) ?? 0);
    if (delta > 0 && !key.startsWith('kafka:')) grown[key] = delta;
  }
  return grown;
}

/** Everything `connector` consumed, over the hours this test can span. */
async function usageOf(composition: Composition, connector: string): Promise<Usage> {
  const now = Date.now();
  const hours = await composition.engine.store.usage.readUsage(connector, {
    fromHour: now - 2 * HOUR_MS,
    toHour: now + HOUR_MS,
  });
  return sumUsage(hours.map((h) => h.usage));
}

/**
 * The metering through the functions as Lambda runs them: the composition of
 * functions/_compose.ts over dynalite, s3rver and the test broker, the handlers invoked with a
 * Lambda context of 1,024 MB. What the metering recorded is compared with what this process
 * sent, counted apart on Node's HTTP diagnostics channel (bench/request-counter.ts): every
 * DynamoDB and S3 request is metered, except the last invocation's own usage write, which a
 * container carries to its next invocation.
 */
describe('metering through the functions (dynalite, s3rver, broker)', () => {
  const table = uniqueName('state');
  const bucket = uniqueName('metering').toLowerCase();
  const topic = uniqueName('orders');
  let compose: typeof import('../../../functions/_compose.js');
  let sourceHandler: typeof import('../../../functions/source-task/handler.js');
  let sinkHandler: typeof import('../../../functions/sink-task/handler.js');
  const compositions: Composition[] = [];
  /** A container of its own (a fresh composition: nothing carried from another test). */
  const container = (): Composition => {
    const made = compose.compose();
    compositions.push(made);
    return made;
  };
  let produced: EsmSourceRecord[] = [];

  beforeAll(async () => {
    installRequestCounter();
    Object.assign(
      process.env,
      functionEnvironment(table, { TRANSACTIONAL_ID_PREFIX: uniqueName('sc') }),
    );
    compose = await import('../../../functions/_compose.js');
    sourceHandler = await import('../../../functions/source-task/handler.js');
    sinkHandler = await import('../../../functions/sink-task/handler.js');
    await ensureTable(testDynamo(), table);
    await testS3().send(new CreateBucketCommand({ Bucket: bucket }));
  });

  afterAll(async () => {
    for (const composition of compositions) await composition.close();
  });

  it('meters a datagen source invocation: its duration, its requests, the records it produced', async () => {
    // Prepare: 2 source partitions x 60 records, one task
    const composition = container();
    const { store, plugins } = composition.engine;
    const name = uniqueName('datagen');
    const config = {
      name,
      'connector.class': 'datagen',
      'kafka.topic': topic,
      quickstart: 'orders',
      'source.partitions': '2',
      iterations: '60',
      'records.per.poll': '50',
      'topic.creation.default.partitions': '2',
      'topic.creation.default.replication.factor': '1',
    };
    await store.configs.createConnector(name, config);
    const connector = plugins.resolve('datagen', 'source').create() as SourceConnector;
    await connector.start(config, { requestTaskReconfiguration: () => {}, raiseError: () => {} });
    const set = await store.configs.putTaskConfigs(name, await connector.taskConfigs(1), 0);
    const handler = sourceHandler.sourceTaskHandler(() => composition.engine);
    const context: Context = {
      ...localLambdaContext({ functionName: 'source-task', timeoutMs: 70_000 }),
      memoryLimitInMB: '1024',
    };
    const before = requestCounts();
    const started = performance.now();

    // Act
    const result = await handler(
      { connector: name, task: 0, generation: set.tasks[0]?.generation },
      context,
    );
    const wallMs = performance.now() - started;
    const sent = requestsSince(before);

    // Assess
    expect(result).toMatchObject({ outcome: 'completed', records: 120 });
    produced = await readTopicRecords(topic, 120);
    const classes = requestClasses(sent);
    const usage = await usageOf(composition, name);
    expect(usage).toMatchObject({
      invocations: 1,
      kafkaRecordsOut: 120,
      kafkaBytesOut: produced.reduce((sum, record) => sum + recordBytes(record), 0),
      dynamoReads: classes.dynamoReads,
      // The invocation's own usage write is carried to the container's next invocation.
      dynamoWrites: classes.dynamoWrites - 1,
      s3Tier1Requests: 0,
      apiCalls: 0,
    });
    expect(classes.dynamoOther).toBe(0);
    expect(usage.dynamoReadUnits).toBeGreaterThanOrEqual(usage.dynamoReads);
    expect(usage.dynamoWriteUnits).toBeGreaterThanOrEqual(usage.dynamoWrites);
    // Billed duration: the handler's time, rounded up, less only the usage write at its end.
    expect(usage.lambdaMs).toBeLessThanOrEqual(Math.ceil(wallMs) + 1);
    expect(usage.lambdaMs).toBeGreaterThan(wallMs - 1_000);
    expect(usage.lambdaMbMs).toBe(usage.lambdaMs * 1024);
  });

  it('meters S3 sink invocations: every S3 request by price class, the records consumed', async () => {
    // Prepare: an S3 sink of the datagen topic, fed the produced records in 3 batches
    expect(produced).toHaveLength(120);
    const composition = container();
    const { store } = composition.engine;
    const name = uniqueName('s3-sink');
    const config = {
      name,
      'connector.class': 's3-sink',
      topics: topic,
      's3.bucket.name': bucket,
      's3.endpoint': inject('s3Endpoint'),
      's3.path.style.access': 'true',
      'aws.access.key.id': 'S3RVER',
      'aws.secret.access.key': 'S3RVER',
      'topics.dir': name,
      'flush.size': '25',
      'format.class': 'io.confluent.connect.s3.format.bytearray.ByteArrayFormat',
      'value.converter': 'org.apache.kafka.connect.converters.ByteArrayConverter',
    };
    await store.configs.createConnector(name, config);
    await store.configs.putTaskConfigs(
      name,
      [{ ...config, [TASK_PARTITIONS_KEY]: `${topic}-0,${topic}-1` }],
      0,
    );
    const handler = sinkHandler.sinkTaskHandler(() => composition.engine);
    const batches = [produced.slice(0, 40), produced.slice(40, 80), produced.slice(80)];
    const before = requestCounts();

    // Act
    for (const batch of batches) {
      await handler(
        JSON.parse(JSON.stringify(toEsmEvent(batch))),
        localLambdaContext({ alias: sinkFunctionAlias(name), timeoutMs: 60_000 }),
      );
    }
    const sent = requestsSince(before);

    // Assess
    const classes = requestClasses(sent);
    const usage = await usageOf(composition, name);
    expect(classes.s3Tier1).toBeGreaterThan(0);
    expect(usage).toMatchObject({
      invocations: 3,
      kafkaRecordsIn: 120,
      kafkaBytesIn: produced.reduce((sum, record) => sum + recordBytes(record), 0),
      s3Tier1Requests: classes.s3Tier1,
      s3Tier2Requests: classes.s3Tier2,
      dynamoReads: classes.dynamoReads,
      dynamoWrites: classes.dynamoWrites - 1,
    });
    expect(usage.lambdaMbMs).toBe(usage.lambdaMs * 1024);
  });
});
