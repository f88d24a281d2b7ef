import { execFile, spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type OwnBrokerFolder,
  ownBrokerFolder,
  kafkaScripts as scripts,
} from '../../support/own-broker.js';

const run = promisify(execFile);
const root = process.cwd();

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  /** The JSON log lines at warn and error (stdout), to say why when an assertion fails. */
  readonly warnings: string;
}

/**
 * `npm start`'s process (local/main.ts) and the broker it starts, as a user meets them: a start
 * that fails or is interrupted leaves no broker of its own behind, a broker an earlier run of its
 * own left behind is taken over and stopped, and a broker the user started is left alone. Each
 * case has its own broker folder and ports (sharing the jar cache) and makes the start fail on
 * purpose with a taken S3 port, after the broker has come up.
 */
describe('npm start and the pinned broker', { timeout: 180_000 }, () => {
  let folder: OwnBrokerFolder;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let blocker: Server;
  let takenPort: number;

  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    takenPort = (blocker.address() as { port: number }).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
  });

  beforeEach(async () => {
    folder = await ownBrokerFolder();
    ({ home, env } = folder);
  });

  afterEach(async () => {
    await folder.remove();
  });

  it('stops the broker it started when the start fails afterwards, and says why it failed', async () => {
    // Act
    const exit = await npmStart(['--memory', '--port', '0', '--s3-port', String(takenPort)]);
    // Assess
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain('[kafka] ready');
    expect(exit.stderr).toContain(
      `port ${takenPort} (the local S3 server) is taken by another process (pid ${process.pid}, `,
    );
    expect(exit.stderr).not.toMatch(/install/i);
    expect(await brokerProcesses(home)).toEqual([]);
  });

  it('takes over and stops a broker an earlier npm start left running', async () => {
    // Prepare: a broker recorded as started by an npm start whose process is gone
    await run('bash', [join(scripts, 'start.sh')], {
      env: { ...env, KAFKA_OWNER: 'npm-start 2147483 0' },
    });
    expect(await brokerProcesses(home)).toHaveLength(1);
    // Act
    const exit = await npmStart(['--memory', '--port', '0', '--s3-port', String(takenPort)]);
    // Assess
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain('taking over the broker an earlier run left running');
    expect(await brokerProcesses(home)).toEqual([]);
  });

  it('leaves a broker the user started running', async () => {
    // Prepare: `npm run kafka:start`
    await run('bash', [join(scripts, 'start.sh')], { env });
    const before = await brokerProcesses(home);
    // Act
    const exit = await npmStart(['--memory', '--port', '0', '--s3-port', String(takenPort)]);
    // Assess
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain('already running');
    expect(await brokerProcesses(home)).toEqual(before);
    expect(before).toHaveLength(1);
  });

  it('stops the start-up and the broker it started on Ctrl-C during start-up', async () => {
    // Act: SIGINT to the process group (as a terminal's Ctrl-C) once the broker is starting
    const exit = await npmStart(['--memory', '--port', '0', '--s3-port', '0'], (stderr) =>
      stderr.includes('[kafka] starting Apache Kafka'),
    );
    // Assess
    expect(exit.code).toBe(130);
    expect(exit.stderr).toContain('SIGINT: stopping the start-up');
    expect(exit.stderr).not.toContain('[kafka] ready');
    expect(await brokerProcesses(home)).toEqual([]);
  });

  it('shuts down gracefully when one Ctrl-C arrives more than once (the terminal and npm both send it)', async () => {
    // Act: once running, SIGINT to the process group three times within 300 ms, as a terminal's
    // Ctrl-C and npm's forwarding of it arrive; the last one while the shutdown is stopping the
    // broker (which an echo must not interrupt)
    const exit = await npmStart(
      ['--memory', '--port', '0', '--s3-port', '0'],
      (stderr) => stderr.includes('Ctrl-C stops gracefully'),
      [0, 5, 300],
    );
    // Assess
    expect(exit.stderr).toContain('SIGINT: shutting down');
    expect(exit.stderr).not.toContain('exiting without waiting');
    expect(exit.stderr).toMatch(/^stopped$/m);
    expect(exit.code).toBe(0);
    expect(await brokerProcesses(home), `${exit.stderr}\n${exit.warnings}`).toEqual([]);
  });

  /**
   * Runs `npm start`'s command (`node --import tsx local/main.ts`) in a process group of its
   * own; with `interruptWhen`, sends SIGINT to the group as soon as its stderr satisfies it (and
   * again after each of `delaysMs`).
   */
  async function npmStart(
    args: readonly string[],
    interruptWhen?: (stderr: string) => boolean,
    delaysMs: readonly number[] = [0],
  ): Promise<Exit> {
    const dataDir = join(home, 'data');
    const command = ['--import', 'tsx', 'local/main.ts', '--data-dir', dataDir, ...args];
    const child = spawn(process.execPath, command, {
      cwd: root,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    let interrupted = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      const { pid } = child;
      if (!interrupted && interruptWhen?.(stderr) === true && pid !== undefined) {
        interrupted = true;
        for (const delay of delaysMs) {
          setTimeout(() => {
            try {
              process.kill(-pid, 'SIGINT');
            } catch {
              // the group is gone: it stopped already
            }
          }, delay);
        }
      }
    });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('close', (c, s) => resolve([c, s])),
    );
    const warnings = stdout
      .split('\n')
      .filter((line) => /"level":"(warn|error)"/.test(line))
      .join('\n');
    return { code, signal, stderr, warnings };
  }
});

/** Pids of Kafka brokers whose command line names `home` (their logs folder lies there). */
async function brokerProcesses(home: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes('kafka.Kafka') && cmdline.includes(home)) found.push(pid);
  }
  return found;
}
