import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SinkRecord } from '../../../../../../shared/connect/records.js';
import { DynamoDbSinkTask } from '../../../../../../shared/plugins/connectors/dynamodb-sink/dynamodb-sink-task.js';
import {
  FakeDynamoDb,
  fakeDeps,
  ORDERS_TABLE,
  RecordingReporter,
  sinkContext,
  sinkRecord,
} from './fakes.js';

const PARTITIONS = 3;

interface Op {
  readonly key: number;
  readonly kind: 'upsert' | 'tombstone' | 'poison';
  readonly v: number;
}

/** One invocation of the runtime: how many records of each partition, and how it ends. */
interface Step {
  readonly sizes: readonly number[];
  /** The invocation dies after this many successful writes. */
  readonly crashAfter: number | null;
  /** The offsets are stored (false: a crash between the writes and the offset store). */
  readonly commit: boolean;
  /** An earlier batch, by index into those delivered so far, lands again (an overlapping invocation). */
  readonly overlap: number | null;
}

const opArb: fc.Arbitrary<Op> = fc.record({
  key: fc.integer({ min: 0, max: 5 }),
  kind: fc.constantFrom<Op['kind']>('upsert', 'upsert', 'upsert', 'tombstone', 'poison'),
  v: fc.integer({ min: 0, max: 99 }),
});

const stepArb: fc.Arbitrary<Step> = fc.record({
  sizes: fc.array(fc.integer({ min: 0, max: 6 }), {
    minLength: PARTITIONS,
    maxLength: PARTITIONS,
  }),
  crashAfter: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }),
  commit: fc.boolean(),
  overlap: fc.option(fc.nat(), { nil: null }),
});

/** The records of `ops`: key `k<n>` lives in partition n % PARTITIONS, offsets count up per partition. */
function recordsOf(ops: readonly Op[]): SinkRecord[] {
  const next = Array.from({ length: PARTITIONS }, () => 0);
  return ops.map(({ key, kind, v }) => {
    const partition = key % PARTITIONS;
    const kafkaOffset = next[partition] ?? 0;
    next[partition] = kafkaOffset + 1;
    const value = kind === 'tombstone' ? null : kind === 'poison' ? { v, poison: true } : { v };
    return sinkRecord({ kafkaPartition: partition, kafkaOffset, key: `k${key}`, value });
  });
}

/** One invocation: a fresh task (nothing survives between invocations) puts `batch`. */
async function invoke(
  fake: FakeDynamoDb,
  props: Record<string, string>,
  batch: readonly SinkRecord[],
): Promise<boolean> {
  const task = new DynamoDbSinkTask(fakeDeps(fake));
  await task.start(props, sinkContext(props, new RecordingReporter()));
  try {
    await task.put(batch);
    return true;
  } catch {
    return false;
  } finally {
    await task.stop();
  }
}

/** The table after writing every record alone, in order. */
async function cleanPass(
  records: readonly SinkRecord[],
  props: Record<string, string>,
): Promise<FakeDynamoDb> {
  const fake = new FakeDynamoDb().createTable(ORDERS_TABLE);
  for (const record of records) expect(await invoke(fake, props, [record])).toBe(true);
  return fake;
}

/**
 * Runs `steps` as the runtime would (batches from the stored offsets, skipping what is at or
 * below them), then clean invocations until every record is stored.
 */
async function chaoticPass(
  records: readonly SinkRecord[],
  steps: readonly Step[],
  props: Record<string, string>,
  overlaps: boolean,
): Promise<FakeDynamoDb> {
  const fake = new FakeDynamoDb().createTable(ORDERS_TABLE);
  const stored = Array.from({ length: PARTITIONS }, () => 0);
  const delivered: SinkRecord[][] = [];
  const pending = (p: number) =>
    records.filter((r) => r.originalKafkaPartition === p && r.kafkaOffset >= (stored[p] ?? 0));
  const run = async (sizes: readonly number[], crashAfter: number | null, commit: boolean) => {
    const picked = new Set(sizes.flatMap((size, p) => pending(p).slice(0, size)));
    const batch = records.filter((r) => picked.has(r));
    if (batch.length === 0) return;
    delivered.push(batch);
    fake.crashAfter = crashAfter ?? Number.POSITIVE_INFINITY;
    const ok = await invoke(fake, props, batch);
    fake.crashAfter = Number.POSITIVE_INFINITY;
    if (!ok || !commit) return;
    for (const r of batch) {
      stored[r.originalKafkaPartition] = Math.max(
        stored[r.originalKafkaPartition] ?? 0,
        r.kafkaOffset + 1,
      );
    }
  };
  for (const step of steps) {
    await run(step.sizes, step.crashAfter, step.commit);
    if (overlaps && step.overlap !== null && delivered.length > 0) {
      await invoke(fake, props, delivered[step.overlap % delivered.length] ?? []);
    }
  }
  const all = Array.from({ length: PARTITIONS }, () => records.length);
  while ([0, 1, 2].some((p) => pending(p).length > 0)) await run(all, null, true);
  return fake;
}

const propsArb = (deleteMode: 'tombstone' | 'delete') =>
  fc.integer({ min: 1, max: 25 }).map((batchSize) => ({
    'table.name.format': 'orders',
    'delete.mode': deleteMode,
    'batch.size': String(batchSize),
  }));

describe('DynamoDbSinkTask convergence', () => {
  it('converges to one clean pass under any redelivery boundaries, crashes and overlapping invocations', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 40 }),
        fc.array(stepArb, { maxLength: 12 }),
        propsArb('tombstone'),
        async (ops, steps, props) => {
          // Prepare
          const records = recordsOf(ops);
          const expected = await cleanPass(records, props);

          // Act
          const actual = await chaoticPass(records, steps, props, true);

          // Assess
          expect(actual.snapshot()).toEqual(expected.snapshot());
        },
      ),
      { numRuns: 150 },
    );
  });

  it('converges with delete.mode=delete under any redelivery boundaries and crashes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 40 }),
        fc.array(stepArb, { maxLength: 12 }),
        propsArb('delete'),
        async (ops, steps, props) => {
          // Prepare
          const records = recordsOf(ops);
          const expected = await cleanPass(records, props);

          // Act
          const actual = await chaoticPass(records, steps, props, false);

          // Assess
          expect(actual.snapshot()).toEqual(expected.snapshot());
        },
      ),
      { numRuns: 150 },
    );
  });

  it('leaves the same table whether a sequence is written at once or record by record', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 40 }),
        propsArb('tombstone'),
        async (ops, props) => {
          // Prepare
          const records = recordsOf(ops);
          const expected = await cleanPass(records, props);
          const fake = new FakeDynamoDb().createTable(ORDERS_TABLE);

          // Act
          await invoke(fake, props, records);

          // Assess
          expect(fake.snapshot()).toEqual(expected.snapshot());
        },
      ),
      { numRuns: 150 },
    );
  });
});
