import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  BUNDLE_BUDGET_BYTES,
  bundleBudgetCommand,
  depsLockFile,
  ESBUILD_OPTIONS,
  FUNCTION_NAMES,
  functionEntry,
  REPO_ROOT,
  TSCONFIG,
} from '../../../infra/lib/bundling.js';
import { FUNCTION_RUNTIME, nodejsBundling } from '../../../infra/lib/connect-function.js';

describe('bundling options', () => {
  it('has an entry file for every function', () => {
    for (const name of FUNCTION_NAMES) expect(existsSync(functionEntry(name))).toBe(true);
  });

  it('gives NodejsFunction the same esbuild options as npm run build, and never Docker', () => {
    // Act
    const bundling = nodejsBundling();
    // Assess
    expect(bundling).toMatchObject({
      minify: ESBUILD_OPTIONS.minify,
      sourceMap: ESBUILD_OPTIONS.sourcemap,
      target: ESBUILD_OPTIONS.target,
      format: ESBUILD_OPTIONS.format,
      banner: ESBUILD_OPTIONS.banner.js,
      externalModules: [...ESBUILD_OPTIONS.external],
      esbuildArgs: { '--tree-shaking': 'true' },
      forceDockerBundling: false,
      tsconfig: join(REPO_ROOT, 'tsconfig.json'),
    });
    expect(TSCONFIG).toBe(join(REPO_ROOT, 'tsconfig.json'));
  });

  it("gives NodejsFunction the repository's lock file, or the package.json of the construct package, which ships none", () => {
    // Prepare
    const installed = mkdtempSync(join(tmpdir(), 'sc-package-'));
    writeFileSync(join(installed, 'package.json'), '{}');
    try {
      // Act, Assess
      expect(depsLockFile()).toBe(join(REPO_ROOT, 'package-lock.json'));
      expect(depsLockFile(installed)).toBe(join(installed, 'package.json'));
    } finally {
      rmSync(installed, { recursive: true, force: true });
    }
  });

  it('checks the bundle budget after NodejsFunction bundles each function', () => {
    // Act
    const hooks = nodejsBundling().commandHooks;
    // Assess
    expect(hooks.afterBundling('/in', '/out')).toEqual([bundleBudgetCommand('/out/index.mjs')]);
  });

  it('fails the bundling command for a bundle over 1.5 MB only', () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'sc-budget-'));
    const within = join(dir, 'within.mjs');
    const over = join(dir, 'over.mjs');
    writeFileSync(within, Buffer.alloc(BUNDLE_BUDGET_BYTES));
    writeFileSync(over, Buffer.alloc(BUNDLE_BUDGET_BYTES + 1));
    const run = (bundle: string) => () =>
      execFileSync('bash', ['-c', bundleBudgetCommand(bundle)], { stdio: 'pipe' });
    try {
      // Act, Assess
      expect(run(within)).not.toThrow();
      expect(run(over)).toThrow(/over the 1\.5 MB bundle budget/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('targets the newest Node.js runtime aws-cdk-lib offers', () => {
    // Prepare
    const versions = Object.keys(Runtime)
      .map((key) => /^NODEJS_(\d+)_X$/.exec(key)?.[1])
      .filter((v): v is string => v !== undefined)
      .map(Number);
    // Act
    const newest = Math.max(...versions);
    // Assess
    expect(FUNCTION_RUNTIME.name).toBe(`nodejs${newest}.x`);
    expect(newest).toBeGreaterThanOrEqual(22);
  });
});
