import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * How every Lambda function is bundled: one source of truth for `npm run build`
 * (scripts/build.ts, which calls esbuild directly) and for the CDK app (NodejsFunction, which runs
 * the locally installed esbuild), including the plugin packages bundled in and the bundle budget.
 * Plain data and Node built-ins, no aws-cdk-lib import, so the build script can load it without
 * pulling in the CDK.
 */

/** The Lambda entry points: `functions/<name>/handler.ts`, each exporting `handler`. */
export const FUNCTION_NAMES = [
  'api',
  'enumerator',
  'source-task',
  'sink-task',
  // The CDK Connector construct's custom resource (infra/lib/connector.ts).
  'connector-resource',
  'authorizer',
] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

/**
 * The root holding `functions/` and `shared/`, which esbuild bundles: the repository (this file
 * lives in `infra/lib/`), or the installed construct package (compiled to `dist/infra/lib/`, its
 * sources beside `dist/`; scripts/pack-cdk.ts).
 */
export const REPO_ROOT = sourceRoot(dirname(fileURLToPath(import.meta.url)));

function sourceRoot(here: string): string {
  const candidates = [join(here, '..', '..'), join(here, '..', '..', '..')];
  const root = candidates.find((dir) => existsSync(join(dir, 'functions', '_compose.ts')));
  if (root === undefined) {
    throw new Error(`serverless-connect: no functions/ sources above ${here} to bundle`);
  }
  return root;
}

/**
 * The tsconfig.json esbuild compiles the sources (and TypeScript plugins) with: the repository's,
 * or the one the construct package ships, never one of the user's app.
 */
export const TSCONFIG = join(REPO_ROOT, 'tsconfig.json');

/**
 * What NodejsFunction takes as `depsLockFilePath` (it only has to exist: no node modules are
 * installed into the bundles): the repository's lock file, or the package's package.json in the
 * construct package, which ships none.
 */
export function depsLockFile(root: string = REPO_ROOT): string {
  const lock = join(root, 'package-lock.json');
  return existsSync(lock) ? lock : join(root, 'package.json');
}

/**
 * The absolute path of a function's entry file, under the repository or under the source root
 * {@link functionsRoot} staged for a build with plugins.
 */
export function functionEntry(name: FunctionName, root: string = REPO_ROOT): string {
  return join(root, 'functions', name, 'handler.ts');
}

/**
 * kafkajs and other CommonJS dependencies call `require()`; an ESM bundle has none, so the banner
 * defines one.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/**
 * The esbuild options both bundlers share, in esbuild's own vocabulary (`BuildOptions`). The AWS
 * SDK v3 stays external: the Lambda Node.js runtime ships it. `target` is node22 because the code
 * must also run on the Node 22 development machines; it is valid on the nodejs24.x runtime.
 */
export const ESBUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  minify: true,
  treeShaking: true,
  sourcemap: true,
  // The runtime ships the SDK's clients and their dependencies; small utility packages that only
  // aws-msk-iam-sasl-signer-js needs (util-utf8-browser, util-format-url) are bundled.
  // pg's optional native binding and Cloudflare socket are required only when asked for
  // (`pg.native`) or on Cloudflare Workers: never on Lambda, so never bundled.
  external: [
    '@aws-sdk/client-*',
    '@aws-sdk/lib-*',
    '@aws-sdk/credential-providers',
    'pg-native',
    'pg-cloudflare',
  ],
  banner: { js: ESM_REQUIRE_BANNER },
} as const;

/** Each bundle should stay at or below this size (issue 9's goal). */
export const BUNDLE_BUDGET_BYTES = 1.5 * 1024 * 1024;

/**
 * `node -e` script for a shell command that fails when the file named by its argument is over
 * the budget: the CDK bundling's after-bundling hook (NodejsFunction runs no code of ours).
 */
export function bundleBudgetCommand(bundle: string): string {
  const script = [
    `const n = require('fs').statSync(process.argv[1]).size;`,
    `if (n > ${BUNDLE_BUDGET_BYTES}) {`,
    `console.error(process.argv[1] + ' is ' + n + ' bytes, over the 1.5 MB bundle budget');`,
    'process.exit(1); }',
  ].join(' ');
  return `node -e "${script}" "${bundle}"`;
}

// ---------------------------------------------------------------------------------------------
// Plugins: functions/_plugins.ts replaced by a module that imports the given plugin packages.
// esbuild's command line (all NodejsFunction runs) cannot replace a relative import (`alias`
// only maps package names), so a build with plugins bundles from a staged source root instead:
// a copy of functions/ (72 KB) with a generated _plugins.ts, and `shared` linked to the real
// folder, so the plugins and the engine share one copy of shared/ (the plugin API's classes).

/** The module a build with plugins replaces, relative to the source root. */
export const PLUGINS_MODULE = join('functions', '_plugins.ts');

/** Where the staged source roots live (git-ignored; under the root, so node_modules resolves). */
export const PLUGIN_STAGE_DIR = join('dist', '.plugin-stage');

/**
 * What a plugin list entry names: a module path (starting with `./`, `../` or `/`, or naming an
 * existing file relative to `appDir`), given as an absolute path; anything else is a package
 * name, which esbuild resolves from node_modules.
 */
export function pluginImportPath(spec: string, appDir: string): string {
  const path = resolve(appDir, spec);
  const isPath = spec.startsWith('./') || spec.startsWith('../') || isAbsolute(spec);
  if (!isPath && !existsSync(path)) return spec;
  if (!existsSync(path)) {
    throw new Error(`Plugin module ${spec} not found (${path}; paths are relative to ${appDir})`);
  }
  return path.split(sep).join('/');
}

/**
 * The generated `functions/_plugins.ts`: imports each plugin package and lists its descriptors,
 * from the named export `plugins` or from the default export's `plugins`. The engine validates
 * them when it starts.
 */
export function pluginModulesSource(plugins: readonly string[], appDir: string): string {
  const imports = plugins.map(
    (spec, i) => `import * as p${i} from ${JSON.stringify(pluginImportPath(spec, appDir))};`,
  );
  const entries = plugins.map(
    (spec, i) => `  { module: ${JSON.stringify(spec)}, plugins: descriptorsOf(p${i}) },`,
  );
  return [
    '// Generated by infra/lib/bundling.ts for a build with plugins; replaces functions/_plugins.ts.',
    ...imports,
    '',
    // A function, not `p0.plugins ?? p0.default?.plugins`: esbuild warns about the one of the two
    // exports a module does not have.
    'type Exports = { plugins?: unknown; default?: { plugins?: unknown } };',
    'const descriptorsOf = (m: Exports) => m.plugins ?? m.default?.plugins;',
    '',
    'export const pluginModules = [',
    ...entries,
    '];',
    '',
  ].join('\n');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => statSync(join(dir, file)).isFile())
    .sort();
}

export interface FunctionsRootOptions {
  /** The repository root. @default REPO_ROOT */
  readonly root?: string;
  /** What plugin paths are relative to. @default process.cwd() (the CDK app's directory) */
  readonly appDir?: string;
}

/**
 * The source root the functions are bundled from: the repository itself without plugins; with
 * plugins, `dist/.plugin-stage/<hash>/` holding a copy of functions/ with the generated
 * `_plugins.ts` and a link to shared/. The hash covers the plugin list and the functions'
 * sources, so a stage is written once (atomically, by a rename) and never changes.
 */
export function functionsRoot(
  plugins: readonly string[] = [],
  options: FunctionsRootOptions = {},
): string {
  const root = options.root ?? REPO_ROOT;
  if (plugins.length === 0) return root;
  const generated = pluginModulesSource(plugins, options.appDir ?? process.cwd());
  const functionsDir = join(root, 'functions');
  const hash = createHash('sha256').update(generated);
  for (const file of filesUnder(functionsDir)) {
    hash.update(`\0${file}\0`).update(readFileSync(join(functionsDir, file)));
  }
  const stage = join(root, PLUGIN_STAGE_DIR, hash.digest('hex').slice(0, 16));
  if (existsSync(stage)) return stage;
  const draft = `${stage}.${process.pid}.tmp`;
  rmSync(draft, { recursive: true, force: true });
  mkdirSync(draft, { recursive: true });
  cpSync(functionsDir, join(draft, 'functions'), { recursive: true });
  writeFileSync(join(draft, PLUGINS_MODULE), generated);
  symlinkSync(join(root, 'shared'), join(draft, 'shared'), 'junction');
  try {
    renameSync(draft, stage);
  } catch (error) {
    // Another process staged the same sources first.
    rmSync(draft, { recursive: true, force: true });
    if (!existsSync(stage)) throw error;
  }
  return stage;
}
