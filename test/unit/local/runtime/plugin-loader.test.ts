import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPluginModule, loadPluginModules } from '../../../../local/runtime/plugin-loader.js';
import { PluginModuleError } from '../../../../shared/engine/errors.js';
import { ACME_SOURCE_CLASS } from '../../../fixtures/plugins/acme-plugins.js';

const fixtures = 'test/fixtures/plugins';

/** What `load` rejects with. */
async function rejection(load: Promise<unknown>): Promise<Error> {
  return load.then(
    () => {
      throw new Error('expected the load to fail');
    },
    (error: unknown) => error as Error,
  );
}

describe('loadPluginModules', () => {
  it('loads a path relative to the current directory, and an absolute one', async () => {
    // Act
    const [relative, absolute] = await loadPluginModules([
      `${fixtures}/acme-plugins.ts`,
      resolve(fixtures, 'default-export.ts'),
    ]);
    // Assess
    expect(relative?.module).toBe(`${fixtures}/acme-plugins.ts`);
    expect(relative?.plugins.map((d) => [d.className, d.version])).toEqual([
      [ACME_SOURCE_CLASS, '1.2.3'],
    ]);
    expect(Object.keys(relative?.configProviders ?? {})).toEqual(['acme']);
    expect(absolute?.plugins.map((d) => d.className)).toEqual([
      'com.acme.connect.DefaultQuietSourceConnector',
    ]);
  });

  it('resolves a path from the directory it is given', async () => {
    // Act
    const loaded = await loadPluginModule('./acme-plugins.ts', resolve(fixtures));
    // Assess
    expect(loaded.plugins).toHaveLength(1);
  });

  it('names the module and the cause when the module throws on load', async () => {
    // Act
    const error = await rejection(loadPluginModule(`${fixtures}/throws-on-load.ts`));
    // Assess
    expect(error).toBeInstanceOf(PluginModuleError);
    expect(error.message).toBe(
      `Plugin module ${fixtures}/throws-on-load.ts could not be loaded: acme license key missing`,
    );
  });

  it('names the module that exports no plugins', async () => {
    // Act
    const error = await rejection(loadPluginModule(`${fixtures}/exports-nothing.ts`));
    // Assess
    expect(error).toBeInstanceOf(PluginModuleError);
    expect(error.message).toMatch(
      /^Plugin module test\/fixtures\/plugins\/exports-nothing\.ts exports no plugins: /,
    );
  });

  it('says which file or package is missing', async () => {
    // Act
    const file = await rejection(loadPluginModule('./no-such-plugins.ts'));
    const pkg = await rejection(loadPluginModule('@acme/no-such-plugins'));
    const bare = await rejection(loadPluginModule('plugins/no-such.ts'));
    // Assess
    expect(file.message).toBe(
      `Plugin module ./no-such-plugins.ts could not be loaded: no such file (${resolve('no-such-plugins.ts')})`,
    );
    expect(pkg).toBeInstanceOf(PluginModuleError);
    expect(pkg.message).toMatch(/^Plugin module @acme\/no-such-plugins could not be loaded: /);
    expect(bare.message).toBe(
      `Plugin module plugins/no-such.ts could not be loaded: no file plugins/no-such.ts in ${process.cwd()} and no installed package of that name`,
    );
  });
});
