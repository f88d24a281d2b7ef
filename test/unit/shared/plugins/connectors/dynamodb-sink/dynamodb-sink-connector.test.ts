import { describe, expect, it } from 'vitest';
import { IllegalStateError } from '../../../../../../shared/connect/errors.js';
import { PluginRegistry } from '../../../../../../shared/connect/plugin.js';
import { dynamoDbSinkDescriptor } from '../../../../../../shared/plugins/connectors/dynamodb-sink/descriptor.js';
import { DynamoDbSinkConnector } from '../../../../../../shared/plugins/connectors/dynamodb-sink/dynamodb-sink-connector.js';
import { DynamoDbSinkTask } from '../../../../../../shared/plugins/connectors/dynamodb-sink/dynamodb-sink-task.js';
import { FakeDynamoDb, fakeDeps } from './fakes.js';

const connectorContext = { requestTaskReconfiguration: () => {}, raiseError: () => {} };

describe('DynamoDbSinkConnector', () => {
  it('gives every task the connector config', async () => {
    // Prepare
    const connector = new DynamoDbSinkConnector(fakeDeps(new FakeDynamoDb()));
    const props = { topics: 'orders', 'table.name.format': 'orders' };
    await connector.start(props, connectorContext);

    // Act
    const configs = await connector.taskConfigs(3);

    // Assess
    expect(configs).toEqual([props, props, props]);
  });

  it('refuses taskConfigs before start', async () => {
    // Prepare
    const connector = new DynamoDbSinkConnector(fakeDeps(new FakeDynamoDb()));

    // Act
    const act = connector.taskConfigs(1);

    // Assess
    await expect(act).rejects.toThrow(IllegalStateError);
  });

  it('reports cross-key errors on the offending key in validate', () => {
    // Prepare
    const connector = new DynamoDbSinkConnector(fakeDeps(new FakeDynamoDb()));

    // Act
    const values = connector.validate({ 'pk.mode': 'record_value' });

    // Assess
    const errors = Object.fromEntries(values.map((v) => [v.name, v.errors]));
    expect(errors['delete.enabled']).toEqual([
      'Invalid value true for configuration delete.enabled: deletes are only supported for pk.mode=record_key',
    ]);
    expect(errors['pk.mode']).toEqual([]);
  });

  it('reports key errors without the cross-key check', () => {
    // Prepare
    const connector = new DynamoDbSinkConnector(fakeDeps(new FakeDynamoDb()));

    // Act
    const values = connector.validate({ 'batch.size': '100' });

    // Assess
    const batchSize = values.find((v) => v.name === 'batch.size');
    expect(batchSize?.errors).toEqual([
      'Invalid value 100 for configuration batch.size: Value must be no more than 25',
    ]);
  });

  it('creates DynamoDB sink tasks and accepts offset changes', async () => {
    // Prepare
    const connector = new DynamoDbSinkConnector(fakeDeps(new FakeDynamoDb()));

    // Act
    const task = connector.createTask();
    const altered = await connector.alterOffsets({}, new Map([['orders-0', 5]]));

    // Assess
    expect(task).toBeInstanceOf(DynamoDbSinkTask);
    expect(altered).toBe(true);
  });
});

describe('dynamoDbSinkDescriptor', () => {
  it('resolves by its alias and creates a sink connector', () => {
    // Prepare
    const registry = new PluginRegistry().register(dynamoDbSinkDescriptor);

    // Act
    const connector = registry.resolve('dynamodb-sink', 'sink').create();

    // Assess
    expect(connector).toBeInstanceOf(DynamoDbSinkConnector);
    expect(connector.version()).toBe(dynamoDbSinkDescriptor.version);
  });
});
