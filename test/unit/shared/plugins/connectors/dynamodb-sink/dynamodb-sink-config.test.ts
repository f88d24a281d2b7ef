// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${topic} is the table.name.format placeholder, plain text here
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../../../shared/connect/errors.js';
import {
  parseDynamoDbSinkConfig,
  tableNameFor,
} from '../../../../../../shared/plugins/connectors/dynamodb-sink/dynamodb-sink-config.js';
import { dynamoDbClientConfigOf } from '../../../../../../shared/plugins/connectors/dynamodb-sink/sdk-sink-client.js';

function configError(props: Record<string, string>): ConfigError {
  try {
    parseDynamoDbSinkConfig(props);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseDynamoDbSinkConfig', () => {
  it('applies the documented defaults', () => {
    // Act
    const config = parseDynamoDbSinkConfig({});

    // Assess
    expect(config).toEqual({
      tableNameFormat: '${topic}',
      region: null,
      endpoint: null,
      credentials: null,
      pkMode: 'record_key',
      pkFields: [],
      insertMode: 'upsert',
      deleteEnabled: true,
      deleteMode: 'tombstone',
      tombstoneTtlSeconds: 86_400,
      attributes: {
        topic: '_kafka_topic',
        partition: '_kafka_partition',
        offset: '_kafka_offset',
        deleted: '_kafka_deleted',
        expiresAt: '_kafka_expires_at',
      },
      batchSize: 25,
      maxRetries: 10,
      retryBackoffMs: 100,
    });
  });

  it('parses every key, modes case-insensitively', () => {
    // Act
    const config = parseDynamoDbSinkConfig({
      'table.name.format': 'kafka_${topic}',
      'aws.dynamodb.region': 'eu-west-1',
      'aws.dynamodb.endpoint': 'http://127.0.0.1:4567',
      'aws.access.key.id': 'id',
      'aws.secret.access.key': 'secret',
      'pk.mode': 'RECORD_VALUE',
      'pk.fields': 'userId, ts',
      'insert.mode': 'UPSERT',
      'delete.enabled': 'false',
      'delete.mode': 'Delete',
      'delete.tombstone.ttl.seconds': '0',
      'kafka.attribute.prefix': 'k.',
      'batch.size': '5',
      'max.retries': '0',
      'retry.backoff.ms': '7',
    });

    // Assess
    expect(config).toMatchObject({
      tableNameFormat: 'kafka_${topic}',
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:4567',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
      pkMode: 'record_value',
      pkFields: ['userId', 'ts'],
      deleteEnabled: false,
      deleteMode: 'delete',
      tombstoneTtlSeconds: 0,
      attributes: { topic: 'k.topic', offset: 'k.offset' },
      batchSize: 5,
      maxRetries: 0,
      retryBackoffMs: 7,
    });
  });

  it.each([
    [{ 'batch.size': '26' }, 'batch.size', 'Value must be no more than 25'],
    [{ 'batch.size': '0' }, 'batch.size', 'Value must be at least 1'],
    [{ 'pk.mode': 'kafka' }, 'pk.mode', 'String must be one of (case insensitive)'],
    [
      { 'insert.mode': 'insert' },
      'insert.mode',
      'String must be one of (case insensitive): UPSERT',
    ],
    [{ 'pk.fields': 'a,b,c' }, 'pk.fields', 'exceeds maximum list size of [2]'],
    [{ 'pk.fields': 'a,a' }, 'pk.fields', 'field names must be non-empty and distinct'],
    [{ 'table.name.format': '' }, 'table.name.format', 'String must be non-empty'],
    [{ 'aws.access.key.id': 'id' }, 'aws.secret.access.key', 'must be set together'],
  ])('rejects %o on %s', (props, key, message) => {
    // Act
    const error = configError(props);

    // Assess
    expect(error.key).toBe(key);
    expect(error.message).toContain(message);
  });

  it('refuses deletes with pk.mode=record_value, as the JDBC sink does', () => {
    // Act
    const error = configError({ 'pk.mode': 'record_value' });

    // Assess
    expect(error.key).toBe('delete.enabled');
    expect(error.message).toBe(
      'Invalid value true for configuration delete.enabled: deletes are only supported for pk.mode=record_key',
    );
  });
});

describe('tableNameFor', () => {
  it("replaces every ${topic} with the record's topic", () => {
    // Prepare
    const config = parseDynamoDbSinkConfig({ 'table.name.format': '${topic}_v1_${topic}' });

    // Act
    const table = tableNameFor(config, 'orders');

    // Assess
    expect(table).toBe('orders_v1_orders');
  });
});

describe('dynamoDbClientConfigOf', () => {
  it('disables SDK retries and passes region, endpoint and credentials when set', () => {
    // Prepare
    const local = parseDynamoDbSinkConfig({
      'aws.dynamodb.region': 'us-east-1',
      'aws.dynamodb.endpoint': 'http://127.0.0.1:4567',
      'aws.access.key.id': 'id',
      'aws.secret.access.key': 'secret',
    });

    // Act
    const forLocal = dynamoDbClientConfigOf(local);
    const forLambda = dynamoDbClientConfigOf(parseDynamoDbSinkConfig({}));

    // Assess
    expect(forLocal).toEqual({
      maxAttempts: 1,
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:4567',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
    });
    expect(forLambda).toEqual({ maxAttempts: 1 });
  });
});
