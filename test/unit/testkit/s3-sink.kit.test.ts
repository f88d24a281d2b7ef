import { describe, it } from 'vitest';
import { SinkRecord } from '../../../shared/connect/index.js';
import { S3SinkConnector } from '../../../shared/plugins/connectors/s3-sink/s3-sink-connector.js';
import { type SinkConnectorSubject, sinkConnectorChecks } from '../../../shared/testkit/index.js';
import {
  FakeClock,
  FakeS3Sink,
  sdkError,
  textOf,
} from '../shared/plugins/connectors/s3-sink/fakes.js';

function world() {
  const s3 = new FakeS3Sink('bucket', 7);
  return {
    s3,
    connector: () => new S3SinkConnector({ clock: new FakeClock(), createClient: () => s3 }),
    /** One item per line of every object: where it is and what it says. */
    read: async () => {
      const items: { object: string; line: string }[] = [];
      for (const [key, object] of s3.objects) {
        for (const line of (await textOf(object.bytes)).split('\n')) {
          if (line !== '') items.push({ object: key, line });
        }
      }
      return items;
    },
  };
}

// Every check of the kit applies.
const subject: SinkConnectorSubject<ReturnType<typeof world>> = {
  validConfig: {
    topics: 'orders',
    's3.bucket.name': 'bucket',
    'format.class': 'json',
    'flush.size': '3',
  },
  invalidConfigs: [
    { config: { topics: 'orders', 'format.class': 'json' }, field: 's3.bucket.name' },
    {
      config: { topics: 'orders', 's3.bucket.name': 'bucket', 'flush.size': '0' },
      field: 'flush.size',
    },
    {
      config: { topics: 'orders', 's3.bucket.name': 'bucket', 'format.class': 'xml' },
      field: 'format.class',
    },
  ],
  setUp: world,
  guarantee: 'exactly-once',
  topicPartitions: [
    { topic: 'orders', partition: 0 },
    { topic: 'orders', partition: 1 },
  ],
  record: (tp, offset) =>
    new SinkRecord({
      topic: tp.topic,
      kafkaPartition: tp.partition,
      kafkaOffset: offset,
      value: { id: `${tp.partition}-${offset}`, qty: offset },
      timestamp: 1_700_000_000_000 + offset,
    }),
  injectFailure: (fixture) => {
    for (const kind of ['get', 'put', 'create', 'part', 'complete'] as const) {
      fixture.s3.failures.set(
        kind,
        Array.from({ length: 20 }, () => sdkError('AccessDenied', 403, 'client')),
      );
    }
    return { cause: 'AccessDenied' };
  },
};

describe('S3 sink connector (connector test kit)', () => {
  for (const check of sinkConnectorChecks(subject)) it(check.name, () => check.run());
});
