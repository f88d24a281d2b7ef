import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { logLevel } from 'kafkajs';
import { describe, expect, inject, it } from 'vitest';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import type { SourceConnector } from '../../../shared/connect/source.js';
import {
  AbandonedInvocation,
  runSourceInvocation,
} from '../../../shared/runtime/source/source-task-runner.js';
import type { SourceCheckpoint } from '../../../shared/runtime/source/source-transaction.js';
import { testEngine } from '../../support/engine.js';
import { checkDelivery } from '../../support/eos-checker.js';
import { testDynamo, testKafka, testS3, uniqueName } from '../../support/services.js';

/** S3 objects → the S3 source connector → the exactly-once runner → Kafka, with a crash. */
describe('S3 source through the exactly-once runtime (s3rver + real broker + dynalite)', () => {
  it('delivers every line of every object exactly once, across a crash after the commit', async () => {
    const s3 = testS3();
    const bucket = uniqueName('lines');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    for (const file of ['a', 'b', 'c']) {
      const body = Array.from({ length: 40 }, (_, i) => JSON.stringify({ file, seq: i + 1 })).join(
        '\n',
      );
      await s3.send(
        new PutObjectCommand({ Bucket: bucket, Key: `in/${file}/part.jsonl`, Body: body }),
      );
    }
    const dynamo = testDynamo();
    const tableName = uniqueName('state');
    await ensureTable(dynamo, tableName);
    const clock = { skew: 0, now: () => Date.now() + clock.skew };
    const store = createDynamoDbStateStore({ client: dynamo, tableName, clock });
    const factory = new KafkaJsClientFactory({
      brokers: inject('kafkaBrokers'),
      logLevel: logLevel.NOTHING,
    });
    const name = uniqueName('s3src');
    const topic = `${name}-out`;
    const config = {
      name,
      'connector.class': 's3-source',
      's3.bucket.name': bucket,
      's3.prefix': 'in/',
      's3.endpoint': inject('s3Endpoint'),
      'aws.access.key.id': 'S3RVER',
      'aws.secret.access.key': 'S3RVER',
      topic,
      format: 'jsonl',
      'batch.max.rows': '25',
      'value.converter.schemas.enable': 'false',
      'exactly.once.support': 'required',
    };
    await store.configs.createConnector(name, config);
    /** A container of its own (an engine over the shared state and Kafka clients). */
    const container = (checkpoint?: (point: SourceCheckpoint) => Promise<void>) =>
      testEngine({
        store,
        kafka: factory,
        clock,
        ...(checkpoint === undefined ? {} : { checkpoint }),
        settings: { source: { maxIdleMs: 500, idlePollMs: 50 } },
      });
    const setup = await container();
    const connector = setup.engine.plugins
      .resolve('s3-source', 'source')
      .create() as SourceConnector;
    await connector.start(config, { requestTaskReconfiguration: () => {}, raiseError: () => {} });
    const set = await store.configs.putTaskConfigs(name, await connector.taskConfigs(1), 0);
    await connector.stop();
    await setup.close();
    /** One invocation in a container of its own, closed when it ends (or crashes). */
    const run = async (crashAfterCommit: boolean) => {
      const { engine, close } = await container(
        crashAfterCommit
          ? async (point) => {
              if (point === 'after-commit') throw new Error('crash');
            }
          : undefined,
      );
      try {
        return await runSourceInvocation(engine.source, {
          connector: name,
          task: 0,
          generation: set.tasks[0]?.generation ?? 0,
          owner: uniqueName('inv'),
          workerId: 'test',
          deadline: clock.now() + 30_000,
        });
      } finally {
        await close();
      }
    };

    await expect(run(true)).rejects.toBeInstanceOf(AbandonedInvocation);
    clock.skew += 60_000;
    const result = await run(false);

    expect(result.outcome).toBe('completed');
    expect(result.recovery).toEqual({ kind: 'promoted' });
    const report = await checkDelivery({
      kafka: testKafka(),
      topic,
      expected: new Map(['a', 'b', 'c'].map((f) => [f, 40])),
      identify: (value) => {
        const { file, seq } = JSON.parse(value?.toString() ?? '{}') as {
          file: string;
          seq: number;
        };
        return { partition: file, seq };
      },
    });
    expect(report).toMatchObject({ duplicates: 0, losses: 0, reordered: 0, records: 120 });
  });
});
