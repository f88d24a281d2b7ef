/**
 * Plugin packages in the engine, in one place: what a loaded plugin module is, the check of what
 * it exports, and its registration next to the built-in plugins. The composition roots only load
 * the modules (`local/runtime/plugin-loader.ts` with `import()`; in Lambda `functions/_plugins.ts`,
 * which the CDK construct's bundling replaces) and hand them to `createEngine`.
 *
 * A module's plugin may not take a class name, or an explicit alias of its plugin type, that a
 * built-in plugin or another module's plugin has; nor may two config providers share a name.
 * Simple class names stay Kafka Connect's: one that several plugins share resolves to none of them
 * (use the full class name).
 */
import type { ConfigProviderResolver } from '../connect/config-provider.js';
import { AlreadyExistsError } from '../connect/errors.js';
import {
  type AnyPluginDescriptor,
  PLUGIN_TYPES,
  type PluginRegistry,
  type PluginType,
} from '../connect/plugin.js';
import type { PluginModule } from '../connect/plugin-module.js';
import { builtinRegistry } from '../plugins/registry.js';
import { PluginCollisionError, PluginModuleError } from './errors.js';

/** A plugin module as the engine takes it: what it exports, and the name it was loaded by. */
export interface LoadedPluginModule extends PluginModule {
  /** The path or package name the user gave; every error about the module names it. */
  readonly module: string;
}

type ConfigProviders = Readonly<Record<string, ConfigProviderResolver>>;

const EXPECTED =
  "expected a named export 'plugins' (an array of plugin descriptors) or a default export { plugins }";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : typeof value;
}

/** Why `value` is not a plugin descriptor, or undefined when it is one. */
function descriptorProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return `it is ${kindOf(value)}, not an object`;
  const { className, aliases, type, version, create } = value;
  if (typeof className !== 'string' || className.trim() === '') {
    return 'className must be a non-empty string';
  }
  if (!PLUGIN_TYPES.includes(type as PluginType)) {
    return `${className}: type must be one of ${PLUGIN_TYPES.join(', ')}`;
  }
  if (typeof version !== 'string') return `${className}: version must be a string`;
  if (!Array.isArray(aliases) || !aliases.every((a) => typeof a === 'string')) {
    return `${className}: aliases must be an array of strings`;
  }
  if (typeof create !== 'function') return `${className}: create must be a function`;
  return undefined;
}

function checkedProviders(module: string, value: unknown): ConfigProviders | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value) || Array.isArray(value)) {
    throw new PluginModuleError(
      module,
      `Plugin module ${module}: 'configProviders' must be an object of config providers by name, got ${kindOf(value)}`,
    );
  }
  for (const [name, provider] of Object.entries(value)) {
    if (!isRecord(provider) || typeof provider.get !== 'function') {
      throw new PluginModuleError(
        module,
        `Plugin module ${module}: configProviders.${name} is not a config provider (it has no get(path, keys) method)`,
      );
    }
  }
  return value as ConfigProviders;
}

/**
 * The plugin module `exports` (a module namespace, or any object: named `plugins` and
 * `configProviders`, or a default export of that shape), checked.
 *
 * @throws PluginModuleError naming `module` when it exports no plugins and no config providers,
 *   when `plugins` is not an array, or when a descriptor or provider is malformed.
 * @example
 * const loaded = pluginModuleOf('./acme.js', await import('./acme.js'));
 */
export function pluginModuleOf(module: string, exports: unknown): LoadedPluginModule {
  const named = isRecord(exports) && ('plugins' in exports || 'configProviders' in exports);
  const shape = named ? exports : isRecord(exports) ? exports.default : undefined;
  const fields: Record<string, unknown> = isRecord(shape) ? shape : {};
  const { plugins, configProviders } = fields;
  if (plugins === undefined && configProviders === undefined) {
    throw new PluginModuleError(module, `Plugin module ${module} exports no plugins: ${EXPECTED}`);
  }
  if (plugins !== undefined && !Array.isArray(plugins)) {
    throw new PluginModuleError(
      module,
      `Plugin module ${module}: 'plugins' must be an array of plugin descriptors, got ${kindOf(plugins)}`,
    );
  }
  const descriptors: unknown[] = Array.isArray(plugins) ? plugins : [];
  descriptors.forEach((descriptor, i) => {
    const problem = descriptorProblem(descriptor);
    if (problem !== undefined) {
      throw new PluginModuleError(
        module,
        `Plugin module ${module}: plugins[${i}] is not a plugin descriptor (${problem})`,
      );
    }
  });
  const providers = checkedProviders(module, configProviders);
  if (descriptors.length === 0 && Object.keys(providers ?? {}).length === 0) {
    throw new PluginModuleError(
      module,
      `Plugin module ${module} exports no plugins: its 'plugins' array is empty`,
    );
  }
  return {
    module,
    plugins: descriptors as AnyPluginDescriptor[],
    ...(providers === undefined ? {} : { configProviders: providers }),
  };
}

/** A registered plugin and who brought it: a module (by its position) or the built-ins. */
interface Claim {
  readonly descriptor: AnyPluginDescriptor;
  readonly owner: { readonly index: number; readonly module: string } | undefined;
}

/** The name two plugins both claim: the same class name, or a name of the same plugin type. */
function clash(mine: AnyPluginDescriptor, theirs: AnyPluginDescriptor): string | undefined {
  if (mine.className === theirs.className) return mine.className;
  if (mine.type !== theirs.type) return undefined;
  const taken = new Set([theirs.className, ...theirs.aliases]);
  return [mine.className, ...mine.aliases].find((name) => taken.has(name));
}

function collision(
  module: string,
  descriptor: AnyPluginDescriptor,
  name: string,
  other: Claim,
): PluginCollisionError {
  const theirs =
    other.owner === undefined
      ? `the built-in ${other.descriptor.className}`
      : `${other.descriptor.className} from module ${other.owner.module}`;
  const sameClass = name === descriptor.className && name === other.descriptor.className;
  return new PluginCollisionError(
    module,
    name,
    other.owner?.module,
    `Plugin ${descriptor.className} from module ${module} collides with ${theirs}${sameClass ? '' : `: both are named ${name}`}`,
  );
}

/**
 * Registers every plugin of `modules` in `registry`, which holds the built-in plugins.
 *
 * @throws PluginCollisionError naming both sides when a plugin takes a class name or an alias a
 *   built-in plugin or another module's plugin has; PluginModuleError when a module is malformed
 *   or repeats a plugin of its own.
 * @example
 * const plugins = builtinRegistry();
 * registerPluginModules(plugins, [pluginModuleOf('./acme.js', await import('./acme.js'))]);
 */
export function registerPluginModules(
  registry: PluginRegistry,
  modules: readonly LoadedPluginModule[],
): void {
  const claims: Claim[] = registry.list().map((descriptor) => ({ descriptor, owner: undefined }));
  modules.forEach((given, index) => {
    const { module, plugins } = pluginModuleOf(given.module, given);
    for (const descriptor of plugins) {
      for (const other of claims) {
        // Within one module the registry's own rules apply (a class may be two plugin types).
        if (other.owner?.index === index) continue;
        const name = clash(descriptor, other.descriptor);
        if (name !== undefined) throw collision(module, descriptor, name, other);
      }
      try {
        registry.register(descriptor);
      } catch (error) {
        if (!(error instanceof AlreadyExistsError)) throw error;
        throw new PluginModuleError(module, `Plugin module ${module}: ${error.message}`, {
          cause: error,
        });
      }
      claims.push({ descriptor, owner: { index, module } });
    }
  });
}

/**
 * The deployment's config providers (`builtin`, e.g. `env`, `file`) with those of `modules`.
 *
 * @throws PluginCollisionError when a module's provider takes a name already taken.
 */
export function pluginConfigProviders(
  builtin: ConfigProviders,
  modules: readonly LoadedPluginModule[],
): ConfigProviders {
  const merged: Record<string, ConfigProviderResolver> = { ...builtin };
  const owners = new Map<string, string>();
  for (const given of modules) {
    const { module, configProviders = {} } = pluginModuleOf(given.module, given);
    for (const [name, provider] of Object.entries(configProviders)) {
      if (Object.hasOwn(merged, name)) {
        const owner = owners.get(name);
        const theirs =
          owner === undefined
            ? `the built-in config provider ${name}`
            : `config provider ${name} from module ${owner}`;
        throw new PluginCollisionError(
          module,
          name,
          owner,
          `Config provider ${name} from module ${module} collides with ${theirs}`,
        );
      }
      merged[name] = provider;
      owners.set(name, module);
    }
  }
  return merged;
}

/**
 * Checks `modules` as `createEngine` will, before any port exists (a composition root's early
 * check, so a bad module stops a start-up before anything is started). Only the Kafka sink, which
 * the engine registers over its own Kafka clients, is left to `createEngine`.
 *
 * @throws PluginModuleError or PluginCollisionError, as {@link registerPluginModules} and
 *   {@link pluginConfigProviders}.
 */
export function checkPluginModules(
  modules: readonly LoadedPluginModule[],
  builtinProviders: ConfigProviders = {},
): void {
  registerPluginModules(builtinRegistry(), modules);
  pluginConfigProviders(builtinProviders, modules);
}
