import type { AnyPluginDescriptor } from '../../shared/connect/plugin.js';
import type { LoadedPluginModule } from '../../shared/engine/plugin-modules.js';

/**
 * A test's own plugins as the engine takes plugin packages: one module named `test`.
 *
 * @example
 * const { engine } = await testEngine({ pluginModules: testPlugins(sequenceSourceDescriptor) });
 */
export function testPlugins(...plugins: readonly AnyPluginDescriptor[]): LoadedPluginModule[] {
  return plugins.length === 0 ? [] : [{ module: 'test', plugins }];
}
