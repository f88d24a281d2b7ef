import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { jsonLogger } from '../../shared/adapters/logging/json-logger.js';
import { ConfigError } from '../../shared/connect/errors.js';
import { BrokerUnavailableError } from './broker.js';
import { parseCliOptions, USAGE } from './cli-options.js';
import { banner, removeRuntimeInfo, runtimeInfoOf, writeRuntimeInfo } from './runtime-info.js';
import { type LocalRuntime, startLocalRuntime } from './start.js';

/**
 * `npm start`'s body (entry point: local/main.ts): the whole system in this process. The banner
 * goes to stderr, so stdout carries only JSON log lines. SIGINT / SIGTERM shut down gracefully;
 * a second signal exits at once.
 */

/** A graceful shutdown that takes longer than this is cut short (exit code 1). */
const SHUTDOWN_LIMIT_MS = 60_000;

/** Runs until a signal; resolves with the exit code. */
export async function runCli(): Promise<number> {
  let options: ReturnType<typeof parseCliOptions>;
  try {
    options = parseCliOptions(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  process.stderr.write(
    options.memory === true
      ? 'starting serverless-connect (in memory: nothing is kept) ...\n'
      : `starting serverless-connect (state in ${options.dataDir}) ...\n`,
  );

  let runtime: LocalRuntime;
  try {
    runtime = await startLocalRuntime({ ...options, dataDir });
  } catch (error) {
    if (error instanceof BrokerUnavailableError || error instanceof ConfigError) {
      process.stderr.write(`\n${error.message}\n`);
      return 1;
    }
    throw error;
  }
  // One stray rejection must not take every connector down with the process: log it.
  const crashLog = jsonLogger('error', { logger: 'serverless-connect.local' });
  process.on('unhandledRejection', (reason) => {
    crashLog.error('unhandled promise rejection (kept running)', { error: reason });
  });
  await writeRuntimeInfo(dataDir, runtimeInfoOf(runtime));
  process.stderr.write(banner(runtime));

  return new Promise<number>((done) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        process.stderr.write(`${signal} again: exiting without waiting\n`);
        process.exit(130);
      }
      stopping = true;
      process.stderr.write(`${signal}: shutting down (press Ctrl-C again to exit at once) ...\n`);
      const limit = setTimeout(() => {
        process.stderr.write('shutdown took too long; exiting\n');
        process.exit(1);
      }, SHUTDOWN_LIMIT_MS);
      limit.unref();
      runtime
        .close()
        .then(() => removeRuntimeInfo(dataDir))
        .then(() => {
          process.stderr.write('stopped\n');
          done(0);
        })
        .catch((error: unknown) => {
          process.stderr.write(`shutdown failed: ${String(error)}\n`);
          done(1);
        });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
