import { describe, expect, it } from 'vitest';
import { SourceRecord } from '../../../../../shared/connect/records.js';
import { SourceTask } from '../../../../../shared/connect/source.js';
import type { OutgoingRecord } from '../../../../../shared/ports/kafka.js';
import type { SourceRecordPipeline } from '../../../../../shared/runtime/source/pipeline.js';
import { pollBatch, sliceBatch } from '../../../../../shared/runtime/source/poll-batch.js';
import { SourceTaskMetrics } from '../../../../../shared/runtime/source/source-task-metrics.js';

const encoder = new TextEncoder();

const record = (seq: number) =>
  new SourceRecord({
    sourcePartition: { p: 0 },
    sourceOffset: { seq },
    topic: 'out',
    key: null,
    value: seq,
    timestamp: null,
  });

const out = (topic: string, seq: number): OutgoingRecord => ({
  topic,
  key: null,
  value: encoder.encode(String(seq)),
});

class FixedTask extends SourceTask {
  constructor(private readonly records: SourceRecord[]) {
    super();
  }
  override version(): string {
    return 'test';
  }
  override async start(): Promise<void> {}
  override async poll(): Promise<SourceRecord[] | null> {
    return this.records;
  }
  override async stop(): Promise<void> {}
}

/** Produces even seqs; odd seqs fail with `seq % 3` dead letters each (0 to 2). */
const pipeline: SourceRecordPipeline = {
  process: async (r) => {
    const seq = r.value as number;
    if (seq % 2 === 0) return { kind: 'produce', record: out('out', seq) };
    return {
      kind: 'skip',
      deadLetters: Array.from({ length: seq % 3 }, (_, i) => out(`dlq-${seq}`, i)),
    };
  },
  close: () => {},
};

async function poll(count: number) {
  const task = new FixedTask(Array.from({ length: count }, (_, i) => record(i + 1)));
  return pollBatch(task, pipeline, new SourceTaskMetrics(), () => 0);
}

describe('pollBatch', () => {
  it('records which polled record each dead letter came from', async () => {
    const batch = await poll(6);

    expect(batch.deadLetters.map((r) => r.topic)).toEqual(['dlq-1', 'dlq-5', 'dlq-5']);
    expect(batch.deadLetterOf).toEqual([0, 4, 4]);
    expect(batch.written).toBe(3);
  });
});

describe('sliceBatch', () => {
  it('keeps the dead letters of exactly the records it takes', async () => {
    const batch = await poll(7); // dead letters from seq 1 (1), 5 (2), 7 (1)

    const head = sliceBatch(batch, 0, 4);
    const middle = sliceBatch(batch, 4, 5);
    const tail = sliceBatch(batch, 5, 7);

    expect(head.polled.map((r) => r.value)).toEqual([1, 2, 3, 4]);
    expect(head.deadLetters.map((r) => r.topic)).toEqual(['dlq-1']);
    expect(middle.produced).toEqual([null]);
    expect(middle.deadLetters.map((r) => r.topic)).toEqual(['dlq-5', 'dlq-5']);
    expect(tail.polled.map((r) => r.value)).toEqual([6, 7]);
    expect(tail.produced.map((r) => r?.topic ?? null)).toEqual(['out', null]);
    expect(tail.deadLetters.map((r) => r.topic)).toEqual(['dlq-7']);
  });

  it('hands back the batch itself when it takes all of it', async () => {
    const batch = await poll(3);

    expect(sliceBatch(batch, 0, 3)).toBe(batch);
  });
});
