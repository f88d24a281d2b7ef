import type { AnyPluginDescriptor } from '../connect/plugin.js';

/** One plugin package as loaded: the name it was given by, and the descriptors it exports. */
export interface LoadedPluginModule {
  /** The module path or package name, as the deployment or `npm start --plugins` gave it. */
  readonly module: string;
  readonly plugins: readonly AnyPluginDescriptor[];
}
