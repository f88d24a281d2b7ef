import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  DataError,
  IllegalStateError,
} from '../../../../../../shared/connect/errors.js';
import { s3SourceDescriptor } from '../../../../../../shared/plugins/connectors/s3-source/descriptor.js';
import { S3SourceConnector } from '../../../../../../shared/plugins/connectors/s3-source/s3-source-connector.js';
import { S3SourceTask } from '../../../../../../shared/plugins/connectors/s3-source/s3-source-task.js';
import { FakeClock, FakeS3 } from './fakes.js';

const context = { requestTaskReconfiguration: () => {}, raiseError: () => {} };
const base = { 's3.bucket.name': 'bucket', topic: 'out' };

function connectorOver(s3: FakeS3): S3SourceConnector {
  return new S3SourceConnector({ clock: new FakeClock(), createClient: () => s3 });
}

describe('S3SourceConnector', () => {
  it('splits the first-level directories under the prefix over the tasks', async () => {
    // Prepare
    const s3 = new FakeS3('bucket', 2)
      .put('app/top.txt', 'x')
      .put('app/a/1', 'x')
      .put('app/a/deep/2', 'x')
      .put('app/b/1', 'x')
      .put('app/c/1', 'x')
      .put('other/d/1', 'x');
    const connector = connectorOver(s3);
    await connector.start({ ...base, 's3.prefix': 'app/' }, context);

    // Act
    const tasks = await connector.taskConfigs(2);

    // Assess
    expect(tasks.map((t) => [t['task.prefixes'], t['task.root.objects']])).toEqual([
      ['app/a/,app/c/', 'true'],
      ['app/b/', 'false'],
    ]);
    expect(s3.destroyed).toBe(true);
  });

  it('gives the whole prefix to one task when there are no directories', async () => {
    // Prepare
    const s3 = new FakeS3().put('app/1.txt', 'x').put('app/2.txt', 'x');
    const connector = connectorOver(s3);
    await connector.start({ ...base, 's3.prefix': 'app/' }, context);

    // Act
    const tasks = await connector.taskConfigs(4);

    // Assess
    expect(tasks).toEqual([
      { ...base, 's3.prefix': 'app/', 'task.prefixes': 'app/', 'task.root.objects': 'false' },
    ]);
  });

  it('refuses taskConfigs before start', async () => {
    // Prepare
    const connector = connectorOver(new FakeS3());

    // Act
    const configs = connector.taskConfigs(1);

    // Assess
    await expect(configs).rejects.toBeInstanceOf(IllegalStateError);
  });

  it('fails to start with a ConfigError on a bad config', async () => {
    // Prepare
    const connector = connectorOver(new FakeS3());

    // Act
    const start = connector.start({ topic: 'out' }, context);

    // Assess
    await expect(start).rejects.toBeInstanceOf(ConfigError);
  });

  it('reports a lone access key id on the missing secret when validating', () => {
    // Prepare
    const connector = connectorOver(new FakeS3());

    // Act
    const values = connector.validate({ ...base, 'aws.access.key.id': 'AKIA' });

    // Assess
    const errors = values.filter((v) => v.errors.length > 0);
    expect(errors.map((v) => v.name)).toEqual(['aws.secret.access.key']);
  });

  it('supports exactly-once delivery but not task-defined transaction boundaries', () => {
    // Prepare
    const connector = connectorOver(new FakeS3());

    // Assess
    expect(connector.exactlyOnceSupport(base)).toBe('SUPPORTED');
    expect(connector.canDefineTransactionBoundaries(base)).toBe('UNSUPPORTED');
  });

  it('accepts well-formed offsets and resets, and rejects foreign ones', async () => {
    // Prepare
    const connector = connectorOver(new FakeS3());
    const partition = { bucket: 'bucket', key: 'a.txt' };

    // Act
    const accepted = await connector.alterOffsets(base, [
      { partition, offset: { position: 3, eof: false } },
      { partition, offset: null },
    ]);
    const foreign = connector.alterOffsets(base, [
      { partition: { file: 'a.txt' }, offset: { position: 1, eof: false } },
    ]);
    const malformed = connector.alterOffsets(base, [{ partition, offset: { position: -1 } }]);

    // Assess
    expect(accepted).toBe(true);
    await expect(foreign).rejects.toBeInstanceOf(DataError);
    await expect(malformed).rejects.toBeInstanceOf(DataError);
  });

  it('creates S3 source tasks', () => {
    // Assess
    expect(connectorOver(new FakeS3()).createTask()).toBeInstanceOf(S3SourceTask);
  });
});

describe('s3SourceDescriptor', () => {
  it('registers the source connector under its class name and aliases', () => {
    // Act
    const connector = s3SourceDescriptor.create();

    // Assess
    expect(s3SourceDescriptor.className).toBe('dev.serverlessconnect.connectors.S3SourceConnector');
    expect(s3SourceDescriptor.aliases).toEqual(['s3-source', 'S3Source', 'S3SourceConnector']);
    expect(s3SourceDescriptor.type).toBe('source');
    expect(connector).toBeInstanceOf(S3SourceConnector);
    expect(connector.version()).toBe(s3SourceDescriptor.version);
  });
});
