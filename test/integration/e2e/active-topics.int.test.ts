/**
 * Active topic tracking (KIP-558) end to end: the local runtime (real broker, dynalite, s3rver)
 * driven through the Kafka Connect REST API only. A datagen source and an S3 sink list their
 * topic under `GET /connectors/{c}/topics`; the topics survive connector and runtime restarts;
 * a reset is refused while the connector runs and works once it is stopped; with
 * `topic.tracking.enable=false` the endpoints answer 403 and nothing is recorded.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { type LocalRuntime, startLocalRuntime } from '../../../local/runtime/start.js';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import type { TopicTrackingOptions } from '../../../shared/control-plane/connectors.js';
import { type Body, committedSeq, isRunning, readers, sinkOffset } from './connector-views.js';
import {
  connectorPath,
  datagenConfig,
  eventually,
  type Http,
  httpClient,
  s3SinkConfig,
  sleep,
  uniqueName,
} from './support.js';

/** A fast-paced local runtime (as `startE2eRuntime`) with the given state folder and settings. */
async function startRuntime(
  logs: string[],
  options: { dataDir?: string; topicTracking?: TopicTrackingOptions; prefix: string },
): Promise<LocalRuntime> {
  return startLocalRuntime({
    port: 0,
    s3Port: 0,
    ...(options.dataDir === undefined ? { memory: true } : { dataDir: options.dataDir }),
    brokers: inject('kafkaBrokers'),
    transactionalIdPrefix: options.prefix,
    kafkaClusterId: 'topics-cluster',
    enumeratorIntervalMs: 1_000,
    sourceBudgetMs: 5_000,
    sourceSettings: { maxIdleMs: 500, idlePollMs: 20, assignmentCheckMs: 200 },
    logLevel: 'info',
    ...(options.topicTracking === undefined ? {} : { topicTracking: options.topicTracking }),
    writeLog: (line) => {
      logs.push(line);
      if (logs.length > 2_000) logs.splice(0, 1_000);
    },
  });
}

/** `GET /connectors/{name}/topics`. */
async function topicsOf(http: Http, name: string): Promise<Body> {
  return (await http('GET', connectorPath(name, '/topics'))).body;
}

describe('active topics through the REST API, tracking enabled', () => {
  const logs: string[] = [];
  const prefix = uniqueName('topics');
  const topic = uniqueName('topics-orders');
  const source = uniqueName('topics-src');
  const sink = uniqueName('topics-sink');
  let dataDir: string;
  let runtime: LocalRuntime | undefined;
  let http: Http;
  let status: (name: string) => Promise<Body>;
  let offsets: (name: string) => Promise<Body>;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'active-topics-'));
    runtime = await startRuntime(logs, { dataDir, prefix });
    http = httpClient(runtime.url);
    ({ status, offsets } = readers(http));
  });

  afterAll(async () => {
    await runtime?.close();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(logs.slice(-40).join('\n'));
  });

  it('lists the topic a source writes to and the topic a sink reads, through a connector restart', async () => {
    // Prepare
    const live = runtime as LocalRuntime;
    // Act
    await http(
      'PUT',
      connectorPath(source, '/config'),
      datagenConfig(topic, { 'rate.per.second': '200' }),
    );
    const beforeAnyRecord = await topicsOf(http, sink);
    await http('PUT', connectorPath(sink, '/config'), s3SinkConfig(live, topic));
    // Assess
    expect(beforeAnyRecord).toEqual({ [sink]: { topics: [] } });
    await eventually(
      () => topicsOf(http, source),
      (t) => t?.[source]?.topics?.length === 1,
      30_000,
      'the source topic',
    );
    expect(await topicsOf(http, source)).toEqual({ [source]: { topics: [topic] } });
    await eventually(
      () => topicsOf(http, sink),
      (t) => t?.[sink]?.topics?.length === 1,
      45_000,
      'the sink topic',
    );
    expect(await topicsOf(http, sink)).toEqual({ [sink]: { topics: [topic] } });

    // Act: restart both connectors and their tasks
    const restarted = await Promise.all(
      [source, sink].map((name) =>
        http('POST', connectorPath(name, '/restart?includeTasks=true&onlyFailed=false')),
      ),
    );
    // Assess
    expect(restarted.map((r) => r.status)).toEqual([202, 202]);
    expect(await topicsOf(http, source)).toEqual({ [source]: { topics: [topic] } });
    expect(await topicsOf(http, sink)).toEqual({ [sink]: { topics: [topic] } });
    await eventually(
      () => status(source),
      (s) => isRunning(s, 1),
      30_000,
      'source RUNNING',
    );
    const seqAfterRestart = committedSeq(await offsets(source));
    await eventually(
      () => offsets(source),
      (o) => committedSeq(o) > seqAfterRestart,
      30_000,
      'records after the restart',
    );
    expect(await topicsOf(http, source)).toEqual({ [source]: { topics: [topic] } });
  }, 150_000);

  it('refuses a reset while the connector runs or is paused, resets it once stopped, and records again after resume', async () => {
    // Act: running, then paused
    const whileRunning = await http('PUT', connectorPath(source, '/topics/reset'));
    await http('PUT', connectorPath(source, '/pause'));
    const whilePaused = await http('PUT', connectorPath(source, '/topics/reset'));
    // Assess
    expect(whileRunning.status).toBe(409);
    expect(whileRunning.body).toEqual({
      error_code: 409,
      message: `Connector ${source} is RUNNING: its active topics can be reset only while it is STOPPED. Stop it first with a 'PUT' request to the '/connectors/${source}/stop' endpoint`,
    });
    expect(whilePaused.status).toBe(409);
    expect(whilePaused.body.message).toContain(`Connector ${source} is PAUSED`);
    expect(await topicsOf(http, source)).toEqual({ [source]: { topics: [topic] } });

    // Act: stopped
    expect((await http('PUT', connectorPath(source, '/stop'))).status).toBe(204);
    const reset = await http('PUT', connectorPath(source, '/topics/reset'));
    const afterReset = await topicsOf(http, source);
    await sleep(1_500); // nothing runs while stopped, so nothing records the topic again
    const stillStopped = await topicsOf(http, source);
    // Assess
    expect(reset.status).toBe(202);
    expect(afterReset).toEqual({ [source]: { topics: [] } });
    expect(stillStopped).toEqual({ [source]: { topics: [] } });
    expect(await topicsOf(http, sink)).toEqual({ [sink]: { topics: [topic] } });

    // Act: resumed, the new tasks write to the topic again
    expect((await http('PUT', connectorPath(source, '/resume'))).status).toBe(202);
    // Assess
    await eventually(
      () => topicsOf(http, source),
      (t) => t?.[source]?.topics?.length === 1,
      30_000,
      'the source topic recorded again',
    );
    expect(await topicsOf(http, source)).toEqual({ [source]: { topics: [topic] } });
  }, 120_000);

  it('keeps the topics through a restart of the runtime', async () => {
    // Prepare: the sink is stopped first (its stored config names this runtime's s3rver port)
    await eventually(
      () => offsets(sink),
      (o) => sinkOffset(o) > 0,
      45_000,
      'sink progress',
    );
    expect((await http('PUT', connectorPath(sink, '/stop'))).status).toBe(204);
    // Act
    await runtime?.close();
    runtime = undefined;
    runtime = await startRuntime(logs, { dataDir, prefix });
    http = httpClient(runtime.url);
    ({ status, offsets } = readers(http));
    // Assess
    expect(await topicsOf(http, source)).toEqual({ [source]: { topics: [topic] } });
    expect(await topicsOf(http, sink)).toEqual({ [sink]: { topics: [topic] } });
  }, 150_000);
});

describe('active topics through the REST API, tracking disabled', () => {
  const logs: string[] = [];
  let runtime: LocalRuntime | undefined;
  let http: Http;

  beforeAll(async () => {
    runtime = await startRuntime(logs, {
      prefix: uniqueName('topics-off'),
      topicTracking: { enabled: false },
    });
    http = httpClient(runtime.url);
  });

  afterAll(async () => {
    await runtime?.close();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(logs.slice(-40).join('\n'));
  });

  it('answers 403 to GET and reset, and records nothing while records flow', async () => {
    // Prepare
    const live = runtime as LocalRuntime;
    const topic = uniqueName('topics-off');
    const source = uniqueName('off-src');
    const sink = uniqueName('off-sink');
    const { offsets } = readers(http);
    await http(
      'PUT',
      connectorPath(source, '/config'),
      datagenConfig(topic, { 'rate.per.second': '200' }),
    );
    await http('PUT', connectorPath(sink, '/config'), s3SinkConfig(live, topic));
    await eventually(
      () => offsets(source),
      (o) => committedSeq(o) > 0,
      30_000,
      'source commits',
    );
    await eventually(
      () => offsets(sink),
      (o) => sinkOffset(o) > 0,
      45_000,
      'sink commits',
    );
    // Act
    const get = await http('GET', connectorPath(source, '/topics'));
    const reset = await http('PUT', connectorPath(source, '/topics/reset'));
    // Assess
    expect(get.status).toBe(403);
    expect(get.body).toEqual({ error_code: 403, message: 'Topic tracking is disabled.' });
    expect(reset.status).toBe(403);
    expect(reset.body).toEqual({ error_code: 403, message: 'Topic tracking is disabled.' });
    const client = new DynamoDBClient({
      endpoint: live.dynamo.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      const store = createDynamoDbStateStore({ client, tableName: live.dynamo.table });
      expect(await store.topics.listActiveTopics(source)).toEqual([]);
      expect(await store.topics.listActiveTopics(sink)).toEqual([]);
    } finally {
      client.destroy();
    }
  }, 120_000);
});
