import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const scripts = join(projectRoot, 'scripts', 'kafka');

/** The Kafka cluster the process talks to. */
export interface KafkaBrokerHandle {
  /** Bootstrap servers, e.g. `['127.0.0.1:9092']`. */
  readonly brokers: string[];
  /** True when this call started the pinned local broker (and `stop` will stop it). */
  readonly startedHere: boolean;
  stop(): Promise<void>;
}

async function localBrokerRunning(): Promise<boolean> {
  const pidFile = join(process.env.KAFKA_HOME_DIR ?? join(projectRoot, '.kafka'), 'broker.pid');
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Parses `KAFKA_BROKERS` (comma-separated host:port list), or undefined when unset. */
export function brokersFromEnv(env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  const list = (env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  return list.length > 0 ? list : undefined;
}

/**
 * Uses the broker at `KAFKA_BROKERS` when set; otherwise starts the project's pinned local
 * broker through `scripts/kafka/start.sh` (a no-op when it already runs). Only a broker this
 * call started is stopped by `stop()`.
 */
export async function ensureKafkaBroker(): Promise<KafkaBrokerHandle> {
  const fromEnv = brokersFromEnv();
  if (fromEnv) return { brokers: fromEnv, startedHere: false, stop: async () => {} };
  const wasRunning = await localBrokerRunning();
  let stdout: string;
  try {
    ({ stdout } = await run('bash', [join(scripts, 'start.sh')], {
      cwd: projectRoot,
      maxBuffer: 1 << 20,
    }));
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`could not start the local Kafka broker:\n${stderr.trim()}`, { cause: error });
  }
  const address = stdout.trim().split('\n').pop() ?? '';
  if (!/^[\w.-]+:\d+$/.test(address)) {
    throw new Error(`scripts/kafka/start.sh printed no broker address (got "${address}")`);
  }
  return {
    brokers: [address],
    startedHere: !wasRunning,
    stop: async () => {
      if (!wasRunning) await run('bash', [join(scripts, 'stop.sh')], { cwd: projectRoot });
    },
  };
}
