/**
 * `npm run pack:cdk [-- --out <dir>]`: the construct package, `serverless-connect-<version>.tgz`,
 * an npm tarball a CDK app installs to `new ServerlessConnect(...)` and bundle the functions
 * without this repository (docs/adr/0007-construct-package.md says why it is shaped this way).
 *
 * Staged in `dist/cdk-package/` from `packages/cdk/package.json` (the package's fixed fields),
 * then `npm pack`:
 * - `dist/`: the constructs (`infra/lib/index.ts` and what it imports) compiled by tsc to ES
 *   modules and `.d.ts` (packages/cdk/tsconfig.build.json);
 * - `functions/`, `shared/`: the TypeScript sources esbuild bundles at synth time, exactly the
 *   files the handlers import (from an esbuild metafile of every handler) plus the test kit
 *   (the `./testkit` export); no tests, no `local/`;
 * - `node_modules/kafkajs`: kafkajs as patched by `patches/kafkajs+2.2.4.patch`, shipped inside
 *   the tarball as a bundled dependency, so esbuild resolves the patched copy from the installed
 *   package; the patch travels along in `patches/` for reference;
 * - `dependencies`: the packages the bundles include (versions as the root package.json pins
 *   them) and esbuild, which NodejsFunction runs at synth time; `peerDependencies`: aws-cdk-lib
 *   and constructs from this version up.
 * Prints the tarball's path and size on its last line.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import {
  ESBUILD_OPTIONS,
  FUNCTION_NAMES,
  functionEntry,
  REPO_ROOT,
} from '../infra/lib/bundling.js';

/** The dependency shipped patched inside the tarball, and its patch. */
const PATCHED = { name: 'kafkajs', patch: join('patches', 'kafkajs+2.2.4.patch') };
/** Copied whole besides what the handlers import: the package's `./testkit` export. */
const EXTRA_SOURCES = [join('shared', 'testkit')];

interface PackageJson {
  name: string;
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  bundleDependencies?: string[];
  [key: string]: unknown;
}

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as PackageJson;
const say = (line: string) => console.log(`pack:cdk: ${line}`);

/** A package a bundle includes: its name and its folder (relative to the repository). */
interface BundledPackage {
  readonly name: string;
  readonly dir: string;
}

/** `.../node_modules/@scope/name/...` or `.../node_modules/name/...` → that package, else undefined. */
function packageOf(input: string): BundledPackage | undefined {
  const parts = input.split(/[\\/]/);
  const at = parts.lastIndexOf('node_modules');
  const first = parts[at + 1];
  if (at < 0 || first === undefined) return undefined;
  const length = first.startsWith('@') ? 3 : 2;
  return {
    name: parts.slice(at + 1, at + length).join('/'),
    dir: parts.slice(0, at + length).join('/'),
  };
}

/** Every file of this repository and every package the handlers' bundles are built from. */
async function bundleInputs(): Promise<{ files: string[]; packages: BundledPackage[] }> {
  const result = await build({
    entryPoints: FUNCTION_NAMES.map((name) => functionEntry(name)),
    absWorkingDir: REPO_ROOT,
    outdir: join(REPO_ROOT, 'dist', 'cdk-package-probe'),
    ...ESBUILD_OPTIONS,
    external: [...ESBUILD_OPTIONS.external],
    write: false,
    metafile: true,
    logLevel: 'warning',
  });
  const files: string[] = [];
  const packages = new Map<string, BundledPackage>();
  for (const input of Object.keys(result.metafile.inputs)) {
    const bundled = packageOf(input);
    if (bundled !== undefined) packages.set(bundled.dir, bundled);
    else files.push(input);
  }
  return { files, packages: [...packages.values()] };
}

/**
 * The package's dependencies: each bundled package the root package.json depends on, at its
 * pinned version, and esbuild. A bundled package neither the root nor another bundled package
 * declares would be missing from a user's install: that fails the pack.
 */
function dependenciesOf(
  root: PackageJson,
  bundled: readonly BundledPackage[],
): Record<string, string> {
  const pinned = { ...root.dependencies };
  const names = new Set(bundled.map((p) => p.name));
  const direct = [...names].filter((name) => pinned[name] !== undefined).sort();
  const declared = new Set(direct);
  for (const { dir } of bundled) {
    const manifest = readJson(join(REPO_ROOT, dir, 'package.json'));
    for (const dep of Object.keys(manifest.dependencies ?? {})) declared.add(dep);
  }
  const undeclared = [...names].filter((name) => !declared.has(name));
  if (undeclared.length > 0) {
    throw new Error(`bundled but declared by no dependency: ${undeclared.join(', ')}`);
  }
  const esbuild = root.devDependencies?.esbuild;
  if (esbuild === undefined) throw new Error('esbuild is not a devDependency of the root');
  return Object.fromEntries([
    ...direct.map((name): [string, string] => [name, pinned[name] as string]),
    ['esbuild', esbuild],
  ]);
}

/** Fails unless the repository's node_modules holds the patched dependency (patch-package ran). */
function assertPatched(): void {
  try {
    execFileSync('git', ['apply', '--reverse', '--check', PATCHED.patch], {
      cwd: REPO_ROOT,
      stdio: 'pipe',
    });
  } catch {
    throw new Error(
      `node_modules/${PATCHED.name} is not patched by ${PATCHED.patch}: run npm ci (its postinstall applies patches/)`,
    );
  }
}

function copy(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  cpSync(from, to, { recursive: true });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const out = values.out ?? join(REPO_ROOT, 'dist');
  const stage = join(REPO_ROOT, 'dist', 'cdk-package');
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });

  const root = readJson(join(REPO_ROOT, 'package.json'));
  const template = readJson(join(REPO_ROOT, 'packages', 'cdk', 'package.json'));

  execFileSync(
    'npx',
    ['tsc', '-p', join('packages', 'cdk', 'tsconfig.build.json'), '--outDir', join(stage, 'dist')],
    { cwd: REPO_ROOT, stdio: 'inherit' },
  );

  const { files, packages } = await bundleInputs();
  const outside = files.filter((file) => !/^(functions|shared)[\\/]/.test(file));
  if (outside.length > 0) throw new Error(`handlers import ${outside.join(', ')}`);
  for (const file of [...files, ...EXTRA_SOURCES]) copy(join(REPO_ROOT, file), join(stage, file));

  assertPatched();
  copy(join(REPO_ROOT, 'node_modules', PATCHED.name), join(stage, 'node_modules', PATCHED.name));
  copy(join(REPO_ROOT, PATCHED.patch), join(stage, PATCHED.patch));
  if (!packages.some((p) => p.name === PATCHED.name))
    throw new Error(`the handlers no longer bundle ${PATCHED.name}`);

  // esbuild reads this, not a tsconfig.json of the user's app, for the package's sources (the
  // constructs pass it as NodejsFunction's `tsconfig`).
  const { compilerOptions } = JSON.parse(readFileSync(join(REPO_ROOT, 'tsconfig.json'), 'utf8'));
  writeFileSync(join(stage, 'tsconfig.json'), `${JSON.stringify({ compilerOptions }, null, 2)}\n`);
  copy(join(REPO_ROOT, 'packages', 'cdk', 'README.md'), join(stage, 'README.md'));

  const peer = (name: string) => {
    const version = root.devDependencies?.[name];
    if (version === undefined) throw new Error(`${name} is not a devDependency of the root`);
    return `^${version}`;
  };
  const { name, ...fields } = template;
  const manifest: PackageJson = {
    name,
    version: root.version as string,
    ...fields,
    dependencies: dependenciesOf(root, packages),
    bundleDependencies: [PATCHED.name],
    peerDependencies: { 'aws-cdk-lib': peer('aws-cdk-lib'), constructs: peer('constructs') },
  };
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);

  mkdirSync(out, { recursive: true });
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
      cwd: stage,
      encoding: 'utf8',
      env: { ...process.env, npm_config_ignore_scripts: 'true' },
    }),
  ) as { filename: string; size: number; unpackedSize: number; entryCount: number }[];
  const tarball = packed[0];
  if (tarball === undefined) throw new Error('npm pack wrote no tarball');
  const path = join(out, tarball.filename);
  say(
    `${files.length} source files, dependencies ${Object.keys(manifest.dependencies ?? {}).join(', ')}`,
  );
  say(
    `${relative(process.cwd(), path).split(sep).join('/')}: ${(statSync(path).size / 1024).toFixed(0)} KiB, ${tarball.entryCount} files, ${(tarball.unpackedSize / 1024).toFixed(0)} KiB unpacked`,
  );
}

await main();
