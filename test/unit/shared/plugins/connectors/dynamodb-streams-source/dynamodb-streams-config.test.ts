import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../../../shared/connect/errors.js';
import {
  createDynamoDbStreamsClient,
  dynamoDbStreamsTaskConfigs,
  parseDynamoDbStreamsConfig,
  parseDynamoDbStreamsTaskConfig,
  TABLE_PLACEHOLDER,
  topicFor,
} from '../../../../../../shared/plugins/connectors/dynamodb-streams-source/dynamodb-streams-config.js';

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseDynamoDbStreamsConfig', () => {
  it('applies the defaults to a config naming only the table', () => {
    // Act
    const config = parseDynamoDbStreamsConfig({ 'table.name': 'orders' });

    // Assess
    expect(config).toEqual({
      tableName: 'orders',
      streamArn: null,
      region: null,
      endpoint: null,
      streamsEndpoint: null,
      credentials: null,
      topic: TABLE_PLACEHOLDER,
      pollMaxRecords: 1000,
      startPosition: 'TRIM_HORIZON',
      shardRefreshIntervalMs: 10_000,
    });
  });

  it('accepts a stream ARN alone, a lower-case start position, and one endpoint for both APIs', () => {
    // Act
    const config = parseDynamoDbStreamsConfig({
      'stream.arn': 'arn:aws:dynamodb:eu-west-1:1:table/t/stream/x',
      'start.position': 'latest',
      'dynamodb.endpoint': 'http://127.0.0.1:1',
      'aws.access.key.id': 'id',
      'aws.secret.access.key': 'secret',
    });

    // Assess
    expect(config.startPosition).toBe('LATEST');
    expect(config.streamsEndpoint).toBe('http://127.0.0.1:1');
    expect(config.credentials).toEqual({ accessKeyId: 'id', secretAccessKey: 'secret' });
  });

  it('requires a table name or a stream ARN, reported on table.name', () => {
    // Act
    const error = configError(() => parseDynamoDbStreamsConfig({}));

    // Assess
    expect(error.key).toBe('table.name');
    expect(error.message).toMatch(/set table.name or stream.arn/);
  });

  it('rejects an access key id without its secret, and out-of-range numbers, with Kafka wording', () => {
    // Act
    const keys = configError(() =>
      parseDynamoDbStreamsConfig({ 'table.name': 't', 'aws.access.key.id': 'id' }),
    );
    const limit = configError(() =>
      parseDynamoDbStreamsConfig({ 'table.name': 't', 'poll.max.records': '1001' }),
    );
    const position = configError(() =>
      parseDynamoDbStreamsConfig({ 'table.name': 't', 'start.position': 'AT_TIMESTAMP' }),
    );

    // Assess
    expect(keys.key).toBe('aws.secret.access.key');
    expect(limit.message).toMatch(/^Invalid value 1001 for configuration poll.max.records/);
    expect(position.key).toBe('start.position');
  });
});

describe('dynamoDbStreamsTaskConfigs', () => {
  it('gives tasks.max tasks their index and count, the same on every call', () => {
    // Prepare
    const props = { 'table.name': 'orders', topic: 'cdc' };

    // Act
    const first = dynamoDbStreamsTaskConfigs(props, 3);
    const second = dynamoDbStreamsTaskConfigs(props, 3);

    // Assess
    expect(first).toEqual(second);
    expect(first.map((c) => [c['task.index'], c['task.count'], c.topic])).toEqual([
      ['0', '3', 'cdc'],
      ['1', '3', 'cdc'],
      ['2', '3', 'cdc'],
    ]);
    expect(parseDynamoDbStreamsTaskConfig(first[2] ?? {})).toMatchObject({
      taskIndex: 2,
      taskCount: 3,
    });
  });

  it('rejects a task index that is not below the task count', () => {
    // Act
    const error = configError(() =>
      parseDynamoDbStreamsTaskConfig({ 'table.name': 't', 'task.index': '2', 'task.count': '2' }),
    );

    // Assess
    expect(error.key).toBe('task.index');
  });
});

describe('topicFor', () => {
  it('replaces every table placeholder with the table name', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the connector's own placeholder.
    expect(topicFor('cdc.${table}.${table}', 'orders')).toBe('cdc.orders.orders');
    expect(topicFor('fixed', 'orders')).toBe('fixed');
  });
});

describe('createDynamoDbStreamsClient', () => {
  it('builds a client that can be destroyed without having made a call', () => {
    // Act
    const client = createDynamoDbStreamsClient(
      parseDynamoDbStreamsConfig({ 'table.name': 't', 'dynamodb.region': 'eu-west-1' }),
    );

    // Assess
    expect(() => client.destroy()).not.toThrow();
  });
});
