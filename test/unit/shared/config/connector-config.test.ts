import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  connectorConfigDef,
  connectorPluginConfigKeyInfos,
  DEFAULT_CONVERTERS,
  ConnectorConfigNames as N,
  type PluginConfigLookup,
  parseConnectorConfig,
  validateConnectorConfig,
  validateConnectorConfigInfos,
} from '../../../../shared/config/connector-config.js';
import { ConfigDef, type ConfigValue, Password } from '../../../../shared/connect/config-def.js';
import { Range } from '../../../../shared/connect/config-validators.js';
import { ConfigError } from '../../../../shared/connect/errors.js';

const JSON_CONVERTER = 'org.apache.kafka.connect.json.JsonConverter';
const SIMPLE_HEADER_CONVERTER = 'org.apache.kafka.connect.storage.SimpleHeaderConverter';

const regexRouterDef = () =>
  new ConfigDef()
    .define({ name: 'regex', type: 'STRING', importance: 'HIGH', documentation: 'Regex to match.' })
    .define({
      name: 'replacement',
      type: 'STRING',
      importance: 'HIGH',
      documentation: 'Replacement.',
    })
    .define({
      name: 'predicate',
      type: 'INT',
      defaultValue: 0,
      importance: 'LOW',
      documentation: 'A plugin key masked by the implicit one.',
    });

const topicNameMatchesDef = () =>
  new ConfigDef().define({
    name: 'pattern',
    type: 'STRING',
    importance: 'MEDIUM',
    documentation: 'Topic regex.',
  });

/** A fake plugin registry. */
const lookup: PluginConfigLookup = (className, kind) => {
  if (kind === 'transformation' && className === 'RegexRouter') return regexRouterDef();
  if (kind === 'predicate' && className === 'TopicNameMatches') return topicNameMatchesDef();
  if ((kind === 'converter' || kind === 'header_converter') && className === JSON_CONVERTER) {
    return new ConfigDef();
  }
  if (kind === 'header_converter' && className === SIMPLE_HEADER_CONVERTER) return new ConfigDef();
  if (kind === 'converter' && className === 'StringConverter') return new ConfigDef();
  return undefined;
};

const s3SinkDef = () =>
  new ConfigDef()
    .define({
      name: 's3.bucket.name',
      type: 'STRING',
      importance: 'HIGH',
      documentation: 'Bucket.',
      group: 'S3',
      orderInGroup: 1,
    })
    .define({
      name: 'aws.secret.access.key',
      type: 'PASSWORD',
      defaultValue: null,
      importance: 'HIGH',
      documentation: 'Secret key.',
      group: 'S3',
      orderInGroup: 2,
    });

const sinkProps = (extra: Record<string, string | null> = {}) => ({
  name: 's3-sink',
  'connector.class': 'org.example.S3SinkConnector',
  topics: 'orders',
  's3.bucket.name': 'bucket',
  ...extra,
});

function errorsOf(values: ConfigValue[], name: string): string[] {
  return values.filter((v) => v.name === name).flatMap((v) => v.errors);
}

function allErrors(values: ConfigValue[]): string[] {
  return values.flatMap((v) => v.errors);
}

describe('connectorConfigDef', () => {
  it.each([
    ['name', 'STRING', false, undefined, 'Common', 1, 'MEDIUM', 'Connector name'],
    ['connector.class', 'STRING', false, undefined, 'Common', 2, 'LONG', 'Connector class'],
    ['tasks.max', 'INT', true, 1, 'Common', 3, 'SHORT', 'Tasks max'],
    ['tasks.max.enforce', 'BOOLEAN', true, true, 'Common', 4, 'SHORT', 'Enforce tasks max'],
    ['key.converter', 'CLASS', true, JSON_CONVERTER, 'Common', 5, 'SHORT', 'Key converter class'],
    [
      'value.converter',
      'CLASS',
      true,
      JSON_CONVERTER,
      'Common',
      6,
      'SHORT',
      'Value converter class',
    ],
    [
      'header.converter',
      'CLASS',
      true,
      SIMPLE_HEADER_CONVERTER,
      'Common',
      7,
      'SHORT',
      'Header converter class',
    ],
    ['transforms', 'LIST', true, [], 'Transforms', 8, 'LONG', 'Transforms'],
    ['predicates', 'LIST', true, [], 'Predicates', 9, 'LONG', 'Predicates'],
    ['config.action.reload', 'STRING', true, 'restart', 'Common', 10, 'MEDIUM', 'Reload Action'],
    [
      'errors.retry.timeout',
      'LONG',
      true,
      0,
      'Error Handling',
      1,
      'MEDIUM',
      'Retry Timeout for Errors',
    ],
    [
      'errors.retry.delay.max.ms',
      'LONG',
      true,
      60000,
      'Error Handling',
      2,
      'MEDIUM',
      'Maximum Delay Between Retries for Errors',
    ],
    ['errors.tolerance', 'STRING', true, 'none', 'Error Handling', 3, 'SHORT', 'Error Tolerance'],
    ['errors.log.enable', 'BOOLEAN', true, false, 'Error Handling', 4, 'SHORT', 'Log Errors'],
    [
      'errors.log.include.messages',
      'BOOLEAN',
      true,
      false,
      'Error Handling',
      5,
      'SHORT',
      'Log Error Details',
    ],
    ['topics', 'LIST', true, [], 'Common', 4, 'LONG', 'Topics'],
    ['topics.regex', 'STRING', true, '', 'Common', 4, 'LONG', 'Topics regex'],
    [
      'errors.deadletterqueue.topic.name',
      'STRING',
      true,
      '',
      'Error Handling',
      6,
      'MEDIUM',
      'Dead Letter Queue Topic Name',
    ],
    [
      'errors.deadletterqueue.topic.replication.factor',
      'SHORT',
      true,
      3,
      'Error Handling',
      7,
      'MEDIUM',
      'Dead Letter Queue Topic Replication Factor',
    ],
    [
      'errors.deadletterqueue.context.headers.enable',
      'BOOLEAN',
      true,
      false,
      'Error Handling',
      8,
      'MEDIUM',
      'Enable Error Context Headers',
    ],
  ])(
    'defines sink key %s as Connect does',
    (name, type, hasDefault, defaultValue, group, order, width, display) => {
      const key = connectorConfigDef('sink').configKey(name);
      expect(key).toMatchObject({
        type,
        hasDefault,
        group,
        orderInGroup: order,
        width,
        displayName: display,
      });
      if (hasDefault) expect(key?.defaultValue).toEqual(defaultValue);
    },
  );

  it.each([
    ['topic.creation.groups', 'LIST', [], 'Topic Creation', 1],
    ['exactly.once.support', 'STRING', 'requested', 'Exactly Once Support', 2],
    ['transaction.boundary', 'STRING', 'poll', 'Exactly Once Support', 3],
    ['transaction.boundary.interval.ms', 'LONG', null, 'Exactly Once Support', 4],
    ['offsets.storage.topic', 'STRING', null, 'offsets.topic', 1],
    ['errors.deadletterqueue.topic.name', 'STRING', '', 'Error Handling', 6],
  ])(
    'defines source key %s as Connect does (plus the DLQ)',
    (name, type, defaultValue, group, order) => {
      const key = connectorConfigDef('source').configKey(name);
      expect(key).toMatchObject({ type, defaultValue, group, orderInGroup: order });
    },
  );

  it('keeps sink-only keys out of sources and source-only keys out of sinks', () => {
    expect(connectorConfigDef('source').configKey('topics')).toBeUndefined();
    expect(connectorConfigDef('sink').configKey('exactly.once.support')).toBeUndefined();
  });

  it("uses the JSON converter for keys and values and Connect's SimpleHeaderConverter for headers by default", () => {
    expect(DEFAULT_CONVERTERS).toEqual({
      key: JSON_CONVERTER,
      value: JSON_CONVERTER,
      header: SIMPLE_HEADER_CONVERTER,
    });
  });
});

describe('validateConnectorConfig', () => {
  it('accepts a minimal valid sink config without errors', () => {
    const values = validateConnectorConfig(sinkProps(), 'sink', s3SinkDef(), lookup);
    expect(allErrors(values)).toEqual([]);
  });

  it('reports neither topics nor topics.regex on both keys', () => {
    const values = validateConnectorConfig(
      sinkProps({ topics: '  ' }),
      'sink',
      s3SinkDef(),
      lookup,
    );
    const message = 'Must configure one of topics or topics.regex';
    expect(errorsOf(values, 'topics')).toEqual([message]);
    expect(errorsOf(values, 'topics.regex')).toEqual([message]);
  });

  it('reports both topics and topics.regex on both keys', () => {
    const values = validateConnectorConfig(
      sinkProps({ 'topics.regex': 'orders.*' }),
      'sink',
      s3SinkDef(),
      lookup,
    );
    const message = 'topics and topics.regex are mutually exclusive options, but both are set.';
    expect(errorsOf(values, 'topics')).toEqual([message]);
    expect(errorsOf(values, 'topics.regex')).toEqual([message]);
  });

  it('rejects a DLQ topic listed in topics or matched by topics.regex', () => {
    const listed = validateConnectorConfig(
      sinkProps({ topics: 'orders, dlq', [N.DLQ_TOPIC_NAME]: ' dlq ' }),
      'sink',
      s3SinkDef(),
      lookup,
    );
    expect(errorsOf(listed, 'topics')).toEqual([
      "The DLQ topic 'dlq' may not be included in the list of topics ('topics=[orders, dlq]') consumed by the connector",
    ]);
    const matched = validateConnectorConfig(
      sinkProps({ topics: '', 'topics.regex': 'd.*', [N.DLQ_TOPIC_NAME]: 'dlq' }),
      'sink',
      s3SinkDef(),
      lookup,
    );
    expect(errorsOf(matched, 'topics.regex')).toEqual([
      "The DLQ topic 'dlq' may not be matched by the regex for the topics ('topics.regex=d.*') consumed by the connector",
    ]);
  });

  it('reports an invalid topics.regex without throwing', () => {
    const values = validateConnectorConfig(
      sinkProps({ topics: '', 'topics.regex': '(', [N.DLQ_TOPIC_NAME]: 'dlq' }),
      'sink',
      s3SinkDef(),
      lookup,
    );
    expect(errorsOf(values, 'topics.regex')[0]).toMatch(
      /^Invalid value \( for configuration topics\.regex: Invalid regex/,
    );
  });

  it.each([
    ['tasks.max', '0', 'Invalid value 0 for configuration tasks.max: Value must be at least 1'],
    ['tasks.max', 'abc', 'Invalid value abc for configuration tasks.max: Not a number of type INT'],
    [
      'errors.tolerance',
      'ALL',
      'Invalid value ALL for configuration errors.tolerance: String must be one of: none, all',
    ],
    [
      'name',
      'a\nb',
      'Invalid value a\nb for configuration name: String may not contain control sequences but had the following ASCII chars: 10',
    ],
    [
      'transforms',
      'a,a',
      'Invalid value [a, a] for configuration transforms: Duplicate alias provided.',
    ],
  ])('reports %s=%j as Connect does', (key, value, message) => {
    const values = validateConnectorConfig(
      sinkProps({ [key]: value }),
      'sink',
      s3SinkDef(),
      lookup,
    );
    expect(errorsOf(values, key)).toContain(message);
  });

  it('reports missing required keys of the framework and the connector', () => {
    const values = validateConnectorConfig({ topics: 't' }, 'sink', s3SinkDef(), lookup);
    expect(errorsOf(values, 'name')).toEqual([
      'Missing required configuration "name" which has no default value.',
    ]);
    expect(errorsOf(values, 's3.bucket.name')).toEqual([
      'Missing required configuration "s3.bucket.name" which has no default value.',
    ]);
  });

  it('reports null values on declared and undeclared keys', () => {
    const values = validateConnectorConfig(
      sinkProps({ 'tasks.max': null, 'my.custom': null }),
      'sink',
      s3SinkDef(),
      lookup,
    );
    const nullMessage = 'Null value can not be supplied as the configuration value.';
    expect(errorsOf(values, 'tasks.max')).toContain(nullMessage);
    expect(errorsOf(values, 'my.custom')).toEqual([nullMessage]);
  });

  it('tolerates unknown keys: no value, no error', () => {
    const values = validateConnectorConfig(
      sinkProps({ 'legacy.setting': 'x' }),
      'sink',
      s3SinkDef(),
      lookup,
    );
    expect(values.some((v) => v.name === 'legacy.setting')).toBe(false);
    expect(allErrors(values)).toEqual([]);
  });

  it('validates the connector keys after the framework keys', () => {
    const names = validateConnectorConfig(sinkProps(), 'sink', s3SinkDef(), lookup).map(
      (v) => v.name,
    );
    expect(names.indexOf('s3.bucket.name')).toBeGreaterThan(
      names.indexOf('errors.deadletterqueue.context.headers.enable'),
    );
  });

  it('uses the connector own results when given', () => {
    const custom: ConfigValue = {
      name: 's3.bucket.name',
      value: 'b',
      recommendedValues: [],
      errors: ['bucket not found'],
      visible: true,
    };
    const values = validateConnectorConfig(sinkProps(), 'sink', s3SinkDef(), lookup, {
      connectorValues: [custom],
    });
    expect(errorsOf(values, 's3.bucket.name')).toEqual(['bucket not found']);
  });

  it('reports an unknown explicit converter class but never checks the defaults', () => {
    const lookupWithoutConverters: PluginConfigLookup = (c, kind) =>
      kind === 'transformation' ? lookup(c, kind) : undefined;
    const defaults = validateConnectorConfig(
      sinkProps(),
      'sink',
      s3SinkDef(),
      lookupWithoutConverters,
    );
    expect(allErrors(defaults)).toEqual([]);
    const explicit = validateConnectorConfig(
      sinkProps({ 'value.converter': 'AvroConverter', 'key.converter': 'StringConverter' }),
      'sink',
      s3SinkDef(),
      lookup,
    );
    expect(errorsOf(explicit, 'value.converter')).toEqual([
      'Invalid value AvroConverter for configuration value.converter: Class AvroConverter could not be found.',
    ]);
    expect(errorsOf(explicit, 'key.converter')).toEqual([]);
  });

  it('never throws on arbitrary configs, even with a throwing lookup', () => {
    const throwingLookup: PluginConfigLookup = () => {
      throw new Error('registry down');
    };
    const key = fc.oneof(
      fc.constantFrom(
        ...connectorConfigDef('source').names(),
        ...connectorConfigDef('sink').names(),
        'transforms.a.type',
        'transforms.a.negate',
        'transforms.a.predicate',
        'predicates.p.type',
        'topic.creation.default.partitions',
        'topic.creation.g.include',
      ),
      fc.string(),
    );
    const value = fc.oneof(
      fc.string(),
      fc.constant(null),
      fc.constantFrom('a', 'a,a', 'RegexRouter', '-1', '(', 'g'),
    );
    fc.assert(
      fc.property(
        fc.dictionary(key, value),
        fc.constantFrom('sink' as const, 'source' as const),
        fc.boolean(),
        (props, kind, throwing) => {
          const l = throwing ? throwingLookup : lookup;
          const values = validateConnectorConfig(props, kind, s3SinkDef(), l);
          const infos = validateConnectorConfigInfos(props, kind, s3SinkDef(), l);
          expect(Array.isArray(values)).toBe(true);
          expect(infos.error_count).toBe(
            infos.configs.reduce((sum, c) => sum + (c.value?.errors.length ?? 0), 0),
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('validateConnectorConfig transforms and predicates', () => {
  const withChain = (extra: Record<string, string> = {}) =>
    sinkProps({
      transforms: 'route',
      'transforms.route.type': 'RegexRouter',
      'transforms.route.regex': '(.*)',
      'transforms.route.replacement': 'copy-$1',
      ...extra,
    });

  it('adds the alias keys and the plugin own keys, prefixed and grouped', () => {
    // Act
    const infos = validateConnectorConfigInfos(withChain(), 'sink', s3SinkDef(), lookup);

    // Assess
    const definitions = infos.configs.flatMap((c) => (c.definition ? [c.definition] : []));
    const chain = definitions.filter((d) => d.name.startsWith('transforms.route.'));
    expect(chain.map((d) => [d.name, d.order])).toEqual([
      ['transforms.route.type', 0],
      ['transforms.route.regex', 1],
      ['transforms.route.replacement', 2],
      ['transforms.route.negate', 3],
      ['transforms.route.predicate', 4],
    ]);
    expect(chain[0]).toMatchObject({
      type: 'CLASS',
      required: true,
      importance: 'HIGH',
      documentation: "Class for the 'route' transformation.",
      group: 'Transforms: route',
      width: 'LONG',
      display_name: 'Transformation type for route',
    });
    expect(chain.find((d) => d.name === 'transforms.route.predicate')).toMatchObject({
      type: 'STRING',
      default_value: null,
    });
    expect(infos.groups).toEqual([
      'Common',
      'Transforms',
      'Predicates',
      'Error Handling',
      'Subscription',
      'Transforms: route',
      'S3',
    ]);
    expect(infos.error_count).toBe(0);
  });

  it('reports the plugin own missing keys', () => {
    const values = validateConnectorConfig(
      sinkProps({ transforms: 'route', 'transforms.route.type': 'RegexRouter' }),
      'sink',
      s3SinkDef(),
      lookup,
    );
    expect(errorsOf(values, 'transforms.route.regex')).toEqual([
      'Missing required configuration "transforms.route.regex" which has no default value.',
    ]);
  });

  it('reports an unknown transformation class on its type key', () => {
    const values = validateConnectorConfig(
      sinkProps({ transforms: 'x', 'transforms.x.type': 'com.acme.Nope' }),
      'sink',
      s3SinkDef(),
      lookup,
    );
    expect(errorsOf(values, 'transforms.x.type')).toEqual([
      'Invalid value com.acme.Nope for configuration transforms.x.type: Class com.acme.Nope could not be found.',
    ]);
  });

  it('reports a missing type for a listed alias', () => {
    const values = validateConnectorConfig(
      sinkProps({ transforms: 'x' }),
      'sink',
      s3SinkDef(),
      lookup,
    );
    expect(errorsOf(values, 'transforms.x.type')).toEqual([
      'Missing required configuration "transforms.x.type" which has no default value.',
    ]);
  });

  it('rejects negate without predicate as Connect does', () => {
    const values = validateConnectorConfig(
      withChain({ 'transforms.route.negate': 'true' }),
      'sink',
      s3SinkDef(),
      lookup,
    );
    expect(errorsOf(values, 'transforms.route.type')).toEqual([
      "Config 'transforms.route.negate' was provided but there is no config 'transforms.route.predicate' defining a predicate to be negated.",
    ]);
  });

  it('accepts a predicate defined under predicates and validates its keys', () => {
    const values = validateConnectorConfig(
      withChain({
        predicates: 'isOrders',
        'predicates.isOrders.type': 'TopicNameMatches',
        'transforms.route.predicate': 'isOrders',
        'transforms.route.negate': 'true',
      }),
      'sink',
      s3SinkDef(),
      lookup,
    );
    expect(errorsOf(values, 'predicates.isOrders.pattern')).toEqual([
      'Missing required configuration "predicates.isOrders.pattern" which has no default value.',
    ]);
    expect(allErrors(values)).toHaveLength(1);
  });

  it('reports a transformation predicate that is not listed in predicates', () => {
    const values = validateConnectorConfig(
      withChain({ 'transforms.route.predicate': 'ghost' }),
      'sink',
      s3SinkDef(),
      lookup,
    );
    expect(errorsOf(values, 'transforms.route.predicate')).toEqual([
      "Invalid value ghost for configuration transforms.route.predicate: Predicate alias 'ghost' is not listed in 'predicates'",
    ]);
  });

  it('masks a plugin key named like an implicit key', () => {
    const values = validateConnectorConfig(
      withChain({
        'transforms.route.predicate': 'p',
        predicates: 'p',
        'predicates.p.type': 'TopicNameMatches',
        'predicates.p.pattern': 'o.*',
      }),
      'sink',
      s3SinkDef(),
      lookup,
    );
    expect(values.find((v) => v.name === 'transforms.route.predicate')?.value).toBe('p');
    expect(allErrors(values)).toEqual([]);
  });

  it('treats a throwing lookup as class not found', () => {
    const values = validateConnectorConfig(withChain(), 'sink', s3SinkDef(), () => {
      throw new Error('registry down');
    });
    expect(errorsOf(values, 'transforms.route.type')[0]).toContain(
      'Class RegexRouter could not be found.',
    );
  });

  it('offers plugin classes as recommended values of type keys', () => {
    const values = validateConnectorConfig(withChain(), 'sink', s3SinkDef(), lookup, {
      pluginClasses: (kind) => (kind === 'transformation' ? ['RegexRouter', 'Filter'] : []),
    });
    expect(values.find((v) => v.name === 'transforms.route.type')?.recommendedValues).toEqual([
      'RegexRouter',
      'Filter',
    ]);
  });
});

describe('validateConnectorConfigInfos', () => {
  it('renders the sink topics error with Connect shape and groups', () => {
    // Act
    const infos = validateConnectorConfigInfos(
      sinkProps({ topics: '' }),
      'sink',
      s3SinkDef(),
      lookup,
    );

    // Assess
    expect(infos.name).toBe('org.example.S3SinkConnector');
    expect(infos.groups.slice(0, 4)).toEqual([
      'Common',
      'Transforms',
      'Predicates',
      'Error Handling',
    ]);
    expect(infos.error_count).toBe(2);
    expect(infos.configs.find((c) => c.definition?.name === 'topics')).toEqual({
      definition: {
        name: 'topics',
        type: 'LIST',
        required: false,
        default_value: '',
        importance: 'HIGH',
        documentation: 'List of topics to consume, separated by commas',
        group: 'Common',
        width: 'LONG',
        display_name: 'Topics',
        dependents: [],
        order: 4,
      },
      value: {
        name: 'topics',
        value: '',
        recommended_values: [],
        errors: ['Must configure one of topics or topics.regex'],
        visible: true,
      },
    });
  });

  it('hides passwords in values, defaults and error messages', () => {
    // Prepare
    const def = s3SinkDef().define({
      name: 'db.password',
      type: 'PASSWORD',
      defaultValue: 'default-secret-long',
      validator: {
        ensureValid: (name, value) => {
          if (!(value instanceof Password) || value.value().length > 7) return;
          throw new ConfigError(`Invalid value ${value} for configuration ${name}: too weak`, name);
        },
        toString: () => 'strong password',
      },
      importance: 'HIGH',
      documentation: 'DB password.',
    });

    // Act
    const infos = validateConnectorConfigInfos(
      sinkProps({ 'aws.secret.access.key': 'AKIA-very-secret', 'db.password': 'hunter2' }),
      'sink',
      def,
      lookup,
    );

    // Assess
    const json = JSON.stringify(infos);
    expect(json).not.toMatch(/AKIA-very-secret|hunter2|default-secret-long/);
    expect(infos.configs.find((c) => c.definition?.name === 'db.password')?.value).toMatchObject({
      value: '[hidden]',
      errors: ['Invalid value [hidden] for configuration db.password: too weak'],
    });
  });

  it('replaces a framework key redefined by the connector in place', () => {
    const def = s3SinkDef().define({
      name: 'tasks.max',
      type: 'INT',
      defaultValue: 4,
      validator: Range.between(1, 8),
      importance: 'HIGH',
      documentation: 'At most 8 tasks.',
    });
    const infos = validateConnectorConfigInfos(
      sinkProps({ 'tasks.max': '9' }),
      'sink',
      def,
      lookup,
    );
    const names = infos.configs.map((c) => c.definition?.name);
    expect(names.indexOf('tasks.max')).toBe(2);
    expect(names.filter((n) => n === 'tasks.max')).toHaveLength(1);
    expect(infos.configs[2]?.definition?.documentation).toBe('At most 8 tasks.');
    expect(infos.configs[2]?.value?.errors).toEqual([
      'Invalid value 9 for configuration tasks.max: Value must be no more than 8',
    ]);
  });
});

describe('connectorPluginConfigKeyInfos', () => {
  it('lists the connector keys first, then framework keys it does not redefine', () => {
    const infos = connectorPluginConfigKeyInfos('sink', s3SinkDef());
    const names = infos.map((i) => i.name);
    expect(names.slice(0, 3)).toEqual(['s3.bucket.name', 'aws.secret.access.key', 'name']);
    expect(names).toContain('topics');
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('parseConnectorConfig', () => {
  it('returns a typed sink config with defaults', () => {
    const parsed = parseConnectorConfig(
      sinkProps({
        topics: 'orders, refunds,orders',
        'tasks.max': '3',
        'errors.tolerance': 'all',
        [N.DLQ_TOPIC_NAME]: 'dlq',
        'value.converter': 'StringConverter',
        'value.converter.converter.encoding': 'UTF-8',
        'consumer.override.max.poll.records': '50',
        'errors.retry.timeout': '9223372036854775807',
      }),
      'sink',
    );
    expect(parsed).toMatchObject({
      kind: 'sink',
      name: 's3-sink',
      connectorClass: 'org.example.S3SinkConnector',
      tasksMax: 3,
      topics: ['orders', 'refunds'],
      topicsRegex: undefined,
      keyConverter: { className: JSON_CONVERTER, config: {} },
      valueConverter: { className: 'StringConverter', config: { 'converter.encoding': 'UTF-8' } },
      errors: { tolerance: 'all', retryTimeoutMs: 2 ** 63, retryDelayMaxMs: 60000 },
      deadLetterQueue: { topicName: 'dlq', replicationFactor: 3, contextHeadersEnable: false },
      clientOverrides: { consumer: { 'max.poll.records': '50' } },
      configActionReload: 'restart',
    });
    expect(parsed.originals['s3.bucket.name']).toBe('bucket');
  });

  it('returns a typed source config with normalized exactly-once settings', () => {
    const parsed = parseConnectorConfig(
      {
        name: 'src',
        'connector.class': 'Verifiable',
        'exactly.once.support': 'REQUIRED',
        'transaction.boundary': 'Interval',
        'transaction.boundary.interval.ms': '5000',
      },
      'source',
    );
    expect(parsed).toMatchObject({
      kind: 'source',
      exactlyOnceSupport: 'required',
      transactionBoundary: 'interval',
      transactionBoundaryIntervalMs: 5000,
      offsetsStorageTopic: undefined,
      topicCreation: undefined,
      deadLetterQueue: { topicName: undefined },
    });
  });

  it('extracts the transformation chain with predicates', () => {
    const parsed = parseConnectorConfig(
      sinkProps({
        transforms: 'route,drop',
        'transforms.route.type': 'RegexRouter',
        'transforms.route.regex': '(.*)',
        'transforms.drop.type': 'Filter',
        'transforms.drop.predicate': 'isTombstone',
        'transforms.drop.negate': 'true',
        predicates: 'isTombstone',
        'predicates.isTombstone.type': 'RecordIsTombstone',
      }),
      'sink',
    );
    expect(parsed.transforms).toEqual([
      {
        alias: 'route',
        className: 'RegexRouter',
        predicate: undefined,
        negate: false,
        config: { type: 'RegexRouter', regex: '(.*)' },
      },
      {
        alias: 'drop',
        className: 'Filter',
        predicate: 'isTombstone',
        negate: true,
        config: { type: 'Filter' },
      },
    ]);
    expect(parsed.predicates).toEqual([
      {
        alias: 'isTombstone',
        className: 'RecordIsTombstone',
        config: { type: 'RecordIsTombstone' },
      },
    ]);
  });

  it.each([
    [{ name: '' }, 'Invalid value  for configuration name: String may not be empty'],
    [
      { topics: '' },
      'Invalid value  for configuration topics: Must configure one of topics or topics.regex',
    ],
    [{ 'tasks.max': '0' }, 'Invalid value 0 for configuration tasks.max: Value must be at least 1'],
    [
      { transforms: 'x' },
      'Missing required configuration "transforms.x.type" which has no default value.',
    ],
    [
      { transforms: 'x', 'transforms.x.type': 'Filter', 'transforms.x.negate': 'true' },
      "Config 'transforms.x.negate' was provided but there is no config 'transforms.x.predicate' defining a predicate to be negated.",
    ],
    [
      { transforms: 'x', 'transforms.x.type': 'Filter', 'transforms.x.predicate': 'p' },
      "Invalid value p for configuration transforms.x.predicate: Predicate alias 'p' is not listed in 'predicates'",
    ],
  ])('throws a ConfigError for %j', (extra, message) => {
    const act = () => parseConnectorConfig(sinkProps(extra), 'sink');
    expect(act).toThrow(ConfigError);
    expect(act).toThrow(message);
  });

  it('names the offending key on the error', () => {
    try {
      parseConnectorConfig(sinkProps({ 'errors.tolerance': 'ALL' }), 'sink');
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).key).toBe('errors.tolerance');
    }
  });
});
