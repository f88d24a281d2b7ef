/**
 * `npm run demo`: a datagen `orders` source with exactly-once and an S3 sink on its topic, with
 * live progress (local/demo/run-demo.ts).
 */

import { runDemo } from './demo/run-demo.js';

runDemo(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    setTimeout(() => process.exit(code), 200).unref();
  },
  (error: unknown) => {
    process.stderr.write(`demo failed: ${(error as Error)?.stack ?? error}\n`);
    process.exit(1);
  },
);
