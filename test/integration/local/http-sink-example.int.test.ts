import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { HTTP_SINK_CLASS } from '../../../examples/http-sink/src/index.js';
import {
  startTestEndpoint,
  type TestEndpoint,
} from '../../../examples/http-sink/test/test-server.js';
import type { LocalRuntime } from '../../../local/runtime/start.js';
import { createTopics, testKafka, uniqueName } from '../../support/services.js';
import { connectorPath, eventually, type Http, httpClient } from '../e2e/support.js';
import { startPluginRuntime } from './plugin-runtime.js';

const EXAMPLE = 'examples/http-sink/src/index.ts';

/** A new one-partition topic holding `count` JSON records `{id, qty}` keyed `order-<i>`. */
async function filledTopic(prefix: string, count: number): Promise<string> {
  const topic = uniqueName(prefix);
  const kafka = testKafka();
  const admin = kafka.admin();
  const producer = kafka.producer();
  await admin.connect();
  await producer.connect();
  try {
    await createTopics(admin, [{ topic, numPartitions: 1, replicationFactor: 1 }]);
    await producer.send({
      topic,
      messages: Array.from({ length: count }, (_, i) => ({
        key: `order-${i}`,
        value: JSON.stringify({ id: i, qty: i * 10 }),
      })),
    });
  } finally {
    await producer.disconnect();
    await admin.disconnect();
  }
  return topic;
}

/** The keys of the first `count` records of `topic` (once it exists), read from the beginning. */
async function keysIn(topic: string, count: number): Promise<string[]> {
  const kafka = testKafka();
  const admin = kafka.admin();
  await admin.connect();
  try {
    await eventually(
      async () => (await admin.listTopics()).includes(topic),
      (exists) => exists,
      30_000,
      `topic ${topic}`,
    );
  } finally {
    await admin.disconnect();
  }
  const consumer = kafka.consumer({ groupId: uniqueName('dlq-reader') });
  const keys: string[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        keys.push(message.key?.toString() ?? '');
      },
    });
    await eventually(
      async () => keys.length,
      (n) => n >= count,
      30_000,
      `${count} records in ${topic}`,
    );
  } finally {
    await consumer.disconnect();
  }
  return keys;
}

/**
 * `npm start -- --plugins examples/http-sink/src/index.ts`: the runtime started in this process
 * from the same options (`startPluginRuntime`), and once as `npm start` itself in a child
 * process; an `http-sink` connector of a topic the test fills, and a local HTTP endpoint
 * receiving its batches.
 */
describe('the HTTP sink example under npm start', { timeout: 120_000 }, () => {
  let runtime: LocalRuntime;
  let http: Http;
  let endpoint: TestEndpoint;
  const logs: string[] = [];

  beforeAll(async () => {
    endpoint = await startTestEndpoint();
    runtime = await startPluginRuntime(EXAMPLE, logs);
    http = httpClient(runtime.url);
  });

  afterAll(async () => {
    await runtime?.close();
    await endpoint?.close();
    delete process.env.HTTP_SINK_EXAMPLE_TOKEN;
  });

  it('POSTs the records of a topic to the endpoint, with Idempotency-Keys, and lists the plugin', async () => {
    // Prepare: six JSON records in one partition
    const topic = await filledTopic('http-orders', 6);
    const name = uniqueName('http-sink');
    process.env.HTTP_SINK_EXAMPLE_TOKEN = 'it-token-1234';
    // Act
    const created = await http('PUT', connectorPath(name, '/config'), {
      'connector.class': 'http-sink',
      topics: topic,
      'http.url': endpoint.url,
      // The token through a config provider: GET …/config shows configs as stored (as Connect does).
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a config provider placeholder
      'http.auth.token': '${env:HTTP_SINK_EXAMPLE_TOKEN}',
      'batch.max.records': '4',
      'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable': 'false',
    });
    const received = await eventually(
      async () => [...endpoint.upserted.values()].filter((r) => r.topic === topic),
      (records) => records.length === 6,
      60_000,
      'six records at the endpoint',
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${logs.slice(-30).join('\n')}`);
    });
    const config = await http('GET', connectorPath(name, '/config'));
    const listed = await http('GET', '/connector-plugins');
    // Assess
    expect(created.status).toBe(201);
    expect(received.map((r) => [r.offset, r.key, r.value])).toEqual(
      [0, 1, 2, 3, 4, 5].map((i) => [i, `order-${i}`, { id: i, qty: i * 10 }]),
    );
    const keys = endpoint.requests
      .filter((r) => r.body.records[0]?.topic === topic)
      .map((r) => r.headers['idempotency-key']);
    expect(keys.every((k) => typeof k === 'string' && k.startsWith(`${topic}-0-`))).toBe(true);
    expect(endpoint.requests[0]?.headers.authorization).toBe('Bearer it-token-1234');
    expect(JSON.stringify(config.body)).not.toContain('it-token-1234');
    expect(logs.join('\n')).not.toContain('it-token-1234');
    expect(listed.body).toContainEqual({ class: HTTP_SINK_CLASS, type: 'sink', version: '0.1.0' });
  });

  it('runs under `npm start -- --plugins` itself, as a user types it, and stops on Ctrl-C', async () => {
    // Prepare: npm start in a process group of its own, on the test broker
    const topic = await filledTopic('http-npm-start', 3);
    const child = spawn(
      'npm',
      ['start', '--', '--memory', '--port', '0', '--s3-port', '0', '--plugins', EXAMPLE],
      {
        env: { ...process.env, KAFKA_BROKERS: inject('kafkaBrokers').join(',') },
        detached: true,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    let closed = false;
    const exited = new Promise<number | null>((resolve) =>
      child.once('close', (code, signal) => {
        closed = true;
        // npm re-raises the SIGINT its child stopped on, as a shell shows after Ctrl-C: 130.
        resolve(code ?? (signal === 'SIGINT' ? 130 : null));
      }),
    );
    /** Ctrl-C: SIGINT to npm start's process group, unless it has exited. */
    const interrupt = () => {
      if (child.pid !== undefined && !closed) process.kill(-child.pid, 'SIGINT');
    };
    try {
      const url = await eventually(
        async () => /REST API\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1],
        (found) => found !== undefined,
        60_000,
        'the REST API address in the banner',
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${stderr}`);
      });
      const api = httpClient(url as string);
      // Act
      await api('PUT', connectorPath(uniqueName('http-npm'), '/config'), {
        'connector.class': 'com.example.http.HttpSinkConnector',
        topics: topic,
        'http.url': endpoint.url,
        'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
        'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
        'value.converter.schemas.enable': 'false',
      });
      const received = await eventually(
        async () => [...endpoint.upserted.values()].filter((r) => r.topic === topic),
        (records) => records.length === 3,
        60_000,
        'three records at the endpoint',
      );
      interrupt();
      const code = await exited;
      // Assess
      expect(stderr).toContain(`plugin module ${EXAMPLE}`);
      expect(received.map((r) => r.key)).toEqual(['order-0', 'order-1', 'order-2']);
      expect(stderr).toMatch(/^stopped$/m);
      expect([0, 130]).toContain(code);
    } finally {
      interrupt();
      await exited;
    }
  });

  it('sends the records of a batch the endpoint rejects to the DLQ with errors.tolerance=all, and goes on', async () => {
    // Prepare: the first request is refused, the next ones accepted
    const topic = await filledTopic('http-refused', 3);
    const dlq = `${topic}-dlq`;
    endpoint.script.push({ status: 400, body: 'unknown customer' });
    const name = uniqueName('http-sink-dlq');
    // Act
    await http('PUT', connectorPath(name, '/config'), {
      'connector.class': 'http-sink',
      topics: topic,
      'http.url': endpoint.url,
      'batch.max.records': '2',
      'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable': 'false',
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': dlq,
      'errors.deadletterqueue.topic.replication.factor': '1',
    });
    const dead = await keysIn(dlq, 2).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${logs.slice(-30).join('\n')}`);
    });
    const accepted = await eventually(
      async () => [...endpoint.upserted.values()].filter((r) => r.topic === topic),
      (records) => records.length === 1,
      30_000,
      'the last record at the endpoint',
    );
    const status = await http('GET', connectorPath(name, '/status'));
    // Assess
    expect(dead).toEqual(['order-0', 'order-1']);
    expect(accepted.map((r) => r.key)).toEqual(['order-2']);
    expect(status.body.tasks[0].state).toBe('RUNNING');
  });
});
