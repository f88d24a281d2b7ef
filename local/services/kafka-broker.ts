import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const scripts = join(projectRoot, 'scripts', 'kafka');

/** The Kafka cluster the process talks to. */
export interface KafkaBrokerHandle {
  /** Bootstrap servers, e.g. `['127.0.0.1:9092']`. */
  readonly brokers: string[];
  /**
   * True when `stop()` stops the pinned local broker: this call started it, or it adopted one an
   * earlier process of the same owner started and left behind.
   */
  readonly startedHere: boolean;
  stop(): Promise<void>;
}

/** Why the pinned local broker could not be had (from the scripts' exit codes, common.sh). */
export type BrokerStartFailure =
  | 'java-missing'
  | 'maven-missing'
  | 'fetch-failed'
  | 'port-taken'
  | 'broker-exited'
  | 'not-ready'
  | 'interrupted'
  | 'no-address'
  | 'script-failed';

const FAILURE_BY_EXIT_CODE: Readonly<Record<number, BrokerStartFailure>> = {
  10: 'java-missing',
  11: 'maven-missing',
  12: 'fetch-failed',
  13: 'port-taken',
  14: 'broker-exited',
  15: 'not-ready',
};

/** The pinned local broker did not start; `detail` holds the scripts' own lines. */
export class BrokerStartError extends Error {
  override readonly name = 'BrokerStartError';
  constructor(
    readonly reason: BrokerStartFailure,
    readonly detail: readonly string[],
    /** The broker's folder (`KAFKA_HOME_DIR`), where its logs are. */
    readonly home: string,
  ) {
    super(
      [`the local Kafka broker did not start (${reason})`, ...detail.map((l) => `  ${l}`)].join(
        '\n',
      ),
    );
  }
}

export interface EnsureBrokerOptions {
  /**
   * Who starts the broker, e.g. `npm-start`. The scripts record it with this process's id, and a
   * broker still running that an earlier process of the same owner started (one that died or
   * failed without stopping it) is adopted: `stop()` stops it. A broker started by anyone else
   * (`npm run kafka:start`, another live process) is used and left alone.
   */
  readonly owner?: string;
  /** The scripts' progress lines (fetching, formatting, starting) as they come. */
  readonly onProgress?: (line: string) => void;
  /** Aborting stops the start-up, and the broker if this call started it. */
  readonly signal?: AbortSignal;
  /** Environment of the scripts (`KAFKA_HOME_DIR`, `KAFKA_PORT`, ...). @default process.env */
  readonly env?: NodeJS.ProcessEnv;
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
 * broker through `scripts/kafka/start.sh` (a no-op when it already runs) and reads its address
 * from `<KAFKA_HOME_DIR>/broker.address`, never from the scripts' output. A start-up that fails
 * or is aborted leaves no broker of its own behind. Only a broker this call started (or adopted,
 * see {@link EnsureBrokerOptions.owner}) is stopped by `stop()`.
 * @throws BrokerStartError naming the cause.
 */
export async function ensureKafkaBroker(
  options: EnsureBrokerOptions = {},
): Promise<KafkaBrokerHandle> {
  const env = options.env ?? process.env;
  const fromEnv = brokersFromEnv(env);
  if (fromEnv) return { brokers: fromEnv, startedHere: false, stop: async () => {} };
  const home = env.KAFKA_HOME_DIR ?? join(projectRoot, '.kafka');
  const stopBroker = async () => {
    const pid = await runningBrokerPid(home);
    try {
      // In a process group of its own: a Ctrl-C's echoes (the terminal's, npm's) reach the whole
      // group of npm start, and one arriving while the shutdown stops the broker would kill the
      // script half-way and leave the broker running.
      await runDetached('bash', [join(scripts, 'stop.sh')], env);
    } finally {
      // Whatever became of the script, the broker it was to stop does not outlive this call.
      if (pid !== undefined) await killIfRunning(home, pid);
    }
  };

  const runningBefore = await runningBrokerPid(home);
  const me =
    options.owner === undefined ? undefined : await ownerRecord(options.owner, process.pid);
  const leftBehind =
    runningBefore !== undefined && options.owner !== undefined
      ? await ownerLeftItBehind(home, options.owner)
      : false;

  const { code, lines } = await runStartScript(
    { ...env, ...(me === undefined ? {} : { KAFKA_OWNER: me }) },
    options,
  );
  if (code !== 0) {
    // start.sh stops what it started when it fails; this catches a start.sh that was killed.
    if (runningBefore === undefined) await stopBroker().catch(() => undefined);
    const reason = options.signal?.aborted
      ? 'interrupted'
      : (FAILURE_BY_EXIT_CODE[code] ?? 'script-failed');
    throw new BrokerStartError(reason, lines, home);
  }
  const address = (await readFile(join(home, 'broker.address'), 'utf8').catch(() => '')).trim();
  const startedHere =
    me === undefined
      ? runningBefore === undefined
      : (await readFile(join(home, 'broker.owner'), 'utf8').catch(() => '')).trim() === me;
  const owned = startedHere || leftBehind;
  if (!/^[\w.-]+:\d+$/.test(address)) {
    if (owned) await stopBroker().catch(() => undefined);
    throw new BrokerStartError(
      'no-address',
      [...lines, `start.sh succeeded but ${join(home, 'broker.address')} holds "${address}"`],
      home,
    );
  }
  if (leftBehind && me !== undefined) {
    await writeFile(join(home, 'broker.owner'), `${me}\n`);
    options.onProgress?.('[kafka] taking over the broker an earlier run left running');
  }
  return {
    brokers: [address],
    startedHere: owned,
    stop: async () => {
      if (owned) await stopBroker();
    },
  };
}

/** Runs a command in a process group of its own; rejects with its stderr when it fails. */
function runDetached(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: projectRoot,
      env,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${args.join(' ')} failed (${signal ?? code}): ${stderr.trim()}`));
    });
  });
}

/** Runs start.sh in a process group of its own (killed whole on abort); collects its stderr. */
async function runStartScript(
  env: NodeJS.ProcessEnv,
  options: EnsureBrokerOptions,
): Promise<{ code: number; lines: string[] }> {
  const child = spawn('bash', [join(scripts, 'start.sh')], {
    cwd: projectRoot,
    env,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines: string[] = [];
  let partial = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      options.onProgress?.(line);
    }
  });
  const abort = () => {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  };
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    const code = await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (exitCode, signal) => resolve(exitCode ?? (signal === null ? 1 : 143)));
    });
    if (partial.length > 0) lines.push(partial);
    return { code, lines: lines.map((l) => l.replace(/^\[kafka\]\s*/, '')).filter((l) => l) };
  } finally {
    options.signal?.removeEventListener('abort', abort);
  }
}

/** The running broker's pid from `<home>/broker.pid`, if that process is a Kafka broker. */
/**
 * Waits up to 10 s for the broker `pid` of `home` to be gone after stop.sh, then kills it and
 * waits for that too (a broker must never outlive the `npm start` that started it).
 */
async function killIfRunning(home: string, pid: number): Promise<void> {
  const running = async () => (await runningBrokerPidOf(pid)) !== undefined;
  for (let waited = 0; waited < 10_000 && (await running()); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!(await running())) return;
  process.stderr.write(`[kafka] the broker in ${home} (pid ${pid}) did not stop; killing it\n`);
  process.kill(pid, 'SIGKILL');
  for (let waited = 0; waited < 5_000 && (await running()); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `pid` while it is alive and a Kafka broker (not a later process that reuses the number). */
async function runningBrokerPidOf(pid: number): Promise<number | undefined> {
  if (!alive(pid)) return undefined;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  return cmdline === undefined || cmdline.includes('kafka.Kafka') ? pid : undefined;
}

async function runningBrokerPid(home: string): Promise<number | undefined> {
  const pid = Number((await readFile(join(home, 'broker.pid'), 'utf8').catch(() => '')).trim());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return runningBrokerPidOf(pid);
}

/**
 * `<owner> <pid> <start time>`: the start time (from /proc, where there is one) tells a live
 * process from a later one that reuses its pid.
 */
async function ownerRecord(owner: string, pid: number): Promise<string> {
  return `${owner} ${pid} ${await processStartTime(pid)}`;
}

/** True when `<home>/broker.owner` names `owner` and a process of it that is no longer alive. */
async function ownerLeftItBehind(home: string, owner: string): Promise<boolean> {
  const recorded = (await readFile(join(home, 'broker.owner'), 'utf8').catch(() => '')).trim();
  const [name, pidText, startTime] = recorded.split(' ');
  const pid = Number(pidText);
  if (name !== owner || !Number.isInteger(pid) || pid <= 0) return false;
  if (!alive(pid)) return true;
  return (await processStartTime(pid)) !== startTime;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Field 22 of /proc/<pid>/stat (clock ticks since boot), or '-' where there is no /proc. */
async function processStartTime(pid: number): Promise<string> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return '-';
  // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ?? '-';
}
