import { describe, expect, it } from 'vitest';
import { PluginRegistry } from '../../../../../shared/connect/plugin.js';
import type { SinkRecord } from '../../../../../shared/connect/records.js';
import { predicateDescriptors } from '../../../../../shared/plugins/predicates/descriptors.js';
import { transformDescriptors } from '../../../../../shared/plugins/transforms/descriptors.js';

const T = 'org.apache.kafka.connect.transforms';
const KEYED = [
  'Cast',
  'ExtractField',
  'Flatten',
  'HeaderFrom',
  'HoistField',
  'InsertField',
  'MaskField',
  'ReplaceField',
  'SetSchemaMetadata',
  'TimestampConverter',
];
const UNKEYED = [
  'DropHeaders',
  'Filter',
  'InsertHeader',
  'RegexRouter',
  'TimestampRouter',
  'ValueToKey',
];
const APACHE_TRANSFORMS = [
  ...KEYED.flatMap((n) => [`${T}.${n}$Key`, `${T}.${n}$Value`]),
  ...UNKEYED.map((n) => `${T}.${n}`),
];
const APACHE_PREDICATES = ['HasHeaderKey', 'RecordIsTombstone', 'TopicNameMatches'].map(
  (n) => `${T}.predicates.${n}`,
);

const registry = () => {
  const plugins = new PluginRegistry();
  for (const d of [...transformDescriptors, ...predicateDescriptors]) plugins.register(d);
  return plugins;
};

describe('built-in transformation and predicate descriptors', () => {
  it('resolve every Apache built-in class name to a plugin of the right type', () => {
    // Prepare
    const plugins = registry();

    // Act
    const transforms = APACHE_TRANSFORMS.map((n) => plugins.resolve(n, 'transformation').className);
    const predicates = APACHE_PREDICATES.map((n) => plugins.resolve(n, 'predicate').className);

    // Assess
    expect(transforms).toEqual(APACHE_TRANSFORMS);
    expect(predicates).toEqual(APACHE_PREDICATES);
    expect(plugins.list('transformation')).toHaveLength(APACHE_TRANSFORMS.length);
    expect(plugins.list('predicate')).toHaveLength(APACHE_PREDICATES.length);
  });

  it('resolve the simple names too', () => {
    // Prepare
    const plugins = registry();

    // Act / Assess
    expect(plugins.resolve('InsertField$Value', 'transformation').className).toBe(
      `${T}.InsertField$Value`,
    );
    expect(plugins.resolve('TopicNameMatches', 'predicate').className).toBe(
      `${T}.predicates.TopicNameMatches`,
    );
  });

  it('create fresh instances whose config() describes their keys', () => {
    // Prepare
    const plugins = registry();

    // Act
    const created = plugins.list('transformation').map((d) => {
      if (d.type !== 'transformation') throw new Error('not a transformation');
      return [d.create<SinkRecord>(), d.create<SinkRecord>()] as const;
    });

    // Assess
    for (const [a, b] of created) {
      expect(a).not.toBe(b);
      expect(a.config().configKeys()).toBeInstanceOf(Map);
    }
  });
});
