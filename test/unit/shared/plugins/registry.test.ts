import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../../shared/connect/errors.js';
import { builtinRegistry } from '../../../../shared/plugins/registry.js';

const T = 'org.apache.kafka.connect.transforms.';
const keyed = (name: string) => [`${T}${name}$Key`, `${T}${name}$Value`];
const PRIMITIVE_CONVERTERS = ['Long', 'Integer', 'Short', 'Float', 'Double', 'Boolean'].map(
  (type) => `org.apache.kafka.connect.converters.${type}Converter`,
);

/** Apache Kafka Connect's built-in class names, as users write them in connector configs. */
const apacheNames = {
  converter: [
    'org.apache.kafka.connect.json.JsonConverter',
    'org.apache.kafka.connect.storage.StringConverter',
    'org.apache.kafka.connect.converters.ByteArrayConverter',
    ...PRIMITIVE_CONVERTERS,
  ],
  header_converter: [
    'org.apache.kafka.connect.storage.SimpleHeaderConverter',
    'org.apache.kafka.connect.json.JsonConverter',
    'org.apache.kafka.connect.storage.StringConverter',
    'org.apache.kafka.connect.converters.ByteArrayConverter',
    ...PRIMITIVE_CONVERTERS,
  ],
  transformation: [
    ...keyed('InsertField'),
    ...keyed('ReplaceField'),
    ...keyed('MaskField'),
    `${T}ValueToKey`,
    ...keyed('ExtractField'),
    ...keyed('HoistField'),
    ...keyed('Cast'),
    ...keyed('Flatten'),
    `${T}TimestampRouter`,
    `${T}RegexRouter`,
    ...keyed('TimestampConverter'),
    ...keyed('SetSchemaMetadata'),
    `${T}Filter`,
    `${T}InsertHeader`,
    `${T}DropHeaders`,
    ...keyed('HeaderFrom'),
  ],
  predicate: [
    `${T}predicates.TopicNameMatches`,
    `${T}predicates.HasHeaderKey`,
    `${T}predicates.RecordIsTombstone`,
  ],
} as const;

describe('builtinRegistry', () => {
  const registry = builtinRegistry();

  it.each(Object.entries(apacheNames).flatMap(([type, names]) => names.map((n) => [type, n])))(
    'resolves the %s %s',
    (type, name) => {
      const descriptor = registry.resolve(name, type as keyof typeof apacheNames);
      expect(descriptor.type).toBe(type);
      expect(descriptor.create()).toBeTruthy();
    },
  );

  it('resolves the short names Connect accepts as aliases', () => {
    expect(registry.resolve('InsertField$Value', 'transformation').className).toBe(
      `${T}InsertField$Value`,
    );
    expect(registry.resolve('JsonConverter', 'converter').className).toBe(
      'org.apache.kafka.connect.json.JsonConverter',
    );
    expect(registry.resolve('datagen', 'source').className).toBe(
      'dev.serverlessconnect.connectors.DatagenSourceConnector',
    );
    expect(registry.resolve('s3-source', 'source').className).toBe(
      'dev.serverlessconnect.connectors.S3SourceConnector',
    );
  });

  it('names the known plugins when a class is unknown', () => {
    expect(() => registry.resolve('com.example.Missing', 'transformation')).toThrow(NotFoundError);
    expect(() => registry.resolve('com.example.Missing', 'transformation')).toThrow(/RegexRouter/);
  });
});
