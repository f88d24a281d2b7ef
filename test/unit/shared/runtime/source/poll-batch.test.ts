import { describe, expect, it } from 'vitest';
import { SourceRecord } from '../../../../../shared/connect/records.js';
import { SourceTask } from '../../../../../shared/connect/source.js';
import type { OutgoingRecord } from '../../../../../shared/ports/kafka.js';
import type { SourceRecordPipeline } from '../../../../../shared/runtime/pipeline/source-pipeline.js';
import {
  countBatch,
  pollBatch,
  topicsOf,
} from '../../../../../shared/runtime/source/poll-batch.js';
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
  process: async (envelopes) => {
    for (const envelope of envelopes) {
      const seq = envelope.original.value as number;
      if (seq % 2 === 0) envelope.outgoing = out('out', seq);
      else envelope.deadLetters = Array.from({ length: seq % 3 }, (_, i) => out(`dlq-${seq}`, i));
    }
  },
  close: () => {},
};

async function poll(count: number) {
  const records = Array.from({ length: count }, (_, i) => record(i + 1));
  const batch = await pollBatch(new FixedTask(records), pipeline, new SourceTaskMetrics(), () => 0);
  return { records, batch };
}

describe('pollBatch', () => {
  it('puts each polled record in its envelope, in poll order, with what the pipeline made of it', async () => {
    const { records, batch } = await poll(6);

    expect(batch.envelopes.map((e) => e.original)).toEqual(records);
    expect(batch.envelopes.map((e) => e.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(batch.envelopes.map((e) => e.outgoing?.topic ?? null)).toEqual([
      null,
      'out',
      null,
      'out',
      null,
      'out',
    ]);
    // Each dead letter stays with the record that made it.
    expect(batch.envelopes.map((e) => e.deadLetters.map((r) => r.topic))).toEqual([
      ['dlq-1'],
      [],
      [],
      [],
      ['dlq-5', 'dlq-5'],
      [],
    ]);
    expect([batch.written, batch.deadLetters]).toEqual([3, 3]);
  });

  it('counts the batch and lists the topics it writes to, dead letters included', async () => {
    const { batch } = await poll(5);
    const metrics = new SourceTaskMetrics();

    countBatch(metrics, batch);

    expect([metrics.polled, metrics.written, metrics.skipped, metrics.deadLettered]).toEqual([
      5, 2, 3, 3,
    ]);
    expect([...topicsOf(batch)]).toEqual(['dlq-1', 'out', 'out', 'dlq-5', 'dlq-5']);
  });
});
