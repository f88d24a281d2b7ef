import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type Body,
  committedSeq,
  isRunning,
  readers,
  sinkOffset,
  sunk,
  taskStates,
} from './connector-views.js';
import {
  connectorPath,
  datagenConfig,
  type E2eRuntime,
  eventually,
  type Http,
  lastLogs,
  s3SinkConfig,
  sleep,
  startE2eRuntime,
  uniqueName,
} from './support.js';

/** A config provider placeholder, `${body}` as text. */
const placeholder = (body: string) => `\${${body}}`;

/** The figures of a window that say what a run cost, for the log (and the report's table). */
function summary(name: string, window: Body) {
  return {
    connector: name,
    invocations: window.usage.invocations,
    lambda_gb_seconds: window.usage.lambda_gb_seconds,
    dynamodb_requests: window.usage.dynamodb_requests,
    dynamodb_units: [window.usage.dynamodb_read_units, window.usage.dynamodb_write_units],
    s3_requests: [window.usage.s3_tier1_requests, window.usage.s3_tier2_requests],
    records: window.records,
    lines: window.lines,
    total_dollars: window.total_dollars,
    dollars_per_million_records: window.dollars_per_million_records,
  };
}

describe('local runtime, end to end through HTTP: records flow, sinks, loggers', () => {
  let e2e: E2eRuntime;
  let http: Http;
  let status: (name: string) => Promise<Body>;
  let offsets: (name: string) => Promise<Body>;

  beforeAll(async () => {
    e2e = await startE2eRuntime();
    http = e2e.http;
    ({ status, offsets } = readers(http));
  });

  afterAll(async () => {
    await e2e?.close();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(lastLogs(e2e));
  });

  it('streams datagen records through Kafka into S3 objects, each record exactly once', async () => {
    // Prepare
    const topic = uniqueName('e2e-orders');
    const source = uniqueName('orders');
    const sink = uniqueName('orders-s3');
    // Act
    const created = await http('POST', '/connectors', {
      name: source,
      config: datagenConfig(topic, {
        'tasks.max': '2',
        'source.partitions': '2',
        iterations: '300',
      }),
    });
    await eventually(
      () => offsets(source),
      (o) => committedSeq(o) > 0,
      30_000,
      'first commit',
    );
    const sinkCreated = await http('POST', '/connectors', {
      name: sink,
      config: s3SinkConfig(e2e.runtime, topic),
    });
    await eventually(
      () => offsets(source),
      (o) => committedSeq(o) === 600,
      45_000,
      'source done',
    );
    const counts = await eventually(
      () => sunk(e2e, topic),
      (c) => c.size === 600,
      45_000,
      'all records in S3',
    );
    // Assess
    expect([created.status, sinkCreated.status]).toEqual([201, 201]);
    expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);
    expect(isRunning(await status(sink), 2) || isRunning(await status(sink), 1)).toBe(true);
    const sinkOffsets = await eventually(
      () => offsets(sink),
      (o) => (o?.offsets ?? []).length === 2,
      10_000,
      'sink offsets of both partitions',
    );
    expect(sinkOffsets.offsets.map((o: Body) => o.partition.kafka_topic)).toEqual([topic, topic]);
  });

  it('logs at the levels set through /admin/loggers', async () => {
    // Prepare
    const debugLines = () =>
      e2e.logs.filter(
        (l) => l.includes('"level":"debug"') && l.includes('serverless-connect.rest'),
      );
    const before = debugLines().length;
    // Act
    const set = await http('PUT', '/admin/loggers/serverless-connect.rest', { level: 'DEBUG' });
    await eventually(
      async () => {
        await http('GET', '/connectors');
        return debugLines().length;
      },
      (n) => n > before,
      10_000,
      'a debug line of the REST API',
    );
    const reset = await http('PUT', '/admin/loggers/serverless-connect.rest', { level: 'INFO' });
    // Assess
    expect(set.status).toBe(200);
    expect(set.body).toContain('serverless-connect.rest');
    expect(reset.status).toBe(200);
    expect(JSON.parse(debugLines().at(-1) ?? '{}')).toMatchObject({
      level: 'debug',
      logger: 'serverless-connect.rest',
    });
  });

  it("refuses placeholders of AWS_* variables and /proc with a 400 naming the key (npm start's defaults)", async () => {
    // Prepare
    const name = uniqueName('leak');
    const config = (topic: string) => ({ ...datagenConfig('unused'), 'kafka.topic': topic });
    // Act
    const credentials = await http(
      'PUT',
      connectorPath(name, '/config'),
      config(placeholder('env:AWS_SECRET_ACCESS_KEY')),
    );
    const environ = await http(
      'PUT',
      connectorPath(name, '/config'),
      config(placeholder('file:/proc/self/environ:PATH')),
    );
    const read = await http('GET', connectorPath(name));
    const allowed = await http('PUT', '/connector-plugins/datagen/config/validate', {
      name,
      ...config(placeholder('env:HOME')),
    });
    // Assess
    expect(credentials.status).toBe(400);
    expect(credentials.body.message).toContain(
      `Config provider 'env' refuses ${placeholder('env:AWS_SECRET_ACCESS_KEY')} in configuration kafka.topic: environment variable AWS_SECRET_ACCESS_KEY is not allowed by the worker's config.providers.env.param.allowlist.pattern`,
    );
    expect(environ.status).toBe(400);
    expect(environ.body.message).toContain(
      `Config provider 'file' refuses ${placeholder('file:/proc/self/environ:PATH')} in configuration kafka.topic: the path /proc/self/environ is under /proc`,
    );
    expect(read.status).toBe(404);
    expect(allowed.body.error_count).toBe(0);
  });

  it('takes a sink connector through pause, resume, restart, stop, offsets alter and reset, and delete', async () => {
    // Prepare: 100 records in the topic, all in S3
    const topic = uniqueName('e2e-sink');
    const source = uniqueName('src');
    const name = uniqueName('sink');
    await http('POST', '/connectors', {
      name: source,
      config: datagenConfig(topic, { iterations: '100', 'topic.creation.default.partitions': '1' }),
    });
    await eventually(
      () => offsets(source),
      (o) => committedSeq(o) === 100,
      30_000,
      'source',
    );
    const created = await http('POST', '/connectors', {
      name,
      config: s3SinkConfig(e2e.runtime, topic, { 'flush.size': '40' }),
    });
    expect(created.status).toBe(201);
    expect(created.body.type).toBe('sink');
    await eventually(
      () => sunk(e2e, topic),
      (c) => c.size === 100,
      30_000,
      'records in S3',
    );
    const end = sinkOffset(
      await eventually(
        () => offsets(name),
        (o) => sinkOffset(o) > 100,
      ),
    );

    // pause / resume
    expect((await http('PUT', connectorPath(name, '/pause'))).status).toBe(202);
    await eventually(
      () => status(name),
      (s) => s.connector.state === 'PAUSED' && taskStates(s).every((t) => t === 'PAUSED'),
      20_000,
      'PAUSED',
    );
    expect((await http('PUT', connectorPath(name, '/resume'))).status).toBe(202);
    await eventually(
      () => status(name),
      (s) => isRunning(s, 1),
      20_000,
      'RUNNING',
    );

    // restart with its tasks
    const restart = await http('POST', connectorPath(name, '/restart?includeTasks=true'));
    expect(restart.status).toBe(202);
    expect(taskStates(restart.body)).toEqual(['RESTARTING']);
    await eventually(
      () => status(name),
      (s) => isRunning(s, 1),
      20_000,
      'RUNNING after restart',
    );

    // stop, then alter the offsets back to the start of the partition
    expect((await http('PUT', connectorPath(name, '/stop'))).status).toBe(204);
    await eventually(
      () => status(name),
      (s) => s.connector.state === 'STOPPED',
      20_000,
      'STOPPED',
    );
    // An enumerator run that read the connector before the stop (the restart's) can write task
    // configs once more after it; the next run, a second later at most, removes them again.
    await sleep(2_500);
    expect(sinkOffset(await offsets(name))).toBe(end);
    const alter = await http('PATCH', connectorPath(name, '/offsets'), {
      offsets: [
        { partition: { kafka_topic: topic, kafka_partition: 0 }, offset: { kafka_offset: 0 } },
      ],
    });
    expect(alter.status).toBe(200);
    expect(alter.body.message).toMatch(/altered successfully/);
    expect((await offsets(name)).offsets).toEqual([
      { partition: { kafka_topic: topic, kafka_partition: 0 }, offset: { kafka_offset: 0 } },
    ]);
    // reset: no offsets left
    const reset = await http('DELETE', connectorPath(name, '/offsets'));
    expect(reset.status).toBe(200);
    expect(reset.body.message).toMatch(/reset successfully/);
    expect((await offsets(name)).offsets).toEqual([]);

    // resume: RUNNING again, and S3 still holds every record once
    expect((await http('PUT', connectorPath(name, '/resume'))).status).toBe(202);
    await eventually(
      () => status(name),
      (s) => isRunning(s, 1),
      20_000,
      'RUNNING after resume',
    );
    const counts = await sunk(e2e, topic);
    expect(counts.size).toBe(100);
    expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);

    // delete
    expect((await http('DELETE', connectorPath(name))).status).toBe(204);
    expect((await http('GET', connectorPath(name, '/status'))).status).toBe(404);
  });

  it('meters what a datagen → S3 run cost: records moved, every invocation priced (GET /connectors/{c}/cost)', async () => {
    // Prepare: 2 x 300 datagen records through Kafka into S3
    const topic = uniqueName('cost-orders');
    const source = uniqueName('orders');
    const sink = uniqueName('orders-s3');
    const { offsets } = readers(http);
    const cost = async (name: string): Promise<Body> =>
      (await http('GET', connectorPath(name, '/cost'))).body;
    // Act
    await http('POST', '/connectors', {
      name: source,
      config: datagenConfig(topic, {
        'tasks.max': '2',
        'source.partitions': '2',
        iterations: '300',
      }),
    });
    await http('POST', '/connectors', { name: sink, config: s3SinkConfig(e2e.runtime, topic) });
    await eventually(
      () => offsets(source),
      (o) => committedSeq(o) === 600,
      60_000,
      'source done',
    );
    const sourceCost = await eventually(
      () => cost(source),
      (c) => c.month_to_date.records.out >= 600,
      30_000,
      'the source metered',
    );
    const sinkCost = await eventually(
      () => cost(sink),
      (c) => c.month_to_date.records.in >= 600,
      30_000,
      'the sink metered',
    );
    // Read once the sink consumed everything: no object is sealed while the bucket is listed.
    const inS3 = await eventually(
      () => sunk(e2e, topic),
      (c) => c.size === 600,
      30_000,
      'S3',
    );
    const listed = (await http('GET', '/connectors?expand=cost')).body;
    // Assess
    console.info(
      'metered datagen → S3 run',
      JSON.stringify([
        summary(source, sourceCost.month_to_date),
        summary(sink, sinkCost.month_to_date),
      ]),
    );
    const src = sourceCost.month_to_date;
    const dst = sinkCost.month_to_date;
    expect([...inS3.values()].filter((n) => n !== 1)).toEqual([]);
    expect(src.records).toEqual({ in: 0, out: 600, moved: 600 });
    expect(dst.records.out).toBe(0);
    expect(dst.records.in).toBeGreaterThanOrEqual(600);
    expect(src.usage.invocations).toBeGreaterThanOrEqual(1);
    expect(dst.usage.invocations).toBeGreaterThanOrEqual(1);
    // The S3 sink's objects are S3 tier-1 requests; the source makes none of its own
    expect(dst.usage.s3_tier1_requests).toBeGreaterThanOrEqual(6);
    expect(src.usage.s3_tier1_requests).toBe(0);
    for (const window of [src, dst]) {
      const lines = Object.values(window.lines) as number[];
      expect(window.total_dollars).toBeCloseTo(
        lines.reduce((a, b) => a + b, 0),
        12,
      );
      expect(window.usage.lambda_gb_seconds).toBeGreaterThan(0);
      expect(window.dollars_per_million_records).toBeGreaterThan(0);
    }
    expect(sourceCost.shared.connectors).toBeGreaterThanOrEqual(2);
    expect(listed[source].cost.name).toBe(source);
    expect(listed[sink].cost.name).toBe(sink);
  });
});
