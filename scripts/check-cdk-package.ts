/**
 * `npm run check:cdk-package [-- --keep]`: the construct package works without this repository.
 *
 * Packs it (`npm run pack:cdk`), installs the tarball into a fresh folder outside the repository
 * with aws-cdk-lib, constructs and typescript at the versions this repository pins (npm's cache reused,
 * `--prefer-offline`; Node and npm from the PATH without this checkout's node_modules, so nothing
 * of the checkout is found), then synthesizes a small JavaScript CDK app there, as a user's app
 * would: one `ServerlessConnect` without plugins and one with a plugin file of the app (written
 * against `serverless-connect/connect`), bundled by NodejsFunction with the package's esbuild
 * (local bundling, no Docker). Then checks that:
 * - each stack has the four functions (api, enumerator, source and sink task), each bundle at
 *   most 1.5 MB;
 * - every bundled source file comes from the temporary app (the installed package or the app's
 *   own plugin), none from this repository;
 * - kafkajs is the patched copy the package ships (patches/kafkajs+2.2.4.patch);
 * - the plugin stack's bundles hold the plugin and one copy of the plugin API;
 * - each bundle loads in Node and exports `handler` as a function (the AWS SDK, which the
 *   Lambda runtime provides, linked from this repository's node_modules for that step only);
 * - a CommonJS app can `require('serverless-connect')`, and a TypeScript app (ES2022, strict)
 *   type-checks against the package's declarations, an unknown prop refused.
 * Last line `cdk-package: ok in <s>s`, or `cdk-package: FAILED (...)` with a non-zero exit.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { Template } from 'aws-cdk-lib/assertions';
import { BUNDLE_BUDGET_BYTES, REPO_ROOT } from '../infra/lib/bundling.js';
import { bundleSources, functionBundles } from '../test/unit/infra/synth.js';

const run = promisify(execFile);
const keep = process.argv.includes('--keep');
const began = Date.now();
const seconds = (from: number) => Math.round((Date.now() - from) / 1000);
const say = (line: string) => console.log(`cdk-package: ${line}`);

/** A plugin's class name the plugin stack's bundles must contain. */
const PLUGIN_CLASS = 'com.example.packaged.NothingSourceConnector';
/** A log line only the patched kafkajs has (its eosManager retries the transaction coordinator). */
const KAFKAJS_PATCH_MARK = 'transaction coordinator not ready, retrying';
const STACKS = { plain: 'Connect', plugins: 'ConnectWithPlugins' } as const;
/** The functions of every deployment, as their logical ids name them. */
const ALWAYS = ['Api', 'Enumerator', 'SourceTask', 'SinkTask'];

const APP = `import { App, Stack } from 'aws-cdk-lib';
import { ServerlessConnect } from 'serverless-connect';

const app = new App({ outdir: 'cdk.out' });
const env = { account: '111122223333', region: 'eu-west-1' };
const kafka = { bootstrapServers: ['b-1.example.com:9092'] };
new ServerlessConnect(new Stack(app, '${STACKS.plain}', { env }), 'Connect', { kafka });
new ServerlessConnect(new Stack(app, '${STACKS.plugins}', { env }), 'Connect', {
  kafka,
  plugins: ['./plugins/nothing-source.ts'],
});
app.synth();
`;

const PLUGIN = `import { ConfigDef, type PluginModule, SourceConnector, type SourceRecord, SourceTask } from 'serverless-connect/connect';

class NothingSourceTask extends SourceTask {
  version(): string { return '1.0.0'; }
  async start(): Promise<void> {}
  async poll(): Promise<SourceRecord[] | null> { return null; }
  async stop(): Promise<void> {}
}

class NothingSourceConnector extends SourceConnector {
  version(): string { return '1.0.0'; }
  config(): ConfigDef { return new ConfigDef(); }
  async start(): Promise<void> {}
  async taskConfigs(): Promise<Record<string, string>[]> { return [{}]; }
  async stop(): Promise<void> {}
  createTask(): NothingSourceTask { return new NothingSourceTask(); }
}

export const plugins: PluginModule['plugins'] = [
  { className: '${PLUGIN_CLASS}', type: 'source', version: '1.0.0', create: () => new NothingSourceConnector() },
];
`;

/** A TypeScript app's use of the package's types, type-checked with the app's own settings. */
const TYPED_APP = `import { App, Duration, Stack } from 'aws-cdk-lib';
import { type KafkaAccessProps, ServerlessConnect, type ServerlessConnectProps } from 'serverless-connect';
import type { PluginModule } from 'serverless-connect/connect';

const kafka: KafkaAccessProps = { bootstrapServers: ['b-1.example.com:9098'], auth: { mode: 'iam' } };
const props: ServerlessConnectProps = { kafka, schedule: { rate: Duration.minutes(2) } };
const connect = new ServerlessConnect(new Stack(new App(), 'Typed'), 'Connect', props);
export const name: string = connect.functions.api.function.functionName;
export const none: PluginModule['plugins'] = [];
// @ts-expect-error: the props have no such key
new ServerlessConnect(new Stack(new App(), 'Wrong'), 'Connect', { kafka, tables: 1 });
`;
const TYPED_APP_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  },
  files: ['typed-app.ts'],
};

class CheckFailed extends Error {}

function expect(condition: boolean, message: string): void {
  if (!condition) throw new CheckFailed(message);
}

/** The caller's environment without this checkout: no npm_* settings, no node_modules/.bin. */
function userEnvironment(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(npm_|INIT_CWD$|NODE$)/.test(key)),
  );
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !dir.includes('node_modules') && !dir.includes('node-gyp-bin'))
    .join(delimiter);
  return { ...env, npm_config_fund: 'false', npm_config_audit: 'false' };
}

async function step(what: string, command: string, args: string[], cwd: string): Promise<string> {
  const from = Date.now();
  try {
    const { stdout } = await run(command, args, {
      cwd,
      env: userEnvironment(),
      maxBuffer: 64 << 20,
      timeout: 10 * 60_000,
    });
    say(`${what}: ${seconds(from)} s`);
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new CheckFailed(`${what} failed:\n${stdout ?? ''}\n${stderr ?? String(error)}`);
  }
}

async function pack(work: string): Promise<string> {
  const from = Date.now();
  await run(process.execPath, ['--import', 'tsx', 'scripts/pack-cdk.ts', '--out', work], {
    cwd: REPO_ROOT,
    maxBuffer: 64 << 20,
  });
  const tarball = (await readdir(work)).find((file) => file.endsWith('.tgz'));
  expect(tarball !== undefined, 'pack:cdk wrote no tarball');
  const path = join(work, tarball as string);
  say(`pack:cdk: ${seconds(from)} s, ${(statSync(path).size / 1024).toFixed(0)} KiB`);
  return path;
}

/**
 * The bundle of each function of serverless-connect (a description starting with its name; not
 * the CDK's own helper functions, if any) in a synthesized stack, by logical id.
 */
function bundlesOf(app: string, stack: string): Record<string, string> {
  const out = join(app, 'cdk.out');
  const template = Template.fromJSON(
    JSON.parse(readFileSync(join(out, `${stack}.template.json`), 'utf8')),
  );
  const bundles = functionBundles(template, out);
  const ours = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([, fn]) =>
    String(fn.Properties?.Description ?? '').startsWith('serverless-connect'),
  );
  return Object.fromEntries(ours.map(([id]) => [id, bundles[id] ?? '']));
}

function checkBundles(app: string, stack: string, bundles: Record<string, string>): void {
  const missing = ALWAYS.filter((name) => !Object.keys(bundles).some((id) => id.includes(name)));
  expect(missing.length === 0, `${stack}: no ${missing.join(', ')} function`);
  const bundledKafkajs = join(app, 'node_modules', 'serverless-connect', 'node_modules', 'kafkajs');
  for (const [id, bundle] of Object.entries(bundles)) {
    expect(existsSync(bundle), `${stack}/${id}: no bundle at ${bundle}`);
    const bytes = statSync(bundle).size;
    expect(bytes <= BUNDLE_BUDGET_BYTES, `${stack}/${id}: ${bytes} bytes, over the 1.5 MB budget`);
    const sources = bundleSources(bundle);
    const foreign = sources.filter((source) => relative(app, source).startsWith('..'));
    expect(foreign.length === 0, `${stack}/${id} bundles files outside the app: ${foreign[0]}`);
    const kafkajs = sources.filter((source) => source.includes('/node_modules/kafkajs/'));
    const unpatched = kafkajs.find((source) => !source.startsWith(bundledKafkajs));
    expect(
      kafkajs.length > 0 && unpatched === undefined,
      `${stack}/${id}: kafkajs not from the package's patched copy (${unpatched ?? 'none'})`,
    );
    const code = readFileSync(bundle, 'utf8');
    if (id.includes('SourceTask')) {
      expect(code.includes(KAFKAJS_PATCH_MARK), `${stack}/${id}: kafkajs is not patched`);
    }
    if (stack === STACKS.plugins) {
      expect(code.includes(PLUGIN_CLASS), `${stack}/${id}: the plugin is not bundled`);
      const apis = sources.filter((s) => s.endsWith('shared/connect/errors.ts'));
      expect(apis.length === 1, `${stack}/${id}: ${apis.length} copies of the plugin API`);
    }
  }
}

/**
 * Imports each bundle in a Node process of its own and checks its `handler` export. The bundles
 * leave the AWS SDK to the Lambda runtime; `node_modules/@aws-sdk` of the load folder links to
 * this repository's copy in its place, and nothing else is there to resolve.
 */
async function checkLoads(work: string, bundles: string[]): Promise<void> {
  const dir = join(work, 'load');
  await mkdir(join(dir, 'node_modules'), { recursive: true });
  await symlink(join(REPO_ROOT, 'node_modules', '@aws-sdk'), join(dir, 'node_modules', '@aws-sdk'));
  const probe =
    'const m = await import(process.argv[1]); console.log(typeof m.handler); process.exit(0);';
  for (const [i, bundle] of bundles.entries()) {
    const file = join(dir, `bundle-${i}.mjs`);
    await copyFile(bundle, file);
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', probe, file], {
      cwd: dir,
      timeout: 60_000,
    });
    expect(stdout.trim() === 'function', `${bundle}: handler is ${stdout.trim()}, not a function`);
  }
}

async function main(work: string): Promise<void> {
  expect(relative(REPO_ROOT, work).startsWith('..'), `${work} is inside the repository`);
  const tarball = await pack(work);
  const app = join(work, 'app');
  await mkdir(join(app, 'plugins'), { recursive: true });
  await writeFile(
    join(app, 'package.json'),
    `${JSON.stringify({ name: 'my-cdk-app', private: true, type: 'module' }, null, 2)}\n`,
  );
  await writeFile(join(app, 'app.mjs'), APP);
  await writeFile(join(app, 'plugins', 'nothing-source.ts'), PLUGIN);
  await writeFile(join(app, 'typed-app.ts'), TYPED_APP);
  await writeFile(join(app, 'tsconfig.json'), JSON.stringify(TYPED_APP_TSCONFIG, null, 2));

  const pinned = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const cdk = ['aws-cdk-lib', 'constructs', 'typescript'].map(
    (name) => `${name}@${pinned.devDependencies[name]}`,
  );
  await step(
    'npm install',
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, ...cdk],
    app,
  );
  await step('synth with bundling', 'node', ['app.mjs'], app);
  await step(
    'tsc of a TypeScript app',
    'node',
    [join('node_modules', 'typescript', 'bin', 'tsc')],
    app,
  );

  const all: string[] = [];
  for (const stack of Object.values(STACKS)) {
    const bundles = bundlesOf(app, stack);
    checkBundles(app, stack, bundles);
    const sizes = Object.values(bundles).map((b) => (statSync(b).size / 1024).toFixed(0));
    say(`${stack}: ${sizes.length} bundles of ${sizes.join(', ')} KiB`);
    all.push(...Object.values(bundles));
  }
  await checkLoads(work, all);
  say(`all ${all.length} bundles load and export handler`);

  const cjs =
    "const { ServerlessConnect } = require('serverless-connect'); console.log(typeof ServerlessConnect);";
  const required = await step('CommonJS require', 'node', ['-e', cjs], app);
  expect(required.trim() === 'function', `require('serverless-connect') gave ${required.trim()}`);
}

const work = await mkdtemp(join(tmpdir(), 'sc-cdk-package-'));
try {
  await main(work);
  say(`ok in ${seconds(began)}s`);
} catch (error) {
  say(`FAILED (${error instanceof Error ? error.message : String(error)})`);
  process.exitCode = 1;
} finally {
  if (keep) say(`kept ${work}`);
  else await rm(work, { recursive: true, force: true });
}
