import { describe, expect, it } from 'vitest';
import { createdObjectsOf, s3SourcesReading } from '../../../../functions/enumerator/s3-trigger.js';
import { createMemoryStateStore } from '../../../../shared/adapters/memory/memory-state-store.js';

const s3Event = (bucket: string, key: string, eventName = 'ObjectCreated:Put') => ({
  Records: [
    { eventSource: 'aws:s3', eventName, s3: { bucket: { name: bucket }, object: { key } } },
  ],
});

describe('S3 object-created trigger of the enumerator', () => {
  it('reads the objects of S3 notifications and EventBridge events, decoding keys', () => {
    const direct = createdObjectsOf(s3Event('data', 'logs/2026/a+b%2Bc.jsonl'));
    const bridged = createdObjectsOf({
      source: 'aws.s3',
      'detail-type': 'Object Created',
      detail: { bucket: { name: 'data' }, object: { key: 'logs/x.txt' } },
    });
    const removed = createdObjectsOf(s3Event('data', 'logs/y', 'ObjectRemoved:Delete'));

    expect(direct).toEqual([{ bucket: 'data', key: 'logs/2026/a b+c.jsonl' }]);
    expect(bridged).toEqual([{ bucket: 'data', key: 'logs/x.txt' }]);
    expect(removed).toEqual([]);
    expect(createdObjectsOf({ connector: 'c' })).toBeUndefined();
    expect(createdObjectsOf({ Records: [{ dynamodb: { Keys: {} } }] })).toBeUndefined();
  });

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
