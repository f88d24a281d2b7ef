import { describe, expect, it } from 'vitest';
import { createMemoryStateStore } from '../../../../shared/adapters/memory/memory-state-store.js';
import { s3SourcesReading } from '../../../../shared/engine/s3-sources.js';

describe('s3SourcesReading', () => {
  it('finds the S3 sources whose bucket and prefix hold the object, and no other connector', async () => {
    // Prepare
    const store = createMemoryStateStore();
    const s3 = (name: string, bucket: string, prefix?: string) =>
      store.configs.createConnector(name, {
        name,
        'connector.class': 's3-source',
        's3.bucket.name': bucket,
        topic: 't',
        ...(prefix === undefined ? {} : { 's3.prefix': prefix }),
      });
    await s3('logs', 'data', 'logs/');
    await s3('everything', 'data');
    await s3('metrics', 'data', 'metrics/');
    await s3('elsewhere', 'other');
    await store.configs.createConnector('gen', {
      name: 'gen',
      'connector.class': 'datagen',
      's3.bucket.name': 'data',
    });
    // Act
    const found = await s3SourcesReading(store.configs, [{ bucket: 'data', key: 'logs/a.txt' }]);
    // Assess
    expect(found).toEqual(['everything', 'logs']);
  });
});
