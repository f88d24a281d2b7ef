import { describe, expect, it } from 'vitest';
import { ConfigError, IllegalStateError } from '../../../../../../shared/connect/errors.js';
import { PluginRegistry } from '../../../../../../shared/connect/plugin.js';
import { s3SinkDescriptor } from '../../../../../../shared/plugins/connectors/s3-sink/descriptor.js';
import { S3SinkConnector } from '../../../../../../shared/plugins/connectors/s3-sink/s3-sink-connector.js';
import { S3SinkTask } from '../../../../../../shared/plugins/connectors/s3-sink/s3-sink-task.js';
import { FakeClock } from './fakes.js';

const props = {
  topics: 'orders',
  's3.bucket.name': 'lake',
  'flush.size': '500',
  'format.class': 'io.confluent.connect.s3.format.json.JsonFormat',
};
const context = { requestTaskReconfiguration: () => {}, raiseError: () => {} };

describe('S3SinkConnector', () => {
  it('gives every task the connector config', async () => {
    // Prepare
    const connector = new S3SinkConnector({ clock: new FakeClock() });
    await connector.start(props, context);

    // Act
    const configs = await connector.taskConfigs(3);

    // Assess
    expect(configs).toEqual([props, props, props]);
  });

  it('refuses an invalid config on start and taskConfigs before start', async () => {
    // Prepare
    const connector = new S3SinkConnector({ clock: new FakeClock() });

    // Act and Assess
    await expect(connector.taskConfigs(1)).rejects.toBeInstanceOf(IllegalStateError);
    await expect(connector.start({ ...props, 'flush.size': '0' }, context)).rejects.toBeInstanceOf(
      ConfigError,
    );
  });

  it('reports the rules between keys on the key they name', () => {
    // Prepare
    const connector = new S3SinkConnector({ clock: new FakeClock() });

    // Act
    const values = connector.validate({
      ...props,
      'partitioner.class': 'TimeBasedPartitioner',
      'partition.duration.ms': '60000',
      'path.format': 'YYYY',
      locale: 'en',
    });

    // Assess
    const errors = values.filter((v) => v.errors.length > 0).map((v) => [v.name, v.errors]);
    expect(errors).toEqual([
      ['timezone', ['Invalid value  for configuration timezone: Timezone cannot be empty.']],
    ]);
  });

  it('reports an unsupported format on format.class', () => {
    // Prepare
    const connector = new S3SinkConnector({ clock: new FakeClock() });

    // Act
    const values = connector.validate({ ...props, 'format.class': 'OrcFormat' });

    // Assess
    expect(values.find((v) => v.name === 'format.class')?.errors[0]).toContain(
      'OrcFormat is not supported by this S3 sink',
    );
  });

  it('creates S3 sink tasks and accepts offset changes', async () => {
    // Prepare
    const connector = new S3SinkConnector({ clock: new FakeClock() });

    // Act
    const task = connector.createTask();
    const accepted = await connector.alterOffsets(props, new Map([['orders-0', 10]]));

    // Assess
    expect(task).toBeInstanceOf(S3SinkTask);
    expect(accepted).toBe(true);
  });
});

describe('s3SinkDescriptor', () => {
  it('resolves as s3-sink and by its simple names', () => {
    // Prepare
    const registry = new PluginRegistry().register(s3SinkDescriptor);

    // Act
    const names = ['s3-sink', 'S3Sink', 'S3SinkConnector'].map(
      (name) => registry.resolve(name, 'sink').className,
    );

    // Assess
    expect(new Set(names)).toEqual(new Set([s3SinkDescriptor.className]));
    expect(s3SinkDescriptor.create()).toBeInstanceOf(S3SinkConnector);
  });
});
