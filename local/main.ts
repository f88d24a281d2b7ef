/**
 * `npm start`: serverless-connect on this machine, in one process (local/runtime/run-cli.ts,
 * local/runtime/start.ts).
 */

import { runCli } from './runtime/run-cli.js';

runCli().then(
  (code) => {
    process.exitCode = code;
    // kafkajs and the AWS SDK may hold sockets open for a moment; do not wait for them.
    setTimeout(() => process.exit(code), 200).unref();
  },
  (error: unknown) => {
    process.stderr.write(
      `serverless-connect failed to start: ${(error as Error)?.stack ?? error}\n`,
    );
    process.exit(1);
  },
);
