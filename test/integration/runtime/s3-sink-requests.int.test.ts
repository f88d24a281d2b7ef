import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import { logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import {
  type EsmSourceRecord,
  parseEsmEvent,
  toEsmEvent,
} from '../../../shared/adapters/lambda/esm-event.js';
import { RetriableError } from '../../../shared/connect/errors.js';
import type { PluginDescriptor } from '../../../shared/connect/plugin.js';
import type { S3SinkClient } from '../../../shared/plugins/connectors/s3-sink/s3-sink-client.js';
import { createS3SinkClient } from '../../../shared/plugins/connectors/s3-sink/s3-sink-config.js';
import { S3SinkConnector } from '../../../shared/plugins/connectors/s3-sink/s3-sink-connector.js';
import { systemClock } from '../../../shared/ports/clock.js';
import { runSinkInvocation } from '../../../shared/runtime/sink/sink-task-runner.js';
import { TASK_PARTITIONS_KEY } from '../../../shared/runtime/task/task-split.js';
import { testEngine } from '../../support/engine.js';
import { testPlugins } from '../../support/plugin-modules.js';
import { testDynamo, testS3, uniqueName } from '../../support/services.js';

/**
 * The S3 sink through the sink runtime, on s3rver and dynalite, counting requests: one state
 * read per invocation, no read of a staging object before appending to it (new ones are created
 * under `If-None-Match: *`, ones the warm task wrote are appended to from what it wrote under
 * `If-Match`), one read of it to seal its bucket, one PutObject per final object, and one sink
 * offset write per partition.
 */
describe('S3 sink requests per invocation (s3rver + dynalite)', () => {
  const requests = new Map<string, number>();
  const count = (name: string) => requests.set(name, (requests.get(name) ?? 0) + 1);
  const closers: (() => Promise<void>)[] = [];
  let bucket: string;

  beforeAll(async () => {
    bucket = uniqueName('requests').toLowerCase();
    await testS3().send(new CreateBucketCommand({ Bucket: bucket }));
  });

  afterAll(async () => {
    for (const close of closers) await close();
  });

  function counting(inner: S3SinkClient): S3SinkClient {
    return {
      ...inner,
      getObject: (b, k) => {
        count('GetObject');
        return inner.getObject(b, k);
      },
      putObject: (t, body, c) => {
        count(`PutObject ${c.kind}`);
        return inner.putObject(t, body, c);
      },
      listKeys: (b, prefix) => {
        count('ListObjectsV2');
        return inner.listKeys(b, prefix);
      },
      deleteObject: (b, k) => {
        count('DeleteObject');
        return inner.deleteObject(b, k);
      },
      destroy: () => inner.destroy(),
    };
  }

  async function listKeys(s3: S3Client, b: string, prefix: string): Promise<string[]> {
    const out = await s3.send(new ListObjectsV2Command({ Bucket: b, Prefix: prefix }));
    return (out.Contents ?? []).map((o) => o.Key ?? '').sort();
  }

  /** A sink connector on s3rver and dynalite, its S3 client wrapped by `wrap`; resolves `deliver`. */
  async function setup(wrap: (inner: S3SinkClient) => S3SinkClient) {
    const dynamo = testDynamo();
    dynamo.middlewareStack.add(
      (next, context) => async (args) => {
        count(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'countRequests' },
    );
    const tableName = uniqueName('state');
    await ensureTable(dynamo, tableName);
    const store = createDynamoDbStateStore({ client: dynamo, tableName, clock: systemClock });
    const deps = {
      clock: systemClock,
      createClient: (config: Parameters<typeof createS3SinkClient>[0]) =>
        wrap(createS3SinkClient(config)),
    };
    const sink: PluginDescriptor<'sink'> = {
      className: 'test.CountingS3SinkConnector',
      aliases: [],
      type: 'sink',
      version: new S3SinkConnector(deps).version(),
      create: () => new S3SinkConnector(deps),
    };
    const factory = new KafkaJsClientFactory({
      brokers: inject('kafkaBrokers'),
      logLevel: logLevel.NOTHING,
    });
    const built = await testEngine({ store, kafka: factory, pluginModules: testPlugins(sink) });
    closers.push(
      () => built.engine.close(),
      () => factory.close(),
    );
    const name = uniqueName('s3-sink');
    const topic = 'orders';
    const config = {
      name,
      'connector.class': sink.className,
      topics: topic,
      's3.bucket.name': bucket,
      's3.endpoint': inject('s3Endpoint'),
      's3.path.style.access': 'true',
      'aws.access.key.id': 'S3RVER',
      'aws.secret.access.key': 'S3RVER',
      'topics.dir': name,
      'flush.size': '10',
      'format.class': 'io.confluent.connect.s3.format.json.JsonFormat',
      'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable': 'false',
    };
    await store.configs.createConnector(name, config);
    await store.configs.putTaskConfigs(
      name,
      [{ ...config, [TASK_PARTITIONS_KEY]: `${topic}-0,${topic}-1` }],
      0,
    );
    const record = (partition: number, offset: number): EsmSourceRecord => ({
      topic,
      partition,
      offset,
      timestamp: 1_700_000_000_000 + offset,
      key: new TextEncoder().encode(`k${offset}`),
      value: new TextEncoder().encode(`{"p":${partition},"n":${offset}}`),
      headers: [],
    });
    const deliver = (offsets: readonly number[]) =>
      runSinkInvocation(built.engine.sink, {
        connector: name,
        records: () =>
          parseEsmEvent(
            JSON.parse(
              JSON.stringify(toEsmEvent([0, 1].flatMap((p) => offsets.map((o) => record(p, o))))),
            ),
          ),
        deadline: Date.now() + 30_000,
        workerId: 'it-worker',
      });
    return { name, topic, deliver };
  }

  it('reads state once per invocation and never reads an object before writing it', async () => {
    // Prepare: state on dynalite with its requests counted by command
    const { name, topic, deliver } = await setup(counting);
    // The first invocation starts the task (its status write, its reads of the config).
    await deliver([0, 1, 2]);
    requests.clear();

    // Act: four more batches of 3 per partition; flush.size 10, so bucket 0-9 is staged and
    // appended to until batch 9-11 completes it, and bucket 10-19 is staged from there
    for (const from of [3, 6, 9, 12]) await deliver([from, from + 1, from + 2]);

    // Assess
    expect(Object.fromEntries(requests)).toEqual({
      // The state read, one per invocation: the connector's Query and, in parallel, the
      // batch's sink offsets (BatchGetItem, state table v4).
      QueryCommand: 4,
      BatchGetItemCommand: 4,
      UpdateItemCommand: 8, // each partition's sink offset, per invocation
      // per partition: appends to the staged 0-9 twice, to the staged 10-19 once
      'PutObject replace': 6,
      // per partition: the final 0-9, written once, and the staged 10-19
      'PutObject create': 4,
      GetObject: 2, // the staged 0-9, read once to seal it (per partition)
      ListObjectsV2: 2, // the staging prefix, when bucket 0-9 completes (per partition)
      DeleteObject: 2, // the staged 0-9 once sealed
    });
    const s3 = testS3();
    const text = async (key: string) => {
      const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return out.Body?.transformToString();
    };
    for (const p of [0, 1]) {
      const prefix = `${name}/${topic}/partition=${p}/${topic}+${p}+`;
      expect(await text(`${prefix}00000000000000000000.json`)).toBe(
        Array.from({ length: 10 }, (_, n) => `{"p":${p},"n":${n}}\n`).join(''),
      );
      expect(await text(`_staging/${topic}+${p}/${prefix}00000000000000000010.json`)).toBe(
        Array.from({ length: 5 }, (_, n) => `{"p":${p},"n":${n + 10}}\n`).join(''),
      );
    }
  });

  it('writes each final key once, with flush.size records, through a crash and overlapping replays', async () => {
    // Prepare: successful writes counted per key; the first staging delete "crashes" (the
    // final object is written, the invocation fails, its offsets are not stored)
    const writes = new Map<string, number>();
    const wrote = (key: string) => writes.set(key, (writes.get(key) ?? 0) + 1);
    let crashes = 1;
    const perKey = (inner: S3SinkClient): S3SinkClient => ({
      ...inner,
      putObject: async (t, body, c) => {
        const etag = await inner.putObject(t, body, c);
        wrote(t.key);
        return etag;
      },
      completeMultipartUpload: async (b, k, id, parts, c) => {
        await inner.completeMultipartUpload(b, k, id, parts, c);
        wrote(k);
      },
      deleteObject: async (b, k) => {
        if (crashes-- > 0) throw new RetriableError('crash before the staging delete');
        return inner.deleteObject(b, k);
      },
      destroy: () => inner.destroy(),
    });
    const { name, topic, deliver } = await setup(perKey);
    const range = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, n) => from + n);

    // Act: the batch 7-12 completes bucket 0-9 and crashes; redelivered cut differently
    await deliver(range(0, 6));
    const crashed = await deliver(range(7, 12)).then(
      () => 'ok',
      () => 'failed',
    );
    for (const [from, to] of [
      [7, 8],
      [9, 15],
      [12, 22],
      [23, 31],
    ] as const) {
      await deliver(range(from, to));
    }

    // Assess
    expect(crashed).toBe('failed');
    const s3 = testS3();
    const finals = [...writes].filter(([key]) => key.startsWith(`${name}/`));
    expect(finals.map(([key]) => key.slice(key.lastIndexOf('+') + 1)).sort()).toEqual([
      '00000000000000000000.json',
      '00000000000000000000.json',
      '00000000000000000010.json',
      '00000000000000000010.json',
      '00000000000000000020.json',
      '00000000000000000020.json',
    ]);
    expect(finals.filter(([, n]) => n !== 1)).toEqual([]);
    for (const [key] of finals) {
      const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      const lines = ((await out.Body?.transformToString()) ?? '').split('\n').filter((l) => l);
      const start = Number(key.slice(key.lastIndexOf('+') + 1, -'.json'.length));
      expect(lines.map((l) => (JSON.parse(l) as { n: number }).n)).toEqual(range(start, start + 9));
    }
    const staged = await listKeys(s3, bucket, `_staging/${topic}+`);
    expect(staged.filter((k) => k.includes(`/${name}/`)).map((k) => k.slice(-25))).toEqual([
      '00000000000000000030.json',
      '00000000000000000030.json',
    ]);
  });
});
