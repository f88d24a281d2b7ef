import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readRuntimeInfo, shownPath } from '../runtime/runtime-info.js';
import { type LocalRuntime, startLocalRuntime } from '../runtime/start.js';
import {
  DEMO_USAGE,
  type DemoOptions,
  type DemoS3,
  parseDemoArgs,
  SINK,
  SOURCE,
  sinkConfig,
  sourceConfig,
  TOPIC,
  TOPICS_DIR,
} from './demo-setup.js';
import {
  ObjectLineCounter,
  type Rest,
  render,
  restClient,
  type Snapshot,
  snapshot,
} from './progress.js';

/**
 * `npm run demo`'s body (entry point: local/demo.ts): a datagen source and an S3 sink with live
 * progress, against the runtime of `npm start` or, when none answers, one started here.
 */

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The runtime to talk to: the one answering at the URL, or one started in this process. */
async function connect(
  options: DemoOptions,
  rest: Rest,
): Promise<{ s3: DemoS3; runtime?: LocalRuntime; logFile?: string }> {
  const dataDir = resolve(options.dataDir);
  const answering = await rest('GET', '/').then(
    (r) => r.status === 200,
    () => false,
  );
  if (answering) {
    const info = await readRuntimeInfo(dataDir);
    if (info !== undefined && info.url === options.url) {
      return {
        s3: {
          endpoint: info.s3.endpoint,
          bucket: info.s3.bucket,
          accessKeyId: info.s3.accessKeyId,
          secretAccessKey: info.s3.secretAccessKey,
          directory: info.s3.directory ?? undefined,
        },
      };
    }
    process.stderr.write(
      `No ${shownPath(join(dataDir, 'runtime.json'))} for ${options.url}: assuming npm start's s3rver at http://127.0.0.1:4568.\n`,
    );
    return {
      s3: {
        endpoint: 'http://127.0.0.1:4568',
        bucket: 'serverless-connect',
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        directory: undefined,
      },
    };
  }
  await mkdir(dataDir, { recursive: true });
  const logFile = join(dataDir, 'demo-runtime.log');
  const log = createWriteStream(logFile, { flags: 'a' });
  process.stderr.write(
    `Nothing answers at ${options.url}: starting the local runtime in this process (state in ${shownPath(dataDir)}, logs in ${shownPath(logFile)}) ...\n`,
  );
  const url = new URL(options.url);
  const runtime = await startLocalRuntime({
    dataDir,
    host: url.hostname,
    port: Number(url.port || 8083),
    writeLog: (line) => log.write(`${line}\n`),
  });
  return {
    runtime,
    logFile,
    s3: {
      endpoint: runtime.s3.endpoint,
      bucket: runtime.s3.bucket,
      accessKeyId: runtime.s3.credentials.accessKeyId,
      secretAccessKey: runtime.s3.credentials.secretAccessKey,
      directory: runtime.s3.directory,
    },
  };
}

async function put(rest: Rest, path: string, body?: unknown): Promise<void> {
  const { status, body: answer } = await rest('PUT', path, body);
  if (status >= 300) throw new Error(`PUT ${path} answered ${status}: ${JSON.stringify(answer)}`);
}

/** Creates or updates the two connectors (PUT .../config is create-or-update) and runs them. */
async function setUp(rest: Rest, options: DemoOptions, s3: DemoS3): Promise<void> {
  await put(rest, `/connectors/${SOURCE}/config`, sourceConfig(options.rate));
  // An earlier demo paused the source; resuming a running connector changes nothing.
  await put(rest, `/connectors/${SOURCE}/resume`);
  // The sink subscribes to the topic once it exists (the source's first transaction creates it).
  for (let i = 0; i < 60; i += 1) {
    const { body } = await rest('GET', `/connectors/${SOURCE}/offsets`);
    if (((body as { offsets?: unknown[] })?.offsets ?? []).length > 0) break;
    await sleep(500);
  }
  await put(rest, `/connectors/${SINK}/config`, sinkConfig(s3));
  await put(rest, `/connectors/${SINK}/resume`);
}

/** Shows frames until Ctrl-C or the duration; returns the last snapshot. */
async function watch(
  rest: Rest,
  options: DemoOptions,
  counter: ObjectLineCounter,
  where: string,
): Promise<Snapshot | undefined> {
  const started = Date.now();
  let stop = false;
  const onSignal = () => {
    stop = true;
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const tty = process.stdout.isTTY === true;
  let shown = 0;
  let before: Snapshot | undefined;
  try {
    while (
      !stop &&
      (options.durationMs === undefined || Date.now() - started < options.durationMs)
    ) {
      let now: Snapshot;
      try {
        now = await snapshot(rest, { source: SOURCE, sink: SINK }, counter);
      } catch (error) {
        // A refresh that fails (the runtime restarting, a request cut) is retried next second.
        process.stderr.write(`(refresh failed: ${(error as Error).message})\n`);
        shown = 0;
        await sleep(1_000);
        continue;
      }
      const lines = render(now, before, { url: options.url, elapsedMs: now.at - started, where });
      if (tty) {
        // Lines are cut to the terminal's width: a wrapped line would break the in-place redraw.
        const width = Math.max(20, (process.stdout.columns ?? 200) - 1);
        const cut = lines.map((line) => (line.length > width ? line.slice(0, width) : line));
        process.stdout.write(`${shown > 0 ? `\x1b[${shown}A\x1b[J` : ''}${cut.join('\n')}\n`);
        shown = lines.length;
      } else {
        process.stdout.write(`${lines.slice(2).join('\n')}\n\n`);
      }
      before = now;
      for (let waited = 0; waited < 1_000 && !stop; waited += 100) await sleep(100);
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return before;
}

/** Runs the demo; resolves with the exit code. */
export async function runDemo(argv: readonly string[]): Promise<number> {
  const options = parseDemoArgs(argv, process.env);
  if (options === 'help') {
    process.stdout.write(DEMO_USAGE);
    return 0;
  }
  const rest = restClient(options.url);
  const { s3, runtime, logFile } = await connect(options, rest);
  const prefix = `${TOPICS_DIR}/${TOPIC}/`;
  const where = `s3://${s3.bucket}/${prefix}`;
  const counter = new ObjectLineCounter(s3, prefix);
  try {
    await setUp(rest, options, s3);
    await watch(rest, options, counter, where);
    await put(rest, `/connectors/${SOURCE}/pause`);
    // Give the sink a moment to write what the source committed last.
    const look = () =>
      snapshot(rest, { source: SOURCE, sink: SINK }, counter).catch(() => undefined);
    let last = await look();
    for (let i = 0; i < 20 && (last === undefined || last.sunk < last.committed); i += 1) {
      await sleep(500);
      last = (await look()) ?? last;
    }
    if (last === undefined) throw new Error(`${options.url} stopped answering`);
    const onDisk =
      s3.directory === undefined ? undefined : shownPath(join(s3.directory, s3.bucket, prefix));
    const out = process.stdout;
    out.write(
      `\n${last.committed.toLocaleString('en-US')} records committed by ${SOURCE}, ${last.sunk.toLocaleString('en-US')} in S3.\n`,
    );
    out.write(`Output objects: ${where} (${last.objects} objects, JSON lines)\n`);
    if (onDisk !== undefined) {
      out.write(`  on disk: ${onDisk} (s3rver keeps each object as <key>._S3rver_object)\n`);
    }
    out.write(`The source is paused. Status: curl -s ${options.url}/connectors/${SOURCE}/status\n`);
    out.write(`Resume it:  curl -s -X PUT ${options.url}/connectors/${SOURCE}/resume\n`);
    out.write(
      `What each cost (our extension, per resource line): curl -s ${options.url}/connectors/${SOURCE}/cost\n`,
    );
    if (runtime !== undefined) {
      out.write(
        `(The runtime ran inside the demo and stops now; its logs are in ${shownPath(logFile ?? '')}. Run \`npm start\` to use the curl lines.)\n`,
      );
    }
    return 0;
  } finally {
    counter.close();
    await runtime?.close();
  }
}
