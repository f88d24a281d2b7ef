import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../../shared/connect/errors.js';
import { Headers } from '../../../../../shared/connect/headers.js';
import { SourceRecord } from '../../../../../shared/connect/records.js';
import { Schemas } from '../../../../../shared/connect/schema.js';
import { HasHeaderKey } from '../../../../../shared/plugins/predicates/has-header-key.js';
import { RecordIsTombstone } from '../../../../../shared/plugins/predicates/record-is-tombstone.js';
import { TopicNameMatches } from '../../../../../shared/plugins/predicates/topic-name-matches.js';

const record = (topic: string, value: unknown = 'v', headers = new Headers()) =>
  new SourceRecord({ sourcePartition: null, sourceOffset: null, topic, value, headers });

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('TopicNameMatches', () => {
  it('matches topics against the whole pattern', () => {
    // Prepare
    const predicate = new TopicNameMatches();
    predicate.configure({ pattern: 'my-prefix-.*' });

    // Act / Assess
    expect(predicate.test(record('my-prefix-foo'))).toBe(true);
    expect(predicate.test(record('x-my-prefix-foo'))).toBe(false);
    expect(predicate.test(record('my-prefix'))).toBe(false);
  });

  it('rejects a missing, empty or invalid pattern', () => {
    // Act / Assess
    expect(thrown(() => new TopicNameMatches().configure({}))).toMatchObject({
      name: ConfigError.name,
      message: 'Missing required configuration "pattern" which has no default value.',
      key: 'pattern',
    });
    expect(() => new TopicNameMatches().configure({ pattern: '' })).toThrow(
      'Invalid value  for configuration pattern: String must be non-empty',
    );
    expect(thrown(() => new TopicNameMatches().configure({ pattern: '[' }))).toMatchObject({
      name: ConfigError.name,
      key: 'pattern',
    });
  });
});

describe('HasHeaderKey', () => {
  it('is true when at least one header has the name', () => {
    // Prepare
    const predicate = new HasHeaderKey();
    predicate.configure({ name: 'foo' });

    // Act / Assess
    expect(predicate.test(record('t', 'v', new Headers().add('foo', null)))).toBe(true);
    expect(predicate.test(record('t', 'v', new Headers().add('bar', 'foo')))).toBe(false);
    expect(predicate.test(record('t'))).toBe(false);
  });

  it('rejects a missing or empty name', () => {
    // Act / Assess
    expect(thrown(() => new HasHeaderKey().configure({}))).toMatchObject({ key: 'name' });
    expect(thrown(() => new HasHeaderKey().configure({ name: '' }))).toMatchObject({
      name: ConfigError.name,
      key: 'name',
    });
  });
});

describe('RecordIsTombstone', () => {
  it('is true only for records whose value is null', () => {
    // Prepare
    const predicate = new RecordIsTombstone();
    predicate.configure({});

    // Act / Assess
    expect(predicate.test(record('t', null))).toBe(true);
    expect(predicate.test(record('t', ''))).toBe(false);
    expect(
      predicate.test(
        new SourceRecord({
          sourcePartition: null,
          sourceOffset: null,
          topic: 't',
          valueSchema: Schemas.OPTIONAL_STRING,
          value: null,
        }),
      ),
    ).toBe(true);
    expect(predicate.config().names()).toEqual([]);
  });
});
