import { describe, it } from 'vitest';
import { DynamoDbStreamsSourceConnector } from '../../../shared/plugins/connectors/dynamodb-streams-source/dynamodb-streams-source-connector.js';
import {
  type SourceConnectorSubject,
  sourceConnectorChecks,
} from '../../../shared/testkit/index.js';
import {
  FakeClock,
  FakeStreams,
} from '../shared/plugins/connectors/dynamodb-streams-source/fakes.js';

/** A stream of four shards (three closed, one open), each with a few changes. */
function world() {
  const streams = new FakeStreams();
  const sizes = [5, 3, 7, 4];
  for (const [i, size] of sizes.entries()) {
    const shard = `shard-${i}`;
    streams.addShard(shard);
    for (let n = 0; n < size; n++) {
      streams.write(shard, n === 0 ? 'INSERT' : 'MODIFY', `item-${i}`, {
        newImage: { id: { S: `item-${i}` }, n: { N: String(n) } },
      });
    }
    if (i < 3) streams.close(shard);
  }
  const connector = () =>
    new DynamoDbStreamsSourceConnector({ clock: new FakeClock(), createClient: () => streams });
  return { streams, connector };
}

// Every check of the kit applies; the connector defines no transaction boundaries, so the
// boundary check is not in its list.
const subject: SourceConnectorSubject<ReturnType<typeof world>> = {
  validConfig: { 'table.name': 'orders', 'dynamodb.region': 'us-east-1', 'poll.max.records': '2' },
  invalidConfigs: [
    { config: { 'dynamodb.region': 'us-east-1' }, field: 'table.name' },
    { config: { 'table.name': 'orders', 'poll.max.records': '0' }, field: 'poll.max.records' },
    { config: { 'table.name': 'orders', 'start.position': 'yesterday' }, field: 'start.position' },
  ],
  setUp: world,
  identity: (record) => String(record.sourceOffset?.sequenceNumber),
  exactlyOnceSupport: 'SUPPORTED',
  transactionBoundaries: 'UNSUPPORTED',
  // Records trimmed past the committed offset: the task must say data was lost.
  injectFailure: (fixture) => {
    const [first] = fixture.streams.shards[0]?.records ?? [];
    fixture.streams.trim('shard-0', 2);
    return {
      cause: /shard-0.*no longer available/,
      storedOffsets: [
        {
          partition: { table: 'orders', shard: 'shard-0' },
          offset: { sequenceNumber: first?.sequenceNumber ?? '0' },
        },
      ],
    };
  },
};

describe('DynamoDB Streams source connector (connector test kit)', () => {
  for (const check of sourceConnectorChecks(subject)) it(check.name, () => check.run());
});
