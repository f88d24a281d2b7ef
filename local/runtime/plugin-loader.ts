/**
 * Loads `npm start`'s plugin packages (`--plugins`, CONNECT_PLUGINS) with `import()`. A module is
 * a path, relative to the current directory (tsx runs `.ts` files too), or a package name,
 * resolved from serverless-connect's own dependencies (`npm install` it here). What a module
 * exports is checked by the engine (`pluginModuleOf`, shared/engine/plugin-modules.ts), which
 * also registers it.
 */
import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PluginModuleError } from '../../shared/engine/errors.js';
import { type LoadedPluginModule, pluginModuleOf } from '../../shared/engine/plugin-modules.js';

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** How `module` is imported: by its file's URL when it names a file, else as a package. */
type Target = { readonly file: string } | { readonly packageName: string };

function targetOf(module: string, cwd: string): Target {
  const path = resolve(cwd, module);
  const pathLike = module.startsWith('.') || isAbsolute(module);
  return pathLike || isFile(path) ? { file: path } : { packageName: module };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The package a bare specifier names: `@scope/name` or `name`, without a subpath. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
}

/** Why `module` could not be imported, in a sentence. */
function reason(module: string, target: Target, cwd: string, error: unknown): string {
  const { code } = (error ?? {}) as { code?: unknown };
  const message = messageOf(error);
  const missing =
    'packageName' in target &&
    code === 'ERR_MODULE_NOT_FOUND' &&
    // Node names the package, vitest's resolver the whole specifier.
    [module, packageOf(module)].some((name) => message.includes(`'${name}'`));
  return missing ? `no file ${module} in ${cwd} and no installed package of that name` : message;
}

/**
 * Imports one plugin module and checks what it exports.
 *
 * @throws PluginModuleError naming `module`: not found, thrown while loading, or exports nothing
 *   usable.
 */
export async function loadPluginModule(
  module: string,
  cwd: string = process.cwd(),
): Promise<LoadedPluginModule> {
  const target = targetOf(module, cwd);
  if ('file' in target && !isFile(target.file)) {
    throw new PluginModuleError(
      module,
      `Plugin module ${module} could not be loaded: no such file (${target.file})`,
    );
  }
  let exports: unknown;
  try {
    exports = await import('file' in target ? pathToFileURL(target.file).href : target.packageName);
  } catch (error) {
    throw new PluginModuleError(
      module,
      `Plugin module ${module} could not be loaded: ${reason(module, target, cwd, error)}`,
      { cause: error },
    );
  }
  return pluginModuleOf(module, exports);
}

/**
 * Imports `modules` in order (`npm start -- --plugins a,b`).
 *
 * @example
 * const pluginModules = await loadPluginModules(['./acme-plugins.ts', '@acme/connect-plugins']);
 * await startLocalRuntime({ pluginModules });
 */
export async function loadPluginModules(
  modules: readonly string[],
  cwd: string = process.cwd(),
): Promise<LoadedPluginModule[]> {
  const loaded: LoadedPluginModule[] = [];
  for (const module of modules) loaded.push(await loadPluginModule(module, cwd));
  return loaded;
}
