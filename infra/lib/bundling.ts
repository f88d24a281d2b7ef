import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * How every Lambda function is bundled: one source of truth for `npm run build`
 * (scripts/build.ts, which calls esbuild directly) and for the CDK app (NodejsFunction, which runs
 * the locally installed esbuild). Plain data, no aws-cdk-lib import, so the build script can load
 * it without pulling in the CDK.
 */

/** The Lambda entry points: `functions/<name>/handler.ts`, each exporting `handler`. */
export const FUNCTION_NAMES = ['api', 'enumerator', 'source-task', 'sink-task'] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

/** The repository root (this file lives in `infra/lib/`). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The absolute path of a function's entry file. */
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
  external: ['@aws-sdk/client-*', '@aws-sdk/lib-*', '@aws-sdk/credential-providers'],
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
