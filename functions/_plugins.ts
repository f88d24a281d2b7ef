/**
 * The plugin packages bundled into the functions. The CDK construct's `plugins` prop replaces
 * this module at bundle time with one that imports each package; without it, there are none.
 */
import type { LoadedPluginModule } from '../shared/engine/plugin-modules.js';

export const pluginModules: readonly LoadedPluginModule[] = [];
