/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: Connect's ${topic} placeholder */
import { describe, it } from 'vitest';
import { type SinkConnectorSubject, sinkConnectorChecks } from '../../../shared/testkit/index.js';
import { FakeKafka } from '../../support/fake-kafka.js';
import {
  container,
  mirrorConfig,
  sinkRecord,
  text,
} from '../shared/plugins/connectors/kafka-sink/harness.js';

/** A fake cluster with `orders` (3 partitions) and the Kafka sink an engine registers over it. */
function world() {
  const box = container(new FakeKafka().topic('orders', 3));
  return {
    kafka: box.kafka,
    connector: box.connector,
    /** What a read_committed consumer of the output topic sees. */
    read: async () =>
      [0, 1, 2].flatMap((partition) =>
        box.kafka.committed('orders.replica', partition).map((r) => ({
          partition,
          key: text(r.key),
          value: text(r.value),
        })),
      ),
  };
}

// Every check of the kit applies, over the fake cluster of test/support/fake-kafka.ts.
const subject: SinkConnectorSubject<ReturnType<typeof world>> = {
  validConfig: mirrorConfig(),
  invalidConfigs: [
    { config: mirrorConfig({ 'topic.rename.format': '${topic}' }), field: 'topic.rename.format' },
    { config: mirrorConfig({ 'output.partition': 'sideways' }), field: 'output.partition' },
  ],
  setUp: world,
  guarantee: 'exactly-once',
  topicPartitions: [
    { topic: 'orders', partition: 0 },
    { topic: 'orders', partition: 1 },
  ],
  record: (tp, offset) => sinkRecord(tp.partition, offset),
  // The input topic vanished before the output topic was created: nothing to size it by.
  injectFailure: (fixture) => {
    fixture.kafka.logs.delete('orders');
    return { cause: 'partition count of input topic orders is unknown' };
  },
};

describe('Kafka sink connector (connector test kit)', () => {
  for (const check of sinkConnectorChecks(subject)) it(check.name, () => check.run());
});
