import { describe, expect, it } from 'vitest';
import { createMemoryStateStore } from '../../../../shared/adapters/memory/memory-state-store.js';
import type { ConfigProviderResolver } from '../../../../shared/connect/config-provider.js';
import { ConfigError } from '../../../../shared/connect/errors.js';
import type { AnyPluginDescriptor } from '../../../../shared/connect/plugin.js';
import { createEngine, DEFAULT_ENGINE_SETTINGS } from '../../../../shared/engine/engine.js';
import { PluginCollisionError, PluginModuleError } from '../../../../shared/engine/errors.js';
import {
  checkPluginModules,
  type LoadedPluginModule,
  pluginConfigProviders,
  pluginModuleOf,
  registerPluginModules,
} from '../../../../shared/engine/plugin-modules.js';
import { KAFKA_SINK_CLASS } from '../../../../shared/plugins/connectors/kafka-sink/descriptor.js';
import { builtinRegistry } from '../../../../shared/plugins/registry.js';
import * as acme from '../../../fixtures/plugins/acme-plugins.js';
import { call } from '../control-plane/fixtures.js';
import { FakeKafkaClients } from '../runtime/enumerator/fixtures.js';

function source(className: string, aliases: string[] = []): AnyPluginDescriptor {
  return {
    className,
    aliases,
    type: 'source',
    version: '1.0.0',
    create: () => new acme.QuietSourceConnector(),
  };
}

const provider: ConfigProviderResolver = { get: async () => ({}) };

/** What `register` throws, for assertions on its type and message. */
function thrown(act: () => unknown): Error {
  try {
    act();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

describe('pluginModuleOf', () => {
  it('takes the named exports plugins and configProviders', () => {
    // Act
    const loaded = pluginModuleOf('./acme.js', acme);
    // Assess
    expect(loaded.module).toBe('./acme.js');
    expect(loaded.plugins.map((d) => d.className)).toEqual([acme.ACME_SOURCE_CLASS]);
    expect(Object.keys(loaded.configProviders ?? {})).toEqual(['acme']);
  });

  it('accepts a default export of the same shape', () => {
    // Act
    const loaded = pluginModuleOf('./d.js', { default: { plugins: [source('com.acme.D')] } });
    // Assess
    expect(loaded.plugins.map((d) => d.className)).toEqual(['com.acme.D']);
    expect(loaded).not.toHaveProperty('configProviders');
  });

  it('refuses a module that exports no plugins, an empty list or something else', () => {
    // Act
    const errors = [
      thrown(() => pluginModuleOf('./none.js', { greeting: 'hello' })),
      thrown(() => pluginModuleOf('./empty.js', { plugins: [] })),
      thrown(() => pluginModuleOf('./object.js', { plugins: { a: source('com.acme.A') } })),
      thrown(() => pluginModuleOf('./default-fn.js', { default: () => [] })),
    ];
    // Assess
    expect(errors.every((e) => e instanceof PluginModuleError)).toBe(true);
    expect(errors.map((e) => e.message)).toEqual([
      "Plugin module ./none.js exports no plugins: expected a named export 'plugins' (an array of plugin descriptors) or a default export { plugins }",
      "Plugin module ./empty.js exports no plugins: its 'plugins' array is empty",
      "Plugin module ./object.js: 'plugins' must be an array of plugin descriptors, got object",
      "Plugin module ./default-fn.js exports no plugins: expected a named export 'plugins' (an array of plugin descriptors) or a default export { plugins }",
    ]);
  });

  it('names the module and the entry of a malformed descriptor or provider', () => {
    // Prepare
    const noCreate = { ...source('com.acme.NoCreate'), create: undefined };
    // Act
    const errors = [
      thrown(() => pluginModuleOf('./m.js', { plugins: [source('com.acme.A'), { aliases: [] }] })),
      thrown(() => pluginModuleOf('./m.js', { plugins: [{ ...source('x'), type: 'sauce' }] })),
      thrown(() => pluginModuleOf('./m.js', { plugins: [noCreate] })),
      thrown(() => pluginModuleOf('./m.js', { plugins: [null] })),
      thrown(() => pluginModuleOf('./m.js', { plugins: [], configProviders: { vault: {} } })),
    ];
    // Assess
    expect(errors.map((e) => e.message)).toEqual([
      'Plugin module ./m.js: plugins[1] is not a plugin descriptor (className must be a non-empty string)',
      'Plugin module ./m.js: plugins[0] is not a plugin descriptor (x: type must be one of source, sink, converter, header_converter, transformation, predicate)',
      'Plugin module ./m.js: plugins[0] is not a plugin descriptor (com.acme.NoCreate: create must be a function)',
      'Plugin module ./m.js: plugins[0] is not a plugin descriptor (it is null, not an object)',
      'Plugin module ./m.js: configProviders.vault is not a config provider (it has no get(path, keys) method)',
    ]);
  });

  it('accepts a module of config providers only', () => {
    // Act
    const loaded = pluginModuleOf('./vault.js', {
      plugins: [],
      configProviders: { vault: provider },
    });
    // Assess
    expect(loaded.plugins).toEqual([]);
    expect(loaded.configProviders).toEqual({ vault: provider });
  });
});

describe('registerPluginModules', () => {
  const moduleOf = (module: string, ...plugins: AnyPluginDescriptor[]): LoadedPluginModule => ({
    module,
    plugins,
  });

  it('registers every plugin of every module beside the built-ins', () => {
    // Prepare
    const registry = builtinRegistry();
    // Act
    registerPluginModules(registry, [
      moduleOf('./a.js', source('com.acme.A')),
      moduleOf('./b.js', source('com.acme.B', ['b-source'])),
    ]);
    // Assess
    expect(registry.resolve('com.acme.A', 'source').version).toBe('1.0.0');
    expect(registry.resolve('b-source', 'source').className).toBe('com.acme.B');
    expect(registry.has('datagen', 'source')).toBe(true);
  });

  it('names both modules when two claim the same class name', () => {
    // Act
    const error = thrown(() =>
      registerPluginModules(builtinRegistry(), [
        moduleOf('./acme-a.js', source('com.acme.HttpSink')),
        moduleOf('./acme-b.js', { ...source('com.acme.HttpSink'), type: 'sink' } as never),
      ]),
    );
    // Assess
    expect(error).toBeInstanceOf(PluginCollisionError);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      'Plugin com.acme.HttpSink from module ./acme-b.js collides with com.acme.HttpSink from module ./acme-a.js',
    );
    expect(error).toMatchObject({
      module: './acme-b.js',
      claimed: 'com.acme.HttpSink',
      otherModule: './acme-a.js',
    });
  });

  it('refuses a class name or an alias of a built-in plugin', () => {
    // Act
    const byClass = thrown(() =>
      registerPluginModules(builtinRegistry(), [
        moduleOf('./json.js', {
          className: 'org.apache.kafka.connect.json.JsonConverter',
          aliases: [],
          type: 'converter',
          version: '9.9.9',
          create: () => ({}) as never,
        }),
      ]),
    );
    const byAlias = thrown(() =>
      registerPluginModules(builtinRegistry(), [
        moduleOf('./gen.js', source('com.acme.DatagenConnector', ['datagen'])),
      ]),
    );
    // Assess
    expect(byClass.message).toBe(
      'Plugin org.apache.kafka.connect.json.JsonConverter from module ./json.js collides with the built-in org.apache.kafka.connect.json.JsonConverter',
    );
    expect(byAlias).toBeInstanceOf(PluginCollisionError);
    expect(byAlias.message).toBe(
      'Plugin com.acme.DatagenConnector from module ./gen.js collides with the built-in dev.serverlessconnect.connectors.DatagenSourceConnector: both are named datagen',
    );
    expect(byAlias).toMatchObject({ claimed: 'datagen', otherModule: undefined });
  });

  it("refuses an alias another module's plugin of the same type has, but not of another type", () => {
    // Prepare
    const sinkNamedHttp = { ...source('com.acme.HttpSink', ['http']), type: 'sink' } as never;
    // Act
    const clash = thrown(() =>
      registerPluginModules(builtinRegistry(), [
        moduleOf('./a.js', source('com.acme.HttpSource', ['http'])),
        moduleOf('./b.js', source('com.acme.OtherHttpSource', ['http'])),
      ]),
    );
    const registry = builtinRegistry();
    registerPluginModules(registry, [
      moduleOf('./a.js', source('com.acme.HttpSource', ['http'])),
      moduleOf('./c.js', sinkNamedHttp),
    ]);
    // Assess
    expect(clash.message).toBe(
      'Plugin com.acme.OtherHttpSource from module ./b.js collides with com.acme.HttpSource from module ./a.js: both are named http',
    );
    expect(registry.resolve('http', 'sink').className).toBe('com.acme.HttpSink');
  });

  it('names the module that repeats a plugin of its own', () => {
    // Act
    const error = thrown(() =>
      registerPluginModules(builtinRegistry(), [
        moduleOf('./twice.js', source('com.acme.A'), source('com.acme.A')),
      ]),
    );
    // Assess
    expect(error).toBeInstanceOf(PluginModuleError);
    expect(error.message).toBe(
      'Plugin module ./twice.js: Plugin com.acme.A is already registered as a source',
    );
  });
});

describe('pluginConfigProviders', () => {
  it("adds the modules' providers to the built-in ones", () => {
    // Act
    const providers = pluginConfigProviders({ env: provider }, [pluginModuleOf('./acme.js', acme)]);
    // Assess
    expect(Object.keys(providers).sort()).toEqual(['acme', 'env']);
  });

  it('refuses a provider name that is built in or that another module has', () => {
    // Prepare
    const vault = (module: string): LoadedPluginModule => ({
      module,
      plugins: [],
      configProviders: { vault: provider },
    });
    // Act
    const builtin = thrown(() => pluginConfigProviders({ vault: provider }, [vault('./v.js')]));
    const twice = thrown(() => pluginConfigProviders({}, [vault('./v1.js'), vault('./v2.js')]));
    // Assess
    expect(builtin).toBeInstanceOf(PluginCollisionError);
    expect(builtin.message).toBe(
      'Config provider vault from module ./v.js collides with the built-in config provider vault',
    );
    expect(twice.message).toBe(
      'Config provider vault from module ./v2.js collides with config provider vault from module ./v1.js',
    );
  });
});

describe('the engine with plugin modules', () => {
  const engineWith = (pluginModules: readonly LoadedPluginModule[]) =>
    createEngine(
      { store: createMemoryStateStore(), kafka: new FakeKafkaClients(), pluginModules },
      DEFAULT_ENGINE_SETTINGS,
    );

  it('lists their connectors with their versions in GET /connector-plugins', async () => {
    // Prepare
    const engine = engineWith([pluginModuleOf('./acme.js', acme)]);
    // Act
    const res = await call(engine.router, 'GET', '/connector-plugins');
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toContainEqual({
      class: acme.ACME_SOURCE_CLASS,
      type: 'source',
      version: acme.ACME_VERSION,
    });
    expect(engine.plugins.resolve('acme-quiet', 'source').className).toBe(acme.ACME_SOURCE_CLASS);
  });

  it('refuses a module that claims the Kafka sink, which the engine registers itself', () => {
    // Prepare
    const kafkaSink = { ...source(KAFKA_SINK_CLASS), type: 'sink' } as never;
    const modules = [{ module: './ks.js', plugins: [kafkaSink] }];
    // Act
    const error = thrown(() => engineWith(modules));
    // Assess
    expect(error).toBeInstanceOf(PluginCollisionError);
    expect(error.message).toBe(
      `Plugin ${KAFKA_SINK_CLASS} from module ./ks.js collides with the built-in ${KAFKA_SINK_CLASS}`,
    );
  });

  it('checks modules before any port exists, against the built-in plugins and providers', () => {
    // Act + Assess
    expect(() =>
      checkPluginModules([{ module: './gen.js', plugins: [source('com.acme.G', ['datagen'])] }]),
    ).toThrow(PluginCollisionError);
    expect(() =>
      checkPluginModules([pluginModuleOf('./acme.js', acme)], { acme: provider }),
    ).toThrow(
      'Config provider acme from module ./acme.js collides with the built-in config provider acme',
    );
    expect(() =>
      checkPluginModules([pluginModuleOf('./acme.js', acme)], { env: provider }),
    ).not.toThrow();
  });
});
