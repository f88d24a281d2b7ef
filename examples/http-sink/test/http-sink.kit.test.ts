import { SinkRecord } from 'serverless-connect/connect';
import {
  type SinkConnectorSubject,
  type SinkGuarantee,
  sinkConnectorChecks,
} from 'serverless-connect/testkit';
import { afterAll, describe, it } from 'vitest';
import { HttpSinkConnector } from '../src/index.js';
import { startTestEndpoint, type TestEndpoint } from './test-server.js';

const endpoints: TestEndpoint[] = [];

/** The connector with `http.url` replaced by the fixture's endpoint, whose port is random. */
class PointedHttpSinkConnector extends HttpSinkConnector {
  readonly #url: string;
  constructor(url: string) {
    super({
      fetch: (input, init) => globalThis.fetch(input, init),
      sleep: async () => {},
      random: () => 0,
    });
    this.#url = url;
  }
  override start(props: Readonly<Record<string, string>>): Promise<void> {
    return super.start({ ...props, 'http.url': this.#url });
  }
}

/**
 * The connector over a local endpoint that keeps what it accepted either once per
 * Idempotency-Key (`by-key`) or once per record coordinates (`by-offset`).
 */
async function world(store: 'by-key' | 'by-offset') {
  const endpoint = await startTestEndpoint();
  endpoints.push(endpoint);
  return {
    endpoint,
    connector: () => new PointedHttpSinkConnector(endpoint.url),
    read: async () =>
      store === 'by-key' ? [...endpoint.accepted.values()].flat() : [...endpoint.upserted.values()],
  };
}

function subject(
  store: 'by-key' | 'by-offset',
  guarantee: SinkGuarantee,
): SinkConnectorSubject<Awaited<ReturnType<typeof world>>> {
  return {
    // The endpoint's port is random: PointedHttpSinkConnector replaces this URL with it.
    validConfig: { topics: 'orders', 'http.url': 'http://127.0.0.1:1/', 'batch.max.records': '3' },
    invalidConfigs: [
      { config: { topics: 'orders' }, field: 'http.url' },
      { config: { topics: 'orders', 'http.url': 'not a url' }, field: 'http.url' },
      {
        config: { topics: 'orders', 'http.url': 'http://x', 'batch.max.records': '0' },
        field: 'batch.max.records',
      },
    ],
    setUp: () => world(store),
    guarantee,
    topicPartitions: [
      { topic: 'orders', partition: 0 },
      { topic: 'orders', partition: 1 },
    ],
    record: (tp, offset) =>
      new SinkRecord({
        topic: tp.topic,
        kafkaPartition: tp.partition,
        kafkaOffset: offset,
        key: `${tp.partition}-${offset}`,
        value: { id: `${tp.partition}-${offset}`, qty: offset },
        timestamp: 1_700_000_000_000 + offset,
      }),
    injectFailure: (fixture) => {
      fixture.endpoint.script.push(
        ...Array.from({ length: 50 }, () => ({ status: 400, body: 'no such customer' })),
      );
      return { cause: /400 Bad Request: no such customer/ };
    },
  };
}

afterAll(async () => {
  await Promise.all(endpoints.map((e) => e.close()));
});

describe('HTTP sink (connector test kit), an endpoint deduplicating by Idempotency-Key', () => {
  for (const check of sinkConnectorChecks(subject('by-key', 'at-least-once'))) {
    it(check.name, () => check.run());
  }
});

describe('HTTP sink (connector test kit), an endpoint upserting by topic-partition-offset', () => {
  for (const check of sinkConnectorChecks(subject('by-offset', 'idempotent'))) {
    it(check.name, () => check.run());
  }
});
