import {
  DataError,
  type ErrantRecordReporter,
  RetriableError,
  SinkRecord,
  type SinkTaskContext,
} from 'serverless-connect/connect';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpSinkConnector, type HttpSinkDeps, HttpSinkTask } from '../src/index.js';
import { startTestEndpoint, type TestEndpoint } from './test-server.js';

const TOKEN = 'tok-9f8e7d6c5b4a';

function record(partition: number, offset: number, value: unknown = { n: offset }): SinkRecord {
  return new SinkRecord({
    topic: 'orders',
    kafkaPartition: partition,
    kafkaOffset: offset,
    key: `k${offset}`,
    value,
    timestamp: 1_700_000_000_000 + offset,
  });
}

function context(reporter: ErrantRecordReporter | null = null): SinkTaskContext {
  return {
    configs: () => ({}),
    offset: () => {},
    timeout: () => {},
    assignment: () => [],
    pause: () => {},
    resume: () => {},
    requestCommit: () => {},
    errantRecordReporter: reporter,
  };
}

/** Real fetch; waits recorded instead of slept; no jitter (random() = 0.5). */
function deps(waits: number[]): HttpSinkDeps {
  return {
    fetch: (input, init) => globalThis.fetch(input, init),
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0.5,
  };
}

describe('HttpSinkTask', () => {
  let endpoint: TestEndpoint;
  let waits: number[];
  let task: HttpSinkTask;
  const start = (props: Record<string, string> = {}, ctx = context()) =>
    task.start({ 'http.url': endpoint.url, 'http.auth.token': TOKEN, ...props }, ctx);

  beforeEach(async () => {
    endpoint = await startTestEndpoint();
    waits = [];
    task = new HttpSinkTask(deps(waits));
  });

  afterEach(async () => {
    await task.stop();
    await endpoint.close();
  });

  it('POSTs a batch per topic-partition with the records as JSON and an Idempotency-Key', async () => {
    // Prepare
    await start({ 'http.headers': 'X-Tenant:acme' });
    // Act
    await task.put([record(0, 5), record(1, 7), record(0, 6, new Uint8Array([1, 2, 3]))]);
    // Assess
    expect(endpoint.requests.map((r) => r.headers['idempotency-key'])).toEqual([
      'orders-0-5-6',
      'orders-1-7-7',
    ]);
    const [first] = endpoint.requests;
    expect(first?.headers['content-type']).toBe('application/json');
    expect(first?.headers['x-tenant']).toBe('acme');
    expect(first?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(first?.body).toEqual({
      records: [
        {
          topic: 'orders',
          partition: 0,
          offset: 5,
          key: 'k5',
          value: { n: 5 },
          headers: [],
          timestamp: 1_700_000_000_005,
        },
        {
          topic: 'orders',
          partition: 0,
          offset: 6,
          key: 'k6',
          value: 'AQID',
          headers: [],
          timestamp: 1_700_000_000_006,
        },
      ],
    });
  });

  it('splits a partition into batches of batch.max.records', async () => {
    await start({ 'batch.max.records': '2' });
    await task.put([0, 1, 2, 3, 4].map((o) => record(0, o)));
    expect(endpoint.requests.map((r) => r.headers['idempotency-key'])).toEqual([
      'orders-0-0-1',
      'orders-0-2-3',
      'orders-0-4-4',
    ]);
  });

  it('sends the same Idempotency-Key when the same records are delivered again', async () => {
    // Prepare
    await start();
    const batch = [record(2, 40), record(2, 41)];
    await task.put(batch);
    // Act: a new task instance, as after a crash before the offset commit
    const again = new HttpSinkTask(deps(waits));
    await again.start({ 'http.url': endpoint.url }, context());
    await again.put(batch);
    // Assess
    expect(endpoint.requests.map((r) => r.headers['idempotency-key'])).toEqual([
      'orders-2-40-41',
      'orders-2-40-41',
    ]);
    expect(endpoint.accepted.size).toBe(1);
  });

  it('retries a 503 with exponential backoff, then succeeds', async () => {
    await start({ 'retry.backoff.ms': '100' });
    endpoint.script.push({ status: 503 }, { status: 503 });
    await task.put([record(0, 1)]);
    expect(endpoint.requests).toHaveLength(3);
    expect(waits).toEqual([50, 100]); // full jitter: random() = 0.5 of 100, then of 200
  });

  it("waits a 429's Retry-After seconds before the next attempt", async () => {
    await start({ 'retry.backoff.ms': '10' });
    endpoint.script.push({ status: 429, headers: { 'retry-after': '2' } });
    await task.put([record(0, 1)]);
    expect(endpoint.requests).toHaveLength(2);
    expect(waits).toEqual([2_000]);
  });

  it('throws a RetriableError once the attempts run out, so the runtime redelivers', async () => {
    await start({ 'retry.max.attempts': '3' });
    endpoint.script.push({ status: 500 }, { status: 502 }, { status: 504, body: 'gateway' });
    const failure = task.put([record(0, 1)]);
    await expect(failure).rejects.toBeInstanceOf(RetriableError);
    await expect(failure).rejects.toThrow(/failed 3 time\(s\), last: 504 Gateway Timeout: gateway/);
  });

  it('retries a network error and a timeout', async () => {
    // Prepare: a port nobody listens on
    await task.start(
      {
        'http.url': 'http://127.0.0.1:9/ingest',
        'retry.max.attempts': '2',
        'http.timeout.ms': '500',
      },
      context(),
    );
    // Act & Assess
    await expect(task.put([record(0, 1)])).rejects.toBeInstanceOf(RetriableError);
    expect(waits).toHaveLength(1);
  });

  it('reports each record of a batch the endpoint rejects with 400 when a reporter is configured', async () => {
    // Prepare
    const reported: { offset: number; error: Error }[] = [];
    const reporter: ErrantRecordReporter = {
      report: async (r, error) => {
        reported.push({ offset: r.kafkaOffset, error });
      },
    };
    await start({}, context(reporter));
    endpoint.script.push({ status: 400, body: `bad record, token ${TOKEN}` });
    // Act
    await task.put([record(0, 1), record(0, 2)]);
    // Assess
    expect(reported.map((r) => r.offset)).toEqual([1, 2]);
    expect(reported[0]?.error).toBeInstanceOf(DataError);
    expect(reported[0]?.error.message).toMatch(
      /rejected batch orders-0-1-2: 400 Bad Request: bad record/,
    );
    expect(reported[0]?.error.message).not.toContain(TOKEN);
    expect(endpoint.requests).toHaveLength(1);
  });

  it('fails the task on a 400 without a reporter (errors.tolerance=none), naming status and message', async () => {
    await start({ 'http.url': `${endpoint.url}?key=${TOKEN}` });
    endpoint.script.push({ status: 422, body: `{"error":"missing id","echo":"Bearer ${TOKEN}"}` });
    const failure = task.put([record(0, 1)]);
    await expect(failure).rejects.toBeInstanceOf(DataError);
    const message = await failure.catch((e: Error) => e.message);
    expect(message).toMatch(
      /POST http:\/\/127\.0\.0\.1:\d+\/ingest rejected batch orders-0-1-1: 422/,
    );
    expect(message).toContain('missing id');
    expect(message).not.toContain(TOKEN);
  });

  it('fails the task when the reporter rejects (errors.tolerance=none with a log or DLQ)', async () => {
    const reporter: ErrantRecordReporter = {
      report: async () => {
        throw new DataError('tolerance exceeded');
      },
    };
    await start({}, context(reporter));
    endpoint.script.push({ status: 400 });
    await expect(task.put([record(0, 1)])).rejects.toThrow('tolerance exceeded');
  });
});

describe('HttpSinkConnector config', () => {
  const connector = new HttpSinkConnector();
  const errorsOf = (props: Record<string, string>) =>
    Object.fromEntries(
      connector
        .validate(props)
        .filter((v) => v.errors.length > 0)
        .map((v) => [v.name, v.errors]),
    );

  it('accepts a minimal config and reports bad keys on their field', () => {
    expect(errorsOf({ 'http.url': 'https://hooks.example.com/x' })).toEqual({});
    expect(Object.keys(errorsOf({}))).toEqual(['http.url']);
    expect(Object.keys(errorsOf({ 'http.url': 'ftp://x' }))).toEqual(['http.url']);
    expect(errorsOf({ 'http.url': 'http://user:pw@x' })['http.url']?.join()).not.toContain('pw');
    expect(Object.keys(errorsOf({ 'http.url': 'http://x', 'batch.max.records': '0' }))).toEqual([
      'batch.max.records',
    ]);
    expect(Object.keys(errorsOf({ 'http.url': 'http://x', 'http.headers': 'NoColon' }))).toEqual([
      'http.headers',
    ]);
  });

  it('never shows the auth token or header values in validation output', () => {
    const secretHeader = 'hdr-secret-123';
    const out = JSON.stringify(
      connector.validate({
        'http.url': 'http://x',
        'http.auth.token': TOKEN,
        'http.headers': `X-Api-Key:${secretHeader},Bad Name:${secretHeader}`,
      }),
    );
    expect(out).not.toContain(TOKEN);
    expect(out).toContain('[hidden]');
    const headerErrors = connector
      .validate({ 'http.url': 'http://x', 'http.headers': `Bad Name:${secretHeader}` })
      .flatMap((v) => v.errors);
    expect(headerErrors.join(' ')).not.toContain(secretHeader);
  });
});
