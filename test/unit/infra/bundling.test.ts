import { existsSync } from 'node:fs';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { ESBUILD_OPTIONS, FUNCTION_NAMES, functionEntry } from '../../../infra/lib/bundling.js';
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
    });
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
