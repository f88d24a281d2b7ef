import { describe, expect, it } from 'vitest';
import type { ConfigDef } from '../../../../shared/connect/config-def.js';
import type { Converter, HeaderConverter } from '../../../../shared/connect/converter.js';
import { AlreadyExistsError, NotFoundError } from '../../../../shared/connect/errors.js';
import { PluginRegistry } from '../../../../shared/connect/plugin.js';
import type { ConnectRecord } from '../../../../shared/connect/records.js';
import type { Transformation } from '../../../../shared/connect/transformation.js';

class Identity<R extends ConnectRecord> implements Transformation<R> {
  config(): ConfigDef {
    throw new Error('not needed');
  }
  configure(): void {}
  apply(record: R): R | null {
    return record;
  }
  close(): void {}
}

const stubConverter = {} as Converter & HeaderConverter;

const registry = (): PluginRegistry =>
  new PluginRegistry()
    .register({
      className: 'org.apache.kafka.connect.transforms.InsertField$Value',
      aliases: ['InsertField$Value'],
      type: 'transformation',
      version: '1.0.0',
      create: <R extends ConnectRecord>() => new Identity<R>(),
    })
    .register({
      className: 'org.apache.kafka.connect.json.JsonConverter',
      aliases: [],
      type: 'converter',
      version: '1.0.0',
      create: () => stubConverter,
    })
    .register({
      className: 'org.apache.kafka.connect.json.JsonConverter',
      aliases: [],
      type: 'header_converter',
      version: '1.0.0',
      create: () => stubConverter,
    });

describe('PluginRegistry', () => {
  it('resolves the full class name, the simple name and an explicit alias', () => {
    // Prepare
    const plugins = registry();

    // Act
    const names = [
      'org.apache.kafka.connect.transforms.InsertField$Value',
      'InsertField$Value',
    ].map((n) => plugins.resolve(n, 'transformation').className);

    // Assess
    expect(new Set(names)).toEqual(
      new Set(['org.apache.kafka.connect.transforms.InsertField$Value']),
    );
    expect(plugins.resolve('JsonConverter', 'converter').type).toBe('converter');
    expect(plugins.resolve('Json', 'header_converter').type).toBe('header_converter');
  });

  it('creates instances through the resolved descriptor', () => {
    // Act
    const transform = registry().resolve('InsertField$Value', 'transformation').create();

    // Assess
    expect(transform).toBeInstanceOf(Identity);
  });

  it('throws NotFoundError listing the known plugins for an unknown name', () => {
    // Act + Assess
    expect(() => registry().resolve('Nope', 'transformation')).toThrow(NotFoundError);
    expect(() => registry().resolve('Nope', 'transformation')).toThrow(
      /Failed to find any class that implements Transformation and which name matches Nope, available plugins are: org.apache.kafka.connect.transforms.InsertField\$Value/,
    );
  });

  it('throws NotFoundError when the plugin is of another type', () => {
    // Act + Assess
    expect(() => registry().resolve('InsertField$Value', 'predicate')).toThrow(NotFoundError);
    expect(registry().has('InsertField$Value', 'predicate')).toBe(false);
  });

  it('refuses a name that matches plugins of several types when no type is given', () => {
    // Act + Assess
    expect(() => registry().resolve('JsonConverter')).toThrow(
      /More than one plugin matches alias JsonConverter. Please use full package and class name instead/,
    );
  });

  it('rejects a class registered twice as the same type and a taken alias', () => {
    // Prepare
    const plugins = registry();

    // Act + Assess
    expect(() =>
      plugins.register({
        className: 'org.apache.kafka.connect.json.JsonConverter',
        aliases: [],
        type: 'converter',
        version: '2',
        create: () => stubConverter,
      }),
    ).toThrow(AlreadyExistsError);
    expect(() =>
      plugins.register({
        className: 'com.example.Other',
        aliases: ['InsertField$Value'],
        type: 'transformation',
        version: '1',
        create: <R extends ConnectRecord>() => new Identity<R>(),
      }),
    ).toThrow(AlreadyExistsError);
  });

  it('lists plugins sorted by class name, filtered by type', () => {
    // Act + Assess
    expect(
      registry()
        .list('converter')
        .map((d) => d.className),
    ).toEqual(['org.apache.kafka.connect.json.JsonConverter']);
    expect(registry().list()).toHaveLength(3);
  });
});
