import { describe, expect, it } from 'vitest';
import type { ConnectorContext } from '../../../../../../shared/connect/context.js';
import {
  ConfigError,
  DataError,
  IllegalStateError,
} from '../../../../../../shared/connect/errors.js';
import { PluginRegistry } from '../../../../../../shared/connect/plugin.js';
import { DatagenSourceConnector } from '../../../../../../shared/plugins/connectors/datagen/datagen-source-connector.js';
import { DatagenSourceTask } from '../../../../../../shared/plugins/connectors/datagen/datagen-source-task.js';
import { datagenDescriptor } from '../../../../../../shared/plugins/connectors/datagen/descriptor.js';
import { FakeClock, positions, taskContext } from './fakes.js';

const connectorContext: ConnectorContext = {
  requestTaskReconfiguration: () => {},
  raiseError: () => {},
};

describe('DatagenSourceConnector', () => {
  it('splits the source partitions into task configs the tasks then generate', async () => {
    // Prepare
    const clock = new FakeClock();
    const connector = new DatagenSourceConnector({ clock });
    const props = { 'kafka.topic': 'out', 'source.partitions': '5', 'records.per.poll': '10' };
    await connector.start(props, connectorContext);

    // Act
    const configs = await connector.taskConfigs(2);
    const batches = await Promise.all(
      configs.map(async (config) => {
        const task = connector.createTask();
        await task.start(config, taskContext(config));
        return positions(await task.poll()).map(([partition]) => partition);
      }),
    );

    // Assess
    expect(configs.map((c) => c['task.partitions'])).toEqual(['0,2,4', '1,3']);
    expect(configs[1]).toMatchObject(props);
    expect(new Set(batches[0])).toEqual(new Set([0, 2, 4]));
    expect(new Set(batches[1])).toEqual(new Set([1, 3]));
  });

  it('fails to start with ConfigError when kafka.topic is missing', async () => {
    // Prepare
    const connector = new DatagenSourceConnector({ clock: new FakeClock() });

    // Act
    const start = connector.start({ quickstart: 'users' }, connectorContext);

    // Assess
    await expect(start).rejects.toThrow(ConfigError);
    await expect(start).rejects.toThrow(
      'Missing required configuration "kafka.topic" which has no default value.',
    );
  });

  it('refuses taskConfigs before start', async () => {
    // Prepare
    const connector = new DatagenSourceConnector({ clock: new FakeClock() });

    // Act
    const configs = connector.taskConfigs(1);

    // Assess
    await expect(configs).rejects.toBeInstanceOf(IllegalStateError);
  });

  it('reports the missing topic through validate', () => {
    // Prepare
    const connector = new DatagenSourceConnector({ clock: new FakeClock() });

    // Act
    const values = connector.validate({});

    // Assess
    expect(values.find((v) => v.name === 'kafka.topic')?.errors).toEqual([
      'Missing required configuration "kafka.topic" which has no default value.',
    ]);
  });

  it('supports exactly-once delivery and connector-defined transaction boundaries', () => {
    // Prepare
    const connector = new DatagenSourceConnector({ clock: new FakeClock() });

    // Act
    const support = connector.exactlyOnceSupport({ 'kafka.topic': 'out' });
    const boundaries = connector.canDefineTransactionBoundaries({ 'kafka.topic': 'out' });

    // Assess
    expect(support).toBe('SUPPORTED');
    expect(boundaries).toBe('SUPPORTED');
  });

  it('accepts altered and reset datagen offsets', async () => {
    // Prepare
    const connector = new DatagenSourceConnector({ clock: new FakeClock() });

    // Act
    const acknowledged = await connector.alterOffsets({ 'kafka.topic': 'out' }, [
      { partition: { 'datagen.partition': 0 }, offset: { seq: 100 } },
      { partition: { 'datagen.partition': 1 }, offset: null },
    ]);

    // Assess
    expect(acknowledged).toBe(true);
  });

  it.each([
    ['a foreign partition', { partition: { file: 'a.txt' }, offset: { seq: 1 } }],
    ['a negative seq', { partition: { 'datagen.partition': 0 }, offset: { seq: -1 } }],
  ])('rejects %s in alterOffsets with DataError', async (_name, entry) => {
    // Prepare
    const connector = new DatagenSourceConnector({ clock: new FakeClock() });

    // Act
    const altered = connector.alterOffsets({ 'kafka.topic': 'out' }, [entry]);

    // Assess
    await expect(altered).rejects.toBeInstanceOf(DataError);
  });
});

describe('datagenDescriptor', () => {
  it.each(['datagen', 'DatagenSource', 'DatagenConnector', 'DatagenSourceConnector'])(
    'resolves as a source connector by the name %s',
    (name) => {
      // Prepare
      const registry = new PluginRegistry().register(datagenDescriptor);

      // Act
      const resolved = registry.resolve(name, 'source');

      // Assess
      expect(resolved.className).toBe('dev.serverlessconnect.connectors.DatagenSourceConnector');
    },
  );

  it('creates a fresh connector whose tasks run on the wall clock', async () => {
    // Prepare
    const connector = datagenDescriptor.create();
    const task = connector.createTask();
    const props = { 'kafka.topic': 'out', 'records.per.poll': '2' };
    const before = Date.now();

    // Act
    await task.start(props, taskContext(props));
    const records = (await task.poll()) ?? [];

    // Assess
    expect(connector).not.toBe(datagenDescriptor.create());
    expect(task).toBeInstanceOf(DatagenSourceTask);
    expect(records).toHaveLength(2);
    expect(records[0]?.timestamp).toBeGreaterThanOrEqual(before);
  });
});
