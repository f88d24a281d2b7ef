import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readTopicRecords } from '../../support/topic-reader.js';
import {
  connectorPath,
  type E2eRuntime,
  eventually,
  lastLogs,
  startE2eRuntime,
  uniqueName,
} from './support.js';

const decoder = new TextDecoder();
const RECORDS_PER_TASK = 3_000;

/** The `payload` of a JsonConverter envelope. */
const payload = (bytes: Uint8Array | null): number =>
  (JSON.parse(decoder.decode(bytes ?? new Uint8Array())) as { payload: number }).payload;

describe('verifiable-source in the local runtime', () => {
  let e2e: E2eRuntime;

  beforeAll(async () => {
    e2e = await startE2eRuntime();
  });

  afterAll(async () => {
    await e2e?.close();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(lastLogs(e2e));
  });

  it("writes every seqno of every task exactly once, across a restart, under Apache's class name", async () => {
    // Prepare
    const topic = uniqueName('verifiable');
    const name = uniqueName('soak');
    const config = {
      'connector.class': 'org.apache.kafka.connect.tools.VerifiableSourceConnector',
      topic,
      throughput: '2000',
      'tasks.max': '2',
      'max.records': String(RECORDS_PER_TASK),
      'records.per.poll': '100',
      'exactly.once.support': 'required',
      'transaction.boundary': 'interval',
      'transaction.boundary.interval.ms': '100',
      'topic.creation.default.partitions': '3',
      'topic.creation.default.replication.factor': '1',
    };
    const seqnos = async () => {
      const { body } = await e2e.http('GET', connectorPath(name, '/offsets'));
      return ((body?.offsets ?? []) as { offset: { seqno: number } }[]).map((o) => o.offset.seqno);
    };
    // Act: start, restart both tasks while they write, and let them finish.
    const created = await e2e.http('PUT', connectorPath(name, '/config'), config);
    await eventually(seqnos, (s) => s.length === 2 && s.every((n) => n > 200), 30_000, 'progress');
    const restarted = await e2e.http(
      'POST',
      connectorPath(name, '/restart?includeTasks=true&onlyFailed=false'),
    );
    await eventually(
      seqnos,
      (s) => s.length === 2 && s.every((n) => n === RECORDS_PER_TASK - 1),
      60_000,
      'every task at its last seqno',
    );
    const records = await readTopicRecords(topic, 2 * RECORDS_PER_TASK, 1_000);
    // Assess
    expect(created.status).toBe(201);
    expect(restarted.status).toBe(202);
    const byTask = new Map<number, number[]>();
    for (const record of records) {
      const task = payload(record.key);
      byTask.set(task, [...(byTask.get(task) ?? []), payload(record.value)]);
    }
    const expected = Array.from({ length: RECORDS_PER_TASK }, (_, i) => i);
    expect([...byTask.keys()].sort()).toEqual([0, 1]);
    expect(byTask.get(0)).toEqual(expected);
    expect(byTask.get(1)).toEqual(expected);
    // The waits above bound the test (30 s of progress, then 60 s to the end, 10 s to read).
  }, 110_000);
});
