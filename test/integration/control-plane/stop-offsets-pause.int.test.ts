import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiHandler } from '../../../functions/api/handler.js';
import { startApiServer } from '../../../local/api-server.js';
import { InProcessSourceInvoker } from '../../../local/dispatch/in-process-invoker.js';
import { MemorySinkMappings } from '../../../shared/adapters/memory/memory-sink-mappings.js';
import type { Engine } from '../../../shared/engine/engine.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import type { SourceRunOutcome } from '../../../shared/runtime/source/source-task-runner.js';
import { testEngine } from '../../support/engine.js';
import { testPlugins } from '../../support/plugin-modules.js';
import {
  SEQUENCE_CONVERTERS,
  SEQUENCE_SOURCE_CLASS,
  sequenceSourceDescriptor,
} from '../../support/sequence-source.js';
import { createTopics, testKafka, uniqueName } from '../../support/services.js';
import { readTopicRecords } from '../../support/topic-reader.js';
import { connectorPath } from '../../unit/shared/control-plane/fixtures.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Reply {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
  readonly body: any;
  readonly ms: number;
}

/**
 * Kafka Connect's answers right after a stop, against a real broker and dynalite: the REST API
 * (the local HTTP server, with the same Kafka clients the API function has) over the DynamoDB
 * state store, the enumerator, and exactly-once source tasks run in-process.
 */
describe('REST lifecycle right after a stop (real broker + dynalite)', () => {
  let engine: Engine;
  let store: StateStore;
  let invoker: InProcessSourceInvoker;
  let url: string;
  let close: () => Promise<void>;
  /** What a nudge of the REST API does; nothing unless a test says so. */
  let onNudge: (connector: string | undefined) => void = () => {};
  const outcomes: SourceRunOutcome[] = [];

  beforeAll(async () => {
    const built = await testEngine({
      pluginModules: testPlugins(sequenceSourceDescriptor),
      invoker: { invoke: (invocation) => invoker.invoke(invocation) },
      mappings: new MemorySinkMappings(),
      reconcile: { nudge: async (connector) => onNudge(connector) },
      // Invocations run until fenced: they never notice a stop by themselves.
      settings: { source: { assignmentCheckMs: 600_000 } },
    });
    ({ engine, store } = built);
    invoker = new InProcessSourceInvoker(
      (producers) => ({ source: engine.sourceWith(producers), loggers: engine.loggers }),
      () => engine.kafka,
      {
        budgetMs: 40_000,
        logger: engine.loggers('serverless-connect.source'),
        onResult: (_, r) => outcomes.push(r.outcome),
      },
    );
    const server = await startApiServer({
      host: '127.0.0.1',
      port: 0,
      handler: apiHandler(() => engine),
    });
    url = server.url;
    close = async () => {
      await server.close();
      await invoker.drain();
      await built.close();
    };
  });

  afterAll(async () => {
    await close?.();
  });

  async function http(method: string, path: string, body?: unknown): Promise<Reply> {
    const started = performance.now();
    const response = await fetch(`${url}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? undefined : JSON.parse(text),
      ms: performance.now() - started,
    };
  }

  /** An exactly-once sequence source (one task, source partition 0) into a 1-partition topic. */
  async function sequenceSource(): Promise<{ name: string; topic: string }> {
    const name = uniqueName('life');
    const topic = `${name}-out`;
    const kafkaAdmin = testKafka().admin();
    await kafkaAdmin.connect();
    await createTopics(kafkaAdmin, [{ topic, numPartitions: 1 }]);
    await kafkaAdmin.disconnect();
    const config = {
      'connector.class': SEQUENCE_SOURCE_CLASS,
      ...SEQUENCE_CONVERTERS,
      'exactly.once.support': 'required',
      'offsets.storage.topic': `${name}-offsets`,
      topic,
      partitions: '0',
      total: '1000000',
      batch: '10',
      'poll.delay.ms': '20',
    };
    const created = await http('POST', '/connectors', { name, config });
    expect(created.status).toBe(201);
    return { name, topic };
  }

  /** The seq task 0 committed for source partition 0 (0 when none). */
  async function committedSeq(name: string): Promise<number> {
    const own = await store.offsets.getSourceOffsets({ connector: name, task: 0 });
    const offset = own.committed?.offsets.find((o) => o.partition.p === 0)?.offset;
    return Number((offset as { seq?: number } | null | undefined)?.seq ?? 0);
  }

  /** Reconciles every 200 ms until task 0's committed seq satisfies `done`. */
  async function runUntil(name: string, done: (seq: number) => boolean): Promise<void> {
    const deadline = Date.now() + 40_000;
    while (!done(await committedSeq(name))) {
      if (Date.now() > deadline) throw new Error(`${name} did not commit what was expected`);
      await engine.enumerator.reconcile(name);
      await sleep(200);
    }
  }

  /** Reconciles until task 0 has committed beyond `seq`. */
  const runUntilCommitted = (name: string, seq: number) => runUntil(name, (s) => s > seq);

  /** The seqs of the output topic, read_committed, in log order. */
  async function topicSeqs(topic: string, count: number): Promise<number[]> {
    const records = await readTopicRecords(topic, count, 500);
    return records.map((r) => {
      const value = new TextDecoder().decode(r.value ?? new Uint8Array());
      return (JSON.parse(value) as { seq: number }).seq;
    });
  }

  /** Stops the connector for good at the end of a test, ending its invocations. */
  async function cleanUp(name: string): Promise<void> {
    await http('PUT', connectorPath(name, '/stop'));
    await engine.enumerator.reconcile(name);
    await invoker.drain();
  }

  it('alters the offsets of an exactly-once source right after its stop (200, no 409): the request fences the running task, and the restarted task resumes from the new offsets', async () => {
    // Prepare: the task runs; the enumerator never runs on a nudge, so only the request fences.
    onNudge = () => {};
    const { name, topic } = await sequenceSource();
    await runUntilCommitted(name, 30);
    const body = { offsets: [{ partition: { p: 0 }, offset: { seq: 5 } }] };
    // Act
    const stop = await http('PUT', connectorPath(name, '/stop'));
    const patch = await http('PATCH', connectorPath(name, '/offsets'), body);
    await invoker.drain();
    const stoppedAt = await committedSeq(name);
    const read = await http('GET', connectorPath(name, '/offsets'));
    const resume = await http('PUT', connectorPath(name, '/resume'));
    // The restarted task commits seq 6, 7, ... (below where it stopped) if it resumed from 5.
    await runUntil(name, (seq) => seq !== stoppedAt && seq >= 40);
    await cleanUp(name);
    // Assess
    expect(stop.status).toBe(204);
    expect(patch.status).toBe(200);
    expect(patch.body.message).toMatch(/altered successfully/);
    console.info(`PATCH /offsets right after the stop answered in ${Math.round(patch.ms)} ms`);
    expect(patch.ms).toBeLessThan(10_000);
    expect(outcomes).toContain('fenced');
    expect((await store.configs.getTaskConfigs(name)).fencing).toBeUndefined();
    expect(read.body).toEqual(body);
    expect(resume.status).toBe(202);
    // What a read_committed reader finds: 1..stoppedAt exactly once (the fenced task left
    // nothing half-committed), then the restarted task's records from seq 6 on.
    const seqs = await topicSeqs(topic, stoppedAt + 35);
    const rewind = seqs.findIndex((seq, i) => i > 0 && seq <= (seqs[i - 1] ?? 0));
    expect(rewind).toBe(stoppedAt);
    expect(seqs.slice(0, rewind)).toEqual(Array.from({ length: rewind }, (_, i) => i + 1));
    const after = seqs.slice(rewind);
    expect(after.slice(0, 35)).toEqual(Array.from({ length: 35 }, (_, i) => i + 6));
  });

  it('answers 200 when the enumerator runs the same fencing round at the same time', async () => {
    // Prepare: every nudge starts an enumerator run at once, racing the request's round.
    const runs: Promise<unknown>[] = [];
    onNudge = (connector) => {
      if (connector !== undefined)
        runs.push(engine.enumerator.reconcile(connector).catch((e) => e));
    };
    const { name } = await sequenceSource();
    await runUntilCommitted(name, 30);
    const body = { offsets: [{ partition: { p: 0 }, offset: { seq: 3 } }] };
    // Act
    const stop = await http('PUT', connectorPath(name, '/stop'));
    const patch = await http('PATCH', connectorPath(name, '/offsets'), body);
    const reports = await Promise.all(runs);
    await invoker.drain();
    const reset = await http('DELETE', connectorPath(name, '/offsets'));
    onNudge = () => {};
    // Assess
    expect(stop.status).toBe(204);
    expect(patch.status).toBe(200);
    expect(reports.every((r) => !(r instanceof Error))).toBe(true);
    expect((await store.configs.getTaskConfigs(name)).fencing).toBeUndefined();
    expect(reset.status).toBe(200);
    expect((await http('GET', connectorPath(name, '/offsets'))).body).toEqual({ offsets: [] });
  });

  it('pauses a STOPPED connector (202): PAUSED with no tasks, as in Kafka Connect, producing nothing; resume runs it again', async () => {
    // Prepare
    onNudge = () => {};
    const { name, topic } = await sequenceSource();
    await runUntilCommitted(name, 20);
    expect((await http('PUT', connectorPath(name, '/stop'))).status).toBe(204);
    await engine.enumerator.reconcile(name);
    await invoker.drain();
    // Act
    const pause = await http('PUT', connectorPath(name, '/pause'));
    const report = await engine.enumerator.reconcile(name);
    const status = await http('GET', connectorPath(name, '/status'));
    const tasks = await http('GET', connectorPath(name, '/tasks'));
    const endAtPause = await engine.admin.endOffsets(topic);
    const seqAtPause = await committedSeq(name);
    await sleep(1_000);
    await engine.enumerator.reconcile(name);
    const endLater = await engine.admin.endOffsets(topic);
    const seqLater = await committedSeq(name);
    const resume = await http('PUT', connectorPath(name, '/resume'));
    await runUntilCommitted(name, seqAtPause + 10);
    const resumed = await http('GET', connectorPath(name, '/status'));
    await cleanUp(name);
    // Assess
    expect(pause.status).toBe(202);
    expect(report).toMatchObject({ state: 'PAUSED', tasks: 0, dispatched: [] });
    expect(status.body.connector.state).toBe('PAUSED');
    expect(status.body.tasks).toEqual([]);
    expect(tasks.body).toEqual([]);
    expect(endLater).toEqual(endAtPause);
    expect(seqLater).toBe(seqAtPause);
    expect(resume.status).toBe(202);
    expect(resumed.body.connector.state).toBe('RUNNING');
    expect(resumed.body.tasks.map((t: { state: string }) => t.state)).toEqual(['RUNNING']);
  });
});
