import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../shared/connect/errors.js';
import type { SinkRecord } from '../../../../../shared/connect/records.js';
import { RegexRouter } from '../../../../../shared/plugins/transforms/regex-router.js';
import { TimestampRouter } from '../../../../../shared/plugins/transforms/timestamp-router.js';
import { configured, sinkRecord, sourceRecord, thrown } from './fixtures.js';

const route = (regex: string, replacement: string, topic: string) =>
  configured(new RegexRouter(), { regex, replacement }).apply(sinkRecord({ topic }))?.topic;

describe('RegexRouter', () => {
  it('rewrites topics that match the whole regex, with $n group references', () => {
    // Act / Assess
    expect(route('foo', 'bar', 'foo')).toBe('bar');
    expect(route('(.*)', '$1', 'orig')).toBe('orig');
    expect(route('(.*)', 'prefix-$1', 'orig')).toBe('prefix-orig');
    expect(route('(.*)', '$1-suffix', 'orig')).toBe('orig-suffix');
    expect(route('(.*)-(\\d\\d\\d\\d\\d\\d\\d\\d)', '$1', 'index-20160117')).toBe('index');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Java replacement syntax under test
    expect(route('(?<name>[a-z]+)-(\\d+)', '${name}_$2', 'abc-12')).toBe('abc_12');
    expect(route('(a)', '\\$1', 'a')).toBe('$1');
  });

  it('leaves topics that match only partly, or not at all', () => {
    // Act / Assess
    expect(route('foo', 'bar', 'foobar')).toBe('foobar');
    expect(route('foo', 'baz', 'bar')).toBe('bar');
  });

  it('keeps everything but the topic', () => {
    // Prepare
    const record = sinkRecord({ topic: 'a', value: { v: 1 } });

    // Act
    const out = configured(new RegexRouter<SinkRecord>(), { regex: 'a', replacement: 'b' }).apply(
      record,
    );

    // Assess
    expect(out?.value).toBe(record.value);
    expect(out?.kafkaOffset).toBe(42);
    expect(record.topic).toBe('a');
  });

  it('rejects references to missing groups when applied', () => {
    // Act / Assess
    expect(() => route('(a)', '$2', 'a')).toThrow(new DataError('No group 2'));
  });

  it('rejects missing keys and invalid regexes', () => {
    // Act / Assess
    expect(thrown(() => new RegexRouter().configure({ replacement: 'x' }))).toMatchObject({
      name: ConfigError.name,
      key: 'regex',
    });
    expect(
      thrown(() => new RegexRouter().configure({ regex: '(', replacement: 'x' })),
    ).toMatchObject({ name: ConfigError.name, key: 'regex' });
  });
});

describe('TimestampRouter', () => {
  it('routes to topic-yyyyMMdd by default', () => {
    // Prepare
    const transform = configured(new TimestampRouter(), {});

    // Act
    const out = transform.apply(sourceRecord({ topic: 'test', timestamp: 1_483_425_001_864 }));

    // Assess
    expect(out?.topic).toBe('test-20170103');
  });

  it('uses the configured topic and timestamp formats in UTC', () => {
    // Prepare
    const transform = configured(new TimestampRouter(), {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Java replacement syntax under test
      'topic.format': 'logs_${timestamp}_${topic}',
      'timestamp.format': "yyyy-MM-dd'T'HH:mm:ss.SSS",
    });

    // Act
    const out = transform.apply(sinkRecord({ topic: 't$&', timestamp: 1_483_425_001_864 }));

    // Assess
    expect(out?.topic).toBe('logs_2017-01-03T06:30:01.864_t$&');
  });

  it('rejects records without a timestamp and invalid patterns', () => {
    // Act / Assess
    expect(() =>
      configured(new TimestampRouter(), {}).apply(sinkRecord({ timestamp: null })),
    ).toThrow(DataError);
    expect(
      thrown(() => new TimestampRouter().configure({ 'timestamp.format': 'yyyy-bb' })),
    ).toMatchObject({
      name: ConfigError.name,
      key: 'timestamp.format',
      message:
        "Invalid value yyyy-bb for configuration timestamp.format: Illegal pattern character 'b'",
    });
  });
});
