import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2E_VENV, ensurePythonVenv, KAFKA_CONNECT_PY } from '../../support/python-venv.js';
import {
  connectorPath,
  datagenConfig,
  type E2eRuntime,
  lastLogs,
  s3SinkConfig,
  startE2eRuntime,
  uniqueName,
} from './support.js';

const run = promisify(execFile);
const script = join(dirname(fileURLToPath(import.meta.url)), 'kafka_connect_client.py');

// biome-ignore lint/suspicious/noExplicitAny: results are checked field by field
type Step = { step: string; result?: any; error?: string };

describe(`a Python Kafka Connect client (${KAFKA_CONNECT_PY}) against the local runtime`, () => {
  let e2e: E2eRuntime;
  let python: string;
  let work: string;

  beforeAll(async () => {
    // pip from PyPI on the first run (about 10 s), the cached venv afterwards.
    [python, e2e, work] = await Promise.all([
      ensurePythonVenv({
        dir: E2E_VENV,
        packages: [KAFKA_CONNECT_PY],
        purpose: 'The Python Kafka Connect client test',
      }),
      startE2eRuntime(),
      mkdtemp(join(tmpdir(), 'sc-e2e-py-')),
    ]);
  }, 300_000);

  afterAll(async () => {
    await e2e?.close();
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });

  it('creates, lists, reads the status of, pauses, resumes, restarts and deletes connectors', async () => {
    // Prepare
    const topic = uniqueName('e2e-py');
    const source = { name: uniqueName('py-src'), config: datagenConfig(topic) };
    const sink = { name: uniqueName('py-sink'), config: s3SinkConfig(e2e.runtime, topic) };
    const plan = join(work, 'plan.json');
    await writeFile(plan, JSON.stringify({ source, sink }));
    // Act
    let stdout: string;
    try {
      ({ stdout } = await run(python, [script, e2e.runtime.url, plan], { timeout: 90_000 }));
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string };
      throw new Error(
        `the Python client failed:\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}\n${lastLogs(e2e)}`,
      );
    }
    const steps = new Map<string, Step>(
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Step)
        .map((s) => [s.step, s]),
    );
    const result = (step: string) => steps.get(step)?.result;
    // Assess
    expect([...steps.values()].filter((s) => s.error !== undefined)).toEqual([]);
    expect(result('info')).toMatchObject({ version: '3.9.0', kafka_cluster_id: 'e2e-cluster' });
    expect(result('create-source')).toMatchObject({ name: source.name, type: 'source' });
    expect(result('create-sink')).toMatchObject({ name: sink.name, type: 'sink' });
    expect(result('list')).toEqual(expect.arrayContaining([source.name, sink.name]));
    expect(Object.keys(result('list-expand-status'))).toEqual(
      expect.arrayContaining([source.name, sink.name]),
    );
    expect(result('status-running')).toMatchObject({
      name: source.name,
      type: 'source',
      connector: { state: 'RUNNING' },
      tasks: [{ id: 0, state: 'RUNNING' }],
    });
    expect(result('sink-status-running').connector.state).toBe('RUNNING');
    expect(result('status-paused').tasks[0].state).toBe('PAUSED');
    expect(result('status-resumed').tasks[0].state).toBe('RUNNING');
    expect(result('restart')).toMatchObject({ connector: { state: 'RESTARTING' } });
    expect(result('status-restarted').connector.state).toBe('RUNNING');
    expect(result('tasks')).toEqual([
      expect.objectContaining({ id: { connector: source.name, task: 0 } }),
    ]);
    expect(result('list-after-delete')).not.toContain(source.name);
    expect(result('list-after-delete')).not.toContain(sink.name);
    expect((await e2e.http('GET', connectorPath(source.name))).status).toBe(404);
  });
});
