import { describe, it } from 'vitest';
import { SinkRecord } from '../../../shared/connect/index.js';
import { DynamoDbSinkConnector } from '../../../shared/plugins/connectors/dynamodb-sink/dynamodb-sink-connector.js';
import { type SinkConnectorSubject, sinkConnectorChecks } from '../../../shared/testkit/index.js';
import {
  FakeDynamoDb,
  fakeDeps,
  ORDERS_TABLE,
  sdkError,
} from '../shared/plugins/connectors/dynamodb-sink/fakes.js';

function world() {
  const dynamodb = new FakeDynamoDb().createTable(ORDERS_TABLE);
  return {
    dynamodb,
    connector: () => new DynamoDbSinkConnector(fakeDeps(dynamodb)),
    read: async () => dynamodb.items('orders'),
  };
}

// Every check of the kit applies. Keys repeat within a partition (five items per partition,
// rewritten as offsets go on), so a replay that let an older write win would show.
const subject: SinkConnectorSubject<ReturnType<typeof world>> = {
  validConfig: { topics: 'orders', 'table.name.format': 'orders', 'batch.size': '4' },
  invalidConfigs: [
    {
      config: { topics: 'orders', 'table.name.format': 'orders', 'pk.mode': 'nope' },
      field: 'pk.mode',
    },
    {
      config: { topics: 'orders', 'table.name.format': 'orders', 'batch.size': '0' },
      field: 'batch.size',
    },
    {
      config: { topics: 'orders', 'table.name.format': 'orders', 'pk.fields': 'a,b,c' },
      field: 'pk.fields',
    },
  ],
  setUp: world,
  guarantee: 'idempotent',
  topicPartitions: [
    { topic: 'orders', partition: 0 },
    { topic: 'orders', partition: 1 },
  ],
  record: (tp, offset) =>
    new SinkRecord({
      topic: tp.topic,
      kafkaPartition: tp.partition,
      kafkaOffset: offset,
      key: `p${tp.partition}-${offset % 5}`,
      value: { v: offset },
      timestamp: 1_700_000_000_000 + offset,
    }),
  injectFailure: (fixture) => {
    fixture.dynamodb.failures.push(
      ...Array.from({ length: 50 }, () =>
        sdkError(
          'AccessDeniedException',
          400,
          'User is not authorized to perform dynamodb:PutItem',
        ),
      ),
    );
    return { cause: 'AccessDenied' };
  },
};

describe('DynamoDB sink connector (connector test kit)', () => {
  for (const check of sinkConnectorChecks(subject)) it(check.name, () => check.run());
});
