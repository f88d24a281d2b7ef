import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Body, committedSeq, readers, sunk } from './connector-views.js';
import {
  connectorPath,
  datagenConfig,
  type E2eRuntime,
  eventually,
  type Http,
  lastLogs,
  s3SinkConfig,
  startE2eRuntime,
  uniqueName,
} from './support.js';

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

describe('local runtime, end to end: what a datagen → S3 run cost (GET /connectors/{c}/cost)', () => {
  let e2e: E2eRuntime;
  let http: Http;

  beforeAll(async () => {
    e2e = await startE2eRuntime();
    http = e2e.http;
  });

  afterAll(async () => {
    await e2e?.close();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(lastLogs(e2e));
  });

  it('meters the records each connector moved and prices every invocation it ran', async () => {
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
