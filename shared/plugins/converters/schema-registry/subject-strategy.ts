/**
 * Subject name strategies: under which registry subject a converter registers and looks up the
 * schema of a record's key or value (Confluent's `io.confluent.kafka.serializers.subject.*`).
 *
 * | strategy                  | subject                          |
 * |---------------------------|----------------------------------|
 * | `TopicNameStrategy`       | `<topic>-key` or `<topic>-value` |
 * | `RecordNameStrategy`      | `<record full name>`             |
 * | `TopicRecordNameStrategy` | `<topic>-<record full name>`     |
 *
 * The record name is the format's own: an Avro record's full name, a Protobuf message's full
 * name, a JSON Schema's title. The converters' keys `key.subject.name.strategy` and
 * `value.subject.name.strategy` take Confluent's class names or the simple names.
 *
 * @example
 * const strategy = subjectNameStrategyOf(values, isKey);
 * const subject = subjectName(strategy, 'orders', isKey, 'com.example.Order');
 */
import {
  ConfigDef,
  type ConfigError,
  DataError,
  invalidValue,
  type Validator,
} from 'serverless-connect/connect';

export const KEY_SUBJECT_NAME_STRATEGY_CONFIG = 'key.subject.name.strategy';
export const VALUE_SUBJECT_NAME_STRATEGY_CONFIG = 'value.subject.name.strategy';

/** The strategies, by simple name. */
export type SubjectNameStrategy =
  | 'TopicNameStrategy'
  | 'RecordNameStrategy'
  | 'TopicRecordNameStrategy';

const PACKAGE = 'io.confluent.kafka.serializers.subject';
const STRATEGIES: readonly SubjectNameStrategy[] = [
  'TopicNameStrategy',
  'RecordNameStrategy',
  'TopicRecordNameStrategy',
];

/** Confluent's class name of `strategy`, as its configs and messages name it. */
export function strategyClassName(strategy: SubjectNameStrategy): string {
  return `${PACKAGE}.${strategy}`;
}

/** The strategy a config value names (a class name or a simple name), or `null`. */
export function parseSubjectNameStrategy(text: string): SubjectNameStrategy | null {
  const trimmed = text.trim();
  const simple = trimmed.startsWith(`${PACKAGE}.`) ? trimmed.slice(PACKAGE.length + 1) : trimmed;
  return STRATEGIES.find((s) => s === simple) ?? null;
}

function invalidStrategy(name: string, value: unknown): ConfigError {
  return invalidValue(
    name,
    value,
    `Expected one of ${STRATEGIES.map(strategyClassName).join(', ')} (or its simple name)`,
  );
}

const STRATEGY_VALIDATOR: Validator = {
  ensureValid(name: string, value: unknown): void {
    if (typeof value !== 'string' || parseSubjectNameStrategy(value) === null) {
      throw invalidStrategy(name, value);
    }
  },
  toString(): string {
    return `[${STRATEGIES.map(strategyClassName).join(', ')}]`;
  },
};

const GROUP = 'Schema Registry';

function strategyDoc(what: 'key' | 'value'): string {
  return (
    `Determines how to construct the subject name under which the ${what} schema is ` +
    'registered with the schema registry: TopicNameStrategy (<topic>-' +
    `${what}), RecordNameStrategy (the record's full name) or TopicRecordNameStrategy ` +
    `(<topic>-<record full name>), by Confluent's class name (${PACKAGE}.*) or simple name.`
  );
}

/** The two strategy keys; a converter's ConfigDef adds them (`withAll`). */
export const SUBJECT_NAME_STRATEGY_CONFIG_DEF: ConfigDef = new ConfigDef()
  .define({
    name: KEY_SUBJECT_NAME_STRATEGY_CONFIG,
    type: 'CLASS',
    defaultValue: strategyClassName('TopicNameStrategy'),
    validator: STRATEGY_VALIDATOR,
    importance: 'MEDIUM',
    group: GROUP,
    documentation: strategyDoc('key'),
  })
  .define({
    name: VALUE_SUBJECT_NAME_STRATEGY_CONFIG,
    type: 'CLASS',
    defaultValue: strategyClassName('TopicNameStrategy'),
    validator: STRATEGY_VALIDATOR,
    importance: 'MEDIUM',
    group: GROUP,
    documentation: strategyDoc('value'),
  });

/**
 * The strategy for keys or values from config `values` parsed with
 * {@link SUBJECT_NAME_STRATEGY_CONFIG_DEF} (TopicNameStrategy when the key is absent).
 */
export function subjectNameStrategyOf(
  values: Readonly<Record<string, unknown>>,
  isKey: boolean,
): SubjectNameStrategy {
  const key = isKey ? KEY_SUBJECT_NAME_STRATEGY_CONFIG : VALUE_SUBJECT_NAME_STRATEGY_CONFIG;
  const text = values[key];
  if (text === undefined || text === null) return 'TopicNameStrategy';
  const strategy = parseSubjectNameStrategy(String(text));
  if (strategy === null) STRATEGY_VALIDATOR.ensureValid(key, text);
  return strategy as SubjectNameStrategy;
}

/** Whether `strategy` needs the record's name (so a schema must be known before the subject). */
export function usesRecordName(strategy: SubjectNameStrategy): boolean {
  return strategy !== 'TopicNameStrategy';
}

/**
 * The subject of a key (`isKey`) or value of `topic` whose schema's full name is `recordName`
 * (`null` for a schema without a name: a primitive, an array).
 * @throws DataError when the strategy needs a record name and `recordName` is `null`, with
 *   Confluent's message.
 */
export function subjectName(
  strategy: SubjectNameStrategy,
  topic: string,
  isKey: boolean,
  recordName: string | null,
): string {
  if (strategy === 'TopicNameStrategy') return `${topic}-${isKey ? 'key' : 'value'}`;
  if (recordName === null || recordName === '') {
    const key = isKey ? KEY_SUBJECT_NAME_STRATEGY_CONFIG : VALUE_SUBJECT_NAME_STRATEGY_CONFIG;
    throw new DataError(
      `In configuration ${key} = ${strategyClassName(strategy)}, the message ` +
        `${isKey ? 'key' : 'value'} must only be a record schema`,
    );
  }
  return strategy === 'RecordNameStrategy' ? recordName : `${topic}-${recordName}`;
}
