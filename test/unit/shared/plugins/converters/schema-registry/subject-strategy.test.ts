import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../../shared/connect/errors.js';
import {
  parseSubjectNameStrategy,
  SUBJECT_NAME_STRATEGY_CONFIG_DEF,
  subjectName,
  subjectNameStrategyOf,
  usesRecordName,
} from '../../../../../../shared/plugins/converters/schema-registry/subject-strategy.js';

const PACKAGE = 'io.confluent.kafka.serializers.subject';

describe('subjectName', () => {
  it('names the subject after the topic and the side with TopicNameStrategy', () => {
    expect(subjectName('TopicNameStrategy', 'orders', false, 'com.example.Order')).toBe(
      'orders-value',
    );
    expect(subjectName('TopicNameStrategy', 'orders', true, null)).toBe('orders-key');
  });

  it("names the subject after the record's full name with RecordNameStrategy", () => {
    expect(subjectName('RecordNameStrategy', 'orders', false, 'com.example.Order')).toBe(
      'com.example.Order',
    );
  });

  it('joins topic and record name with TopicRecordNameStrategy', () => {
    expect(subjectName('TopicRecordNameStrategy', 'orders', true, 'com.example.OrderKey')).toBe(
      'orders-com.example.OrderKey',
    );
  });

  it("refuses a schema without a name under the record strategies, with Confluent's message", () => {
    expect(() => subjectName('RecordNameStrategy', 'orders', false, null)).toThrow(DataError);
    expect(() => subjectName('TopicRecordNameStrategy', 'orders', true, null)).toThrow(
      `In configuration key.subject.name.strategy = ${PACKAGE}.TopicRecordNameStrategy, the message key must only be a record schema`,
    );
  });
});

describe('subject name strategy config', () => {
  it("takes Confluent's class names and the simple names", () => {
    expect(parseSubjectNameStrategy(`${PACKAGE}.RecordNameStrategy`)).toBe('RecordNameStrategy');
    expect(parseSubjectNameStrategy(' TopicRecordNameStrategy ')).toBe('TopicRecordNameStrategy');
    expect(parseSubjectNameStrategy('com.example.MyStrategy')).toBeNull();
  });

  it('defaults both sides to TopicNameStrategy', () => {
    const values = SUBJECT_NAME_STRATEGY_CONFIG_DEF.parse({});
    expect(subjectNameStrategyOf(values, true)).toBe('TopicNameStrategy');
    expect(subjectNameStrategyOf(values, false)).toBe('TopicNameStrategy');
    expect(usesRecordName('TopicNameStrategy')).toBe(false);
  });

  it('reads the key strategy for keys and the value strategy for values', () => {
    const values = SUBJECT_NAME_STRATEGY_CONFIG_DEF.parse({
      'key.subject.name.strategy': 'RecordNameStrategy',
      'value.subject.name.strategy': `${PACKAGE}.TopicRecordNameStrategy`,
    });
    expect(subjectNameStrategyOf(values, true)).toBe('RecordNameStrategy');
    expect(subjectNameStrategyOf(values, false)).toBe('TopicRecordNameStrategy');
    expect(usesRecordName('RecordNameStrategy')).toBe(true);
  });

  it('refuses a strategy it does not have, naming the key', () => {
    let error: unknown;
    try {
      SUBJECT_NAME_STRATEGY_CONFIG_DEF.parse({
        'value.subject.name.strategy': 'com.example.CustomStrategy',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      /^Invalid value com\.example\.CustomStrategy for configuration value\.subject\.name\.strategy: Expected one of/,
    );
  });
});
