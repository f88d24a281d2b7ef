import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { BUNDLE_BUDGET_BYTES, ESBUILD_OPTIONS, functionsRoot } from '../infra/lib/bundling.js';

/**
 * `npm run build` (after the type-check): one tree-shaken, minified ESM bundle per Lambda
 * function, `functions/<name>/handler.ts` → `dist/functions/<name>/index.mjs`, with a source
 * map. The AWS SDK v3 stays external: the Lambda Node.js runtime ships it. Prints each size
 * and fails when a bundle exceeds the 1.5 MB budget.
 *
 * `--plugins a,b` (or `CONNECT_PLUGINS=a,b`, as for `npm start`) bundles plugin packages into
 * every function, as the CDK construct's `plugins` prop does: module paths relative to the
 * working directory, or package names.
 */
const budgetBytes = BUNDLE_BUDGET_BYTES;
const root = process.cwd();
const { values: args } = parseArgs({ options: { plugins: { type: 'string' } } });
const plugins = (args.plugins ?? process.env.CONNECT_PLUGINS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s.length > 0);

async function entryPoints(): Promise<string[]> {
  const dirs = await readdir(join(root, 'functions'), { withFileTypes: true });
  const names: string[] = [];
  for (const dir of dirs) {
    if (!dir.isDirectory() || dir.name.startsWith('_')) continue;
    const handler = join(root, 'functions', dir.name, 'handler.ts');
    if (
      await stat(handler).then(
        () => true,
        () => false,
      )
    )
      names.push(dir.name);
  }
  return names.sort();
}

async function main(): Promise<number> {
  const names = await entryPoints();
  if (names.length === 0) {
    console.log('build: no functions/<name>/handler.ts entry points yet');
    return 0;
  }
  const sources = functionsRoot(plugins, { root, appDir: root });
  if (plugins.length > 0) console.log(`build: with plugins ${plugins.join(', ')}`);
  let overBudget = 0;
  for (const name of names) {
    const outfile = join(root, 'dist', 'functions', name, 'index.mjs');
    const result = await build({
      entryPoints: [join(sources, 'functions', name, 'handler.ts')],
      outfile,
      ...ESBUILD_OPTIONS,
      external: [...ESBUILD_OPTIONS.external],
      metafile: true,
      logLevel: 'warning',
    });
    const bytes = Object.entries(result.metafile.outputs)
      .filter(([path]) => !path.endsWith('.map'))
      .reduce((sum, [, output]) => sum + output.bytes, 0);
    const flag = bytes > budgetBytes ? '  OVER the 1.5 MB budget' : '';
    if (flag) overBudget += 1;
    console.log(`build: ${name.padEnd(14)} ${(bytes / 1024).toFixed(1).padStart(8)} KiB${flag}`);
  }
  return overBudget === 0 ? 0 : 1;
}

process.exitCode = await main();
