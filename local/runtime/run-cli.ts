import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { jsonLogger } from '../../shared/adapters/logging/json-logger.js';
import { ConfigError } from '../../shared/connect/errors.js';
import type { LoadedPluginModule } from '../../shared/engine/plugin-modules.js';
import { isLevelDamage } from '../services/dynalite.js';
import { BrokerUnavailableError } from './broker.js';
import { type CliOptions, parseCliOptions, USAGE } from './cli-options.js';
import { LOCAL_DEFAULTS } from './options.js';
import { loadPluginModules } from './plugin-loader.js';
import { banner, removeRuntimeInfo, runtimeInfoOf, writeRuntimeInfo } from './runtime-info.js';
import { type LocalRuntime, startLocalRuntime } from './start.js';
import { damagedStateMessage, startFailureMessage } from './start-failure.js';

/**
 * `npm start`'s body (entry point: local/main.ts): the whole system in this process. The banner
 * goes to stderr, so stdout carries only JSON log lines. SIGINT / SIGTERM shut down gracefully;
 * a second signal exits at once.
 */

/** A graceful shutdown that takes longer than this is cut short (exit code 1). */
const SHUTDOWN_LIMIT_MS = 60_000;

/**
 * A signal this soon after the first is the same Ctrl-C, not a second one: the terminal signals
 * the whole process group and npm forwards the signal to its child as well, so one Ctrl-C
 * arrives more than once, a few milliseconds apart (later on a busy machine). A person pressing
 * Ctrl-C again takes longer than this.
 */
const SAME_SIGNAL_MS = 1_000;

/** True for a signal that repeats the first one (see SAME_SIGNAL_MS). */
function isEcho(firstAt: number): boolean {
  return Date.now() - firstAt < SAME_SIGNAL_MS;
}

/** Runs until a signal; resolves with the exit code. */
export async function runCli(): Promise<number> {
  let options: CliOptions | 'help';
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
  const { plugins, ...runtimeOptions } = options;
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  process.stderr.write(
    options.memory === true
      ? 'starting serverless-connect (in memory: nothing is kept) ...\n'
      : `starting serverless-connect (state in ${options.dataDir}) ...\n`,
  );
  // Plugin packages load before anything starts; one that fails stops the start-up.
  let pluginModules: LoadedPluginModule[];
  try {
    pluginModules = await loadPluginModules(plugins);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`\n${error.message}\n`);
    return 1;
  }
  for (const { module, plugins: loaded, configProviders = {} } of pluginModules) {
    const names = [
      ...loaded.map((d) => `${d.className} ${d.version}`),
      ...Object.keys(configProviders).map((name) => `config provider ${name}`),
    ];
    process.stderr.write(`plugin module ${module}: ${names.join(', ')}\n`);
  }

  // Signals are ours from here on: one during start-up stops the start and whatever it started
  // (the broker included), one afterwards shuts down gracefully, a second exits at once.
  const startup = new AbortController();
  let onSignal = (signal: NodeJS.Signals) => {
    const firstAt = Date.now();
    process.stderr.write(`${signal}: stopping the start-up and what it started ...\n`);
    onSignal = () => {
      if (isEcho(firstAt)) return;
      process.stderr.write('exiting without waiting\n');
      process.exit(130);
    };
    startup.abort();
  };
  const relay = (signal: NodeJS.Signals) => onSignal(signal);
  process.on('SIGINT', relay);
  process.on('SIGTERM', relay);

  let runtime: LocalRuntime;
  try {
    runtime = await startLocalRuntime({
      ...runtimeOptions,
      pluginModules,
      dataDir,
      brokerOwner: 'npm-start',
      onProgress: (line) => process.stderr.write(`${line}\n`),
      signal: startup.signal,
    });
  } catch (error) {
    if (startup.signal.aborted) {
      process.stderr.write('stopped\n');
      return 130;
    }
    if (error instanceof BrokerUnavailableError || error instanceof ConfigError) {
      process.stderr.write(`\n${error.message}\n`);
      return 1;
    }
    const ports = {
      port: options.port ?? LOCAL_DEFAULTS.port,
      s3Port: options.s3Port ?? LOCAL_DEFAULTS.s3Port,
    };
    const told = await startFailureMessage(error, ports, dataDir);
    if (told !== undefined) {
      process.stderr.write(`\n${told}\n`);
      return 1;
    }
    throw error;
  }
  if (startup.signal.aborted) {
    await runtime.close();
    process.stderr.write('stopped\n');
    return 130;
  }
  // One stray rejection must not take every connector down with the process: log it.
  const crashLog = jsonLogger('error', { logger: 'serverless-connect.local' });
  process.on('unhandledRejection', (reason) => {
    crashLog.error('unhandled promise rejection (kept running)', { error: reason });
  });
  // dynalite throws a read of damaged files uncaught: say which folder and what to do.
  const dynamoFolder = runtime.dynamo.directory;
  process.on('uncaughtException', (error) => {
    process.stderr.write(
      dynamoFolder !== undefined && isLevelDamage(error)
        ? `\n${damagedStateMessage(dynamoFolder, error.message, 'serverless-connect stopped:')}\n`
        : `${error.stack ?? String(error)}\n`,
    );
    process.exit(1);
  });
  await writeRuntimeInfo(dataDir, runtimeInfoOf(runtime));
  process.stderr.write(banner(runtime));

  return new Promise<number>((done) => {
    let stoppingSince: number | undefined;
    onSignal = (signal: NodeJS.Signals) => {
      if (stoppingSince !== undefined) {
        if (isEcho(stoppingSince)) return;
        process.stderr.write(`${signal} again: exiting without waiting\n`);
        process.exit(130);
      }
      stoppingSince = Date.now();
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
  });
}
