import { describe, expect, it } from 'vitest';
import { DataError, IllegalStateError } from '../../../../../../shared/connect/errors.js';
import { dynamoDbStreamsSourceDescriptor } from '../../../../../../shared/plugins/connectors/dynamodb-streams-source/descriptor.js';
import { DynamoDbStreamsSourceConnector } from '../../../../../../shared/plugins/connectors/dynamodb-streams-source/dynamodb-streams-source-connector.js';
import { DynamoDbStreamsSourceTask } from '../../../../../../shared/plugins/connectors/dynamodb-streams-source/dynamodb-streams-source-task.js';
import { builtinRegistry } from '../../../../../../shared/plugins/registry.js';
import { FakeClock } from './fakes.js';

const context = { requestTaskReconfiguration: () => {}, raiseError: () => {} };

function connector(): DynamoDbStreamsSourceConnector {
  return new DynamoDbStreamsSourceConnector({ clock: new FakeClock() });
}

describe('DynamoDbStreamsSourceConnector', () => {
  it('splits into tasks.max task configs without any I/O', async () => {
    // Prepare
    const c = connector();
    await c.start({ 'table.name': 'orders' }, context);

    // Act
    const configs = await c.taskConfigs(2);
    await c.stop();

    // Assess
    expect(configs).toEqual([
      { 'table.name': 'orders', 'task.index': '0', 'task.count': '2' },
      { 'table.name': 'orders', 'task.index': '1', 'task.count': '2' },
    ]);
  });

  it('refuses taskConfigs before start', async () => {
    // Act
    const error = await connector()
      .taskConfigs(1)
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(IllegalStateError);
  });

  it('reports cross-key problems in validate instead of throwing', () => {
    // Act
    const values = connector().validate({ 'aws.access.key.id': 'id' });
    const valid = connector().validate({ 'table.name': 'orders' });

    // Assess
    expect(values.find((v) => v.name === 'table.name')?.errors).toEqual([
      expect.stringMatching(/set table.name or stream.arn/),
    ]);
    expect(valid.every((v) => v.errors.length === 0)).toBe(true);
  });

  it('supports exactly-once delivery and leaves transaction boundaries to the runtime', () => {
    // Act
    const c = connector();

    // Assess
    expect(c.exactlyOnceSupport({})).toBe('SUPPORTED');
    expect(c.canDefineTransactionBoundaries({})).toBe('UNSUPPORTED');
    expect(c.createTask()).toBeInstanceOf(DynamoDbStreamsSourceTask);
  });

  it('accepts well-formed offset changes and rejects foreign ones', async () => {
    // Act
    const accepted = await connector().alterOffsets({}, [
      { partition: { table: 'orders', shard: 's-1' }, offset: { sequenceNumber: '5' } },
      { partition: { table: 'orders', shard: 's-2' }, offset: null },
    ]);
    const rejected = await connector()
      .alterOffsets({}, [{ partition: { file: 'x' }, offset: null }])
      .catch((e: unknown) => e);

    // Assess
    expect(accepted).toBe(true);
    expect(rejected).toBeInstanceOf(DataError);
  });

  it('resolves through a registry under its alias and class names', () => {
    // Prepare
    const registry = builtinRegistry();

    // Act
    const names = [
      'dynamodb-streams',
      'DynamoDbStreamsSourceConnector',
      'DynamoDbStreamsSource',
    ].map((name) => registry.resolve(name, 'source').className);

    // Assess
    expect(new Set(names)).toEqual(new Set([dynamoDbStreamsSourceDescriptor.className]));
    expect(registry.resolve('dynamodb-streams', 'source').create()).toBeInstanceOf(
      DynamoDbStreamsSourceConnector,
    );
  });
});
