/**
 * The plugin package contract: an ES module that exports its plugins. `npm start -- --plugins`
 * and the CDK construct's `plugins` prop load such modules; the engine registers what they
 * export next to the built-in plugins, refusing any class name or alias another module or a
 * built-in plugin already has.
 */
import type { ConfigProviderResolver } from './config-provider.js';
import type { AnyPluginDescriptor } from './plugin.js';

/**
 * What a plugin package exports (named export `plugins`; a default export of the same shape is
 * accepted). `plugins` may be empty only when the module contributes config providers.
 *
 * @example
 * ```ts
 * import type { PluginModule } from 'serverless-connect/connect';
 * export const plugins: PluginModule['plugins'] = [
 *   { className: 'com.acme.HttpSinkConnector', aliases: ['http-sink'], type: 'sink',
 *     version: '1.2.0', create: () => new HttpSinkConnector() },
 * ];
 * // optional: `${vault:path:key}` placeholders in connector configs
 * export const configProviders: PluginModule['configProviders'] = { vault: vaultProvider };
 * ```
 */
export interface PluginModule {
  /** The module's connectors, converters, transformations and predicates. */
  readonly plugins: readonly AnyPluginDescriptor[];
  /** Config providers by the name placeholders use (`${name:path:key}`). @default none */
  readonly configProviders?: Readonly<Record<string, ConfigProviderResolver>>;
}
