/**
 * `npm run check:first-run [-- --empty-caches] [--keep] [--rev <commit>]`: what a newcomer does,
 * on a fresh clone.
 *
 * Clones this repository's committed HEAD into a temporary folder, runs `npm ci` and the README's
 * `npm start` there with nothing of this checkout's (no `.kafka/`, no `.data/`, none of the
 * caller's KAFKA_* or PORT settings, Node and npm from the PATH a user has), then acts as a user:
 * `GET /`, creates the README's datagen source and S3 sink (their configs are read from the
 * clone's README, so the README cannot drift from what works), waits for records in S3 where the
 * README says to look, presses Ctrl-C (SIGINT to the process group, as a terminal does), and
 * checks that the run exits cleanly and leaves no process behind (the broker included).
 *
 * npm's cache and Maven's `~/.m2` are reused unless `--empty-caches` (then both start empty in
 * the temporary folder: the very first run on a new machine). Ports are the README's defaults
 * when free, else free ones through the documented PORT / S3_PORT / KAFKA_PORT settings.
 * Last line: `first-run: ok in <s>s`, or `first-run: FAILED (...)` with a non-zero exit.
 */
import { execFile, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '../local/services/free-port.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const emptyCaches = args.includes('--empty-caches');
const keep = args.includes('--keep');
/** `--rev <commit>`: check that commit instead of HEAD. */
const rev = args.includes('--rev') ? args[args.indexOf('--rev') + 1] : undefined;

const NPM_CI_LIMIT_MS = 10 * 60_000;
const START_LIMIT_MS = 6 * 60_000;
const RECORDS_LIMIT_MS = 2 * 60_000;
const EXIT_LIMIT_MS = 90_000;

const began = Date.now();
const seconds = (from: number) => Math.round((Date.now() - from) / 1000);
const say = (line: string) => console.log(`first-run: ${line}`);

class CheckFailed extends Error {}

const work = await mkdtemp(join(tmpdir(), 'sc-first-run-'));
const clone = join(work, 'serverless-connect');
const logs = {
  stdout: join(work, 'npm-start.stdout.log'),
  stderr: join(work, 'npm-start.stderr.log'),
};
let startPid: number | undefined;
let failed = false;

try {
  await main();
  say(`ok in ${seconds(began)}s`);
} catch (error) {
  failed = true;
  await showLogs();
  say(`FAILED (${error instanceof Error ? error.message : String(error)})`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}

async function main(): Promise<void> {
  const head = (
    await run('git', ['rev-parse', '--short', rev ?? 'HEAD'], { cwd: root })
  ).stdout.trim();
  await run('git', ['clone', '--quiet', '--no-hardlinks', root, clone]);
  if (rev !== undefined) await run('git', ['checkout', '--quiet', head], { cwd: clone });
  say(`cloned ${head} into ${clone}${emptyCaches ? ' (npm and Maven caches empty)' : ''}`);
  const env = await userEnvironment();

  let step = Date.now();
  await runStep('npm', ['ci'], env, NPM_CI_LIMIT_MS);
  say(`npm ci: ${seconds(step)} s`);

  step = Date.now();
  const api = `http://127.0.0.1:${env.PORT ?? '8083'}`;
  const exited = startNpmStart(env);
  await waitFor('the REST API to answer', START_LIMIT_MS, exited, async () => {
    const res = await fetch(`${api}/`).catch(() => undefined);
    return res?.ok === true;
  });
  say(`npm start: REST API up after ${seconds(step)} s (broker fetched and started)`);

  const rootInfo = (await (await fetch(`${api}/`)).json()) as Record<string, unknown>;
  if (typeof rootInfo.version !== 'string' || rootInfo.kafka_cluster_id === 'unknown') {
    throw new CheckFailed(`GET / answered ${JSON.stringify(rootInfo)}`);
  }
  say(`GET / -> version ${rootInfo.version}, Kafka cluster ${String(rootInfo.kafka_cluster_id)}`);

  const configs = await readmeConfigs();
  const source = configs.find((c) => c.config['connector.class'] === 'datagen');
  const sink = configs.find((c) => c.config['connector.class'] === 's3-sink');
  if (source === undefined || sink === undefined) {
    throw new CheckFailed("the README's datagen source or S3 sink example is missing");
  }
  if (env.S3_PORT !== undefined) {
    sink.config['s3.endpoint'] = `http://127.0.0.1:${env.S3_PORT}`;
  }
  for (const { name, config } of [source, sink]) {
    const res = await fetch(`${api}/connectors/${name}/config`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(config),
    });
    if (res.status !== 201 && res.status !== 200) {
      throw new CheckFailed(`PUT /connectors/${name}/config: ${res.status} ${await res.text()}`);
    }
  }
  say(`created ${source.name} (datagen) and ${sink.name} (s3-sink) from the README`);

  step = Date.now();
  const topic = source.config['kafka.topic'] ?? source.name;
  const folder = join(clone, '.data', 's3', sink.config['s3.bucket.name'] ?? '', 'topics', topic);
  let objects = 0;
  await waitFor('records in S3', RECORDS_LIMIT_MS, exited, async () => {
    objects = await countFiles(folder);
    return objects > 0;
  });
  for (const name of [source.name, sink.name]) {
    const status = (await (await fetch(`${api}/connectors/${name}/status`)).json()) as {
      connector?: { state?: string };
      tasks?: { state?: string }[];
    };
    const states = [status.connector?.state, ...(status.tasks ?? []).map((t) => t.state)];
    if (states.some((s) => s !== 'RUNNING')) {
      throw new CheckFailed(`${name} is not RUNNING: ${JSON.stringify(status)}`);
    }
  }
  say(
    `records in S3 after ${seconds(step)} s (${objects} objects under ${folder}); both connectors RUNNING`,
  );

  step = Date.now();
  if (startPid === undefined) throw new CheckFailed('npm start has no pid');
  process.kill(-startPid, 'SIGINT');
  const code = await Promise.race([
    exited,
    sleep(EXIT_LIMIT_MS).then(() => {
      throw new CheckFailed(`npm start did not exit within ${EXIT_LIMIT_MS / 1000} s of SIGINT`);
    }),
  ]);
  const stderr = await readFile(logs.stderr, 'utf8');
  if ((code !== 0 && code !== 130) || !/^stopped$/m.test(stderr)) {
    throw new CheckFailed(
      `npm start exited with ${code} after SIGINT (expected 0 or 130, after "stopped")`,
    );
  }
  const left = await processesOf(clone);
  if (left.length > 0) {
    throw new CheckFailed(`processes left after npm start exited: ${left.join('; ')}`);
  }
  say(
    `Ctrl-C: stopped gracefully in ${seconds(step)} s (exit ${code}); no process of the run left`,
  );
  startPid = undefined;
}

/** The environment of a user at a shell: no npm run variables, no project settings, no pins. */
async function userEnvironment(): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|KAFKA_|INIT_CWD$|NODE$|PORT$|S3_PORT$|LOG_LEVEL$|EXACTLY_ONCE_SOURCE$)/.test(key)) {
      continue;
    }
    env[key] = value;
  }
  // `npm run` put this checkout's node_modules/.bin (with its pinned Node) first on PATH.
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !dir.includes('node_modules') && !dir.includes('node-gyp-bin'))
    .join(delimiter);
  env.npm_config_fund = 'false';
  env.npm_config_audit = 'false';
  if (emptyCaches) {
    env.npm_config_cache = join(work, 'npm-cache');
    env.MAVEN_OPTS =
      `${process.env.MAVEN_OPTS ?? ''} -Dmaven.repo.local=${join(work, 'm2')}`.trim();
  }
  // The README's ports when free; otherwise the settings the README documents for others.
  if (!(await portFree(8083))) env.PORT = String(await freePort());
  if (!(await portFree(4568))) env.S3_PORT = String(await freePort());
  if (!(await portFree(9092)) || !(await portFree(9093))) {
    env.KAFKA_PORT = String(await freePort());
    env.KAFKA_CONTROLLER_PORT = String(await freePort());
  }
  const moved = ['PORT', 'S3_PORT', 'KAFKA_PORT'].filter((k) => env[k] !== undefined);
  if (moved.length > 0)
    say(`default ports busy here; using ${moved.map((k) => `${k}=${env[k]}`).join(' ')}`);
  return env;
}

async function runStep(
  command: string,
  argv: string[],
  env: NodeJS.ProcessEnv,
  limitMs: number,
): Promise<void> {
  try {
    await run(command, argv, { cwd: clone, env, timeout: limitMs, maxBuffer: 64 << 20 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new CheckFailed(
      `${command} ${argv.join(' ')} failed:\n${`${stdout}\n${stderr}`.trim().split('\n').slice(-30).join('\n')}`,
    );
  }
}

/**
 * Starts `npm start` in a process group of its own; resolves with its exit code, 130 when it
 * ended by SIGINT (npm re-raises the signal its child stopped on, as a shell shows after Ctrl-C).
 */
function startNpmStart(env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn('npm', ['start'], {
    cwd: clone,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  startPid = child.pid;
  // The logs are read once npm start exits: resolve only when both files hold all it wrote.
  const written = [
    finished(child.stdout.pipe(createWriteStream(logs.stdout))),
    finished(child.stderr.pipe(createWriteStream(logs.stderr))),
  ];
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const exit = code ?? (signal === 'SIGINT' ? 130 : signal === null ? 1 : 128);
      Promise.all(written).then(() => resolve(exit), reject);
    });
  });
}

async function waitFor(
  what: string,
  limitMs: number,
  exited: Promise<number>,
  ready: () => Promise<boolean>,
): Promise<void> {
  let exitCode: number | undefined;
  void exited.then((code) => {
    exitCode = code;
  });
  const deadline = Date.now() + limitMs;
  while (!(await ready())) {
    if (exitCode !== undefined) {
      throw new CheckFailed(`npm start exited with ${exitCode} while waiting for ${what}`);
    }
    if (Date.now() > deadline) {
      throw new CheckFailed(`no ${what} within ${limitMs / 1000} s`);
    }
    await sleep(500);
  }
}

/** The `PUT $C/connectors/<name>/config -d '<json>'` examples of the clone's README. */
async function readmeConfigs(): Promise<{ name: string; config: Record<string, string> }[]> {
  const readme = await readFile(join(clone, 'README.md'), 'utf8');
  const found: { name: string; config: Record<string, string> }[] = [];
  for (const match of readme.matchAll(/\$C\/connectors\/([\w.-]+)\/config -d '(\{[^']*\})'/g)) {
    const [, name, json] = match;
    if (name !== undefined && json !== undefined) {
      found.push({ name, config: JSON.parse(json) as Record<string, string> });
    }
  }
  return found;
}

async function countFiles(folder: string): Promise<number> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile() && e.name.endsWith('._S3rver_object')).length;
}

/** Processes (pid and command) whose command line or working folder lies inside `folder`. */
async function processesOf(folder: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replaceAll(
      '\0',
      ' ',
    );
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => '');
    if (cmdline.includes(folder) || cwd.startsWith(folder)) {
      found.push(`${pid} ${cmdline.slice(0, 120).trim()}`);
    }
  }
  return found;
}

async function portFree(port: number): Promise<boolean> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function showLogs(): Promise<void> {
  for (const [name, path] of Object.entries(logs)) {
    const text = await readFile(path, 'utf8').catch(() => '');
    if (text.trim() === '') continue;
    console.log(`--- npm start ${name} (last 40 lines of ${path}) ---`);
    console.log(text.trim().split('\n').slice(-40).join('\n'));
  }
}

/** Stops whatever of the run is still there, then removes the folder (kept on failure or --keep). */
async function cleanUp(): Promise<void> {
  if (startPid !== undefined) {
    try {
      process.kill(-startPid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await run('bash', [join(clone, 'scripts', 'kafka', 'stop.sh')], { cwd: clone }).catch(
    () => undefined,
  );
  for (const line of await processesOf(clone)) {
    const pid = Number(line.split(' ')[0]);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (failed || keep) {
    console.log(`first-run: the run's folder is kept: ${work}`);
  } else {
    await rm(work, { recursive: true, force: true });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
