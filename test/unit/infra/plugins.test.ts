import { readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BUNDLE_BUDGET_BYTES,
  FUNCTION_NAMES,
  functionEntry,
  functionsRoot,
  PLUGIN_STAGE_DIR,
  PLUGINS_MODULE,
  pluginImportPath,
  REPO_ROOT,
} from '../../../infra/lib/bundling.js';
import type { LoadedPluginModule } from '../../../shared/engine/plugin-modules.js';
import { PROBE_CLASS_NAME } from '../../fixtures/plugins/cdk-probe-plugin.js';
import { bundleSources, functionBundles, type Synthesized, synthConstruct } from './synth.js';
import { selfManagedPlain } from './variants.js';

/** The probe plugin as the tests give it: a path relative to the app's directory (the root). */
const PROBE = 'test/fixtures/plugins/cdk-probe-plugin.ts';
const BY_DEFAULT = './test/fixtures/plugins/default-export-plugin.ts';
/** The worked example (examples/http-sink), a plugin package of its own. */
const HTTP_SINK_EXAMPLE = 'examples/http-sink/src/index.ts';
const HTTP_SINK_CLASS_NAME = 'com.example.http.HttpSinkConnector';

/** `source-task` → `SourceTask`, as in the functions' logical ids. */
const pascal = (name: string) =>
  name.replace(/(^|-)([a-z])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());

const stagedPluginModules = async (root: string): Promise<readonly LoadedPluginModule[]> =>
  ((await import(join(root, PLUGINS_MODULE))) as { pluginModules: readonly LoadedPluginModule[] })
    .pluginModules;

describe('functionsRoot', () => {
  it('bundles from the repository itself without plugins', () => {
    expect(functionsRoot()).toBe(REPO_ROOT);
    expect(functionsRoot([])).toBe(REPO_ROOT);
  });

  it('stages a copy of functions/ whose _plugins.ts imports each plugin, beside the real shared/', () => {
    // Act
    const root = functionsRoot([PROBE], { appDir: REPO_ROOT });
    // Assess
    expect(root.startsWith(join(REPO_ROOT, PLUGIN_STAGE_DIR))).toBe(true);
    expect(functionsRoot([PROBE], { appDir: REPO_ROOT })).toBe(root);
    const generated = readFileSync(join(root, PLUGINS_MODULE), 'utf8');
    expect(generated).toContain(`from ${JSON.stringify(join(REPO_ROOT, PROBE))}`);
    for (const name of FUNCTION_NAMES) {
      expect(readFileSync(functionEntry(name, root), 'utf8')).toBe(
        readFileSync(functionEntry(name), 'utf8'),
      );
    }
    expect(realpathSync(join(root, 'shared'))).toBe(realpathSync(join(REPO_ROOT, 'shared')));
  });

  it('lists the descriptors of a named `plugins` export and of a default export', async () => {
    // Act
    const modules = await stagedPluginModules(
      functionsRoot([PROBE, BY_DEFAULT], { appDir: REPO_ROOT }),
    );
    // Assess
    expect(modules.map((m) => m.module)).toEqual([PROBE, BY_DEFAULT]);
    expect(modules.map((m) => m.plugins.map((p) => p.className))).toEqual([
      [PROBE_CLASS_NAME],
      [PROBE_CLASS_NAME],
    ]);
  });

  it('imports paths by their absolute path and leaves package names to node_modules', () => {
    expect(pluginImportPath(PROBE, REPO_ROOT)).toBe(join(REPO_ROOT, PROBE));
    expect(pluginImportPath(`./${PROBE}`, REPO_ROOT)).toBe(join(REPO_ROOT, PROBE));
    expect(pluginImportPath('@acme/connect-plugins', REPO_ROOT)).toBe('@acme/connect-plugins');
    expect(() => pluginImportPath('./plugins/missing.ts', REPO_ROOT)).toThrow(
      /Plugin module \.\/plugins\/missing\.ts not found/,
    );
  });
});

/**
 * The construct with the probe plugin and the HTTP sink example, synthesized with the real
 * bundling (the four functions, local esbuild), as
 * `cdk synth -c plugins=test/fixtures/plugins/cdk-probe-plugin.ts,examples/http-sink/src/index.ts`
 * does.
 */
describe('ServerlessConnect with plugins', () => {
  let synthesized: Synthesized;
  let bundles: Record<string, string>;
  const plugins = [PROBE, HTTP_SINK_EXAMPLE];
  const stage = () => functionsRoot(plugins, { appDir: process.cwd() });

  beforeAll(() => {
    synthesized = synthConstruct(() => ({ ...selfManagedPlain(), plugins }), {
      bundle: true,
    });
    bundles = functionBundles(synthesized.template, synthesized.app.outdir);
  }, 60_000);

  it('bundles every function from the staged sources, within the 1.5 MB budget', () => {
    expect(Object.keys(bundles)).toHaveLength(4);
    for (const [id, bundle] of Object.entries(bundles)) {
      const name = FUNCTION_NAMES.find((n) => id.startsWith(`ConnectFunctions${pascal(n)}`));
      expect(name).toBeDefined();
      expect(bundleSources(bundle)).toContain(functionEntry(name ?? 'api', stage()));
      expect(statSync(bundle).size).toBeLessThanOrEqual(BUNDLE_BUDGET_BYTES);
    }
  });

  it("puts the plugins' code in every function", () => {
    for (const bundle of Object.values(bundles)) {
      const code = readFileSync(bundle, 'utf8');
      expect(code).toContain(PROBE_CLASS_NAME);
      expect(code).toContain(HTTP_SINK_CLASS_NAME);
    }
  });

  it('bundles one copy of the plugin API, shared by the engine and the example', () => {
    for (const bundle of Object.values(bundles)) {
      const sources = bundleSources(bundle);
      expect(sources.filter((s) => s.endsWith('shared/connect/errors.ts'))).toHaveLength(1);
      expect(sources.some((s) => s.includes('examples/http-sink/src/http-sink-task.ts'))).toBe(
        true,
      );
    }
  });
});
