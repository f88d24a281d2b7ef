import { describe, expect, it } from 'vitest';
import { connectorOfItemKeys } from '../../../../../shared/adapters/dynamodb/table-schema.js';
import {
  createdObjectsOf,
  enumeratorRunScope,
  parseSourceTaskEvent,
} from '../../../../../shared/adapters/lambda/events.js';
import { ConfigError } from '../../../../../shared/connect/errors.js';

const s3Event = (bucket: string, key: string, eventName = 'ObjectCreated:Put') => ({
  Records: [
    { eventSource: 'aws:s3', eventName, s3: { bucket: { name: bucket }, object: { key } } },
  ],
});

describe('Lambda events', () => {
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

  it('reconciles the nudged connector, the connectors of stream records, or else every connector', () => {
    // Prepare
    const stream = {
      Records: [
        { dynamodb: { Keys: { pk: { S: 'C#orders' }, sk: { S: 'TASK#000001' } } } },
        { dynamodb: { Keys: { pk: { S: 'LOGGERS' }, sk: { S: 'LOGGER#root' } } } },
        { dynamodb: { Keys: { pk: { S: 'C#audit' }, sk: { S: 'CONNECTOR' } } } },
        { dynamodb: { Keys: { pk: { S: 'C#orders' }, sk: { S: 'STATUS' } } } },
      ],
    };
    // Act
    const nudge = enumeratorRunScope({ connector: 'orders' }, connectorOfItemKeys);
    const changed = enumeratorRunScope(stream, connectorOfItemKeys);
    const schedule = enumeratorRunScope(
      { source: 'aws.events', 'detail-type': 'Scheduled Event' },
      connectorOfItemKeys,
    );
    const s3 = enumeratorRunScope(s3Event('data', 'a.txt'), connectorOfItemKeys);
    // Assess
    expect(nudge).toEqual({ kind: 'connectors', connectors: ['orders'] });
    expect(changed).toEqual({ kind: 'connectors', connectors: ['audit', 'orders'] });
    expect(schedule).toEqual({ kind: 'all' });
    expect(s3).toEqual({ kind: 'created-objects', objects: [{ bucket: 'data', key: 'a.txt' }] });
  });

  it('reads a source-task event and refuses one without a connector, task or generation', () => {
    expect(parseSourceTaskEvent({ connector: 'orders', task: 1, generation: 3 })).toEqual({
      connector: 'orders',
      task: 1,
      generation: 3,
    });
    expect(() => parseSourceTaskEvent({ connector: 'orders', task: -1, generation: 0 })).toThrow(
      ConfigError,
    );
    expect(() => parseSourceTaskEvent(undefined)).toThrow(/"connector": <name>/);
  });

  it('reads the idle streak a dispatch continues, and refuses a negative one', () => {
    const event = { connector: 'orders', task: 0, generation: 3 };

    expect(parseSourceTaskEvent({ ...event, idleStreak: 4 })).toEqual({ ...event, idleStreak: 4 });
    expect(parseSourceTaskEvent({ ...event, idleStreak: 0 })).toEqual(event);
    expect(() => parseSourceTaskEvent({ ...event, idleStreak: -1 })).toThrow(ConfigError);
  });
});
