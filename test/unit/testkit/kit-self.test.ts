import { describe, expect, it } from 'vitest';
import { SinkRecord } from '../../../shared/connect/index.js';
import {
  type Check,
  CheckFailure,
  type SinkConnectorSubject,
  type SinkGuarantee,
  type SourceConnectorSubject,
  sinkConnectorChecks,
  sourceConnectorChecks,
} from '../../../shared/testkit/index.js';
import {
  type SinkBreak,
  type SourceBreak,
  TinySink,
  TinySource,
  TinyTable,
} from './tiny-connectors.js';

function sourceSubject(...breaks: SourceBreak[]): SourceConnectorSubject {
  return {
    validConfig: { topic: 'out', count: '9' },
    invalidConfigs: [
      { config: { count: '3' }, field: 'topic' },
      { config: { topic: 'out', count: '0' }, field: 'count' },
    ],
    setUp: () => ({ connector: () => new TinySource(new Set(breaks)) }),
    identity: (record) => String(record.sourceOffset?.seq),
    exactlyOnceSupport: 'SUPPORTED',
    transactionBoundaries: 'SUPPORTED',
    injectFailure: () => ({
      cause: 'Invalid tiny source offset',
      storedOffsets: [{ partition: { p: 0 }, offset: { seq: 'x' } }],
    }),
  };
}

function sinkSubject(
  guarantee: SinkGuarantee,
  ...breaks: SinkBreak[]
): SinkConnectorSubject<{
  table: TinyTable;
  connector: () => TinySink;
  read: () => Promise<unknown[]>;
}> {
  return {
    validConfig: { topics: 'in' },
    invalidConfigs: [{ config: { topics: '' }, field: 'topics' }],
    setUp: () => {
      const table = new TinyTable();
      return {
        table,
        connector: () => new TinySink(table, new Set(breaks)),
        read: async () => [...table.rows],
      };
    },
    guarantee,
    topicPartitions: [
      { topic: 'in', partition: 0 },
      { topic: 'in', partition: 1 },
    ],
    record: (tp, offset) =>
      new SinkRecord({
        topic: tp.topic,
        kafkaPartition: tp.partition,
        kafkaOffset: offset,
        value: `v${offset}`,
      }),
    injectFailure: (fixture) => {
      fixture.table.failing = true;
      return { cause: 'read-only' };
    },
  };
}

function named(checks: readonly Check[], prefix: string): Check {
  const found = checks.filter((c) => c.name.startsWith(prefix));
  expect(found.map((c) => c.name)).toHaveLength(1);
  return found[0] as Check;
}

async function failure(check: Check): Promise<string> {
  const error = await check.run().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CheckFailure);
  return (error as Error).message;
}

describe('connector test kit', () => {
  describe('against a correct tiny source', () => {
    for (const check of sourceConnectorChecks(sourceSubject()))
      it(`passes: ${check.name}`, () => check.run());
  });

  describe('against a correct tiny sink', () => {
    for (const guarantee of ['exactly-once', 'idempotent', 'at-least-once'] as const) {
      for (const check of sinkConnectorChecks(sinkSubject(guarantee))) {
        it(`passes: ${check.name}`, () => check.run());
      }
    }
  });

  const sourceCases: [SourceBreak, string, RegExp][] = [
    ['rejects-valid', 'source config: validate(validConfig)', /reported: topic: always wrong/],
    ['validate-throws', 'source config: validate never throws', /threw Error: boom/],
    [
      'no-field-error',
      'source config: validate(each invalid config)',
      /reported no error on topic/,
    ],
    ['too-many-tasks', 'source taskConfigs(maxTasks)', /taskConfigs\(1\) returned 2 configs/],
    [
      'stop-twice-throws',
      'source stop() is idempotent on the connector',
      /the second stop\(\) threw/,
    ],
    [
      'task-stop-before-start-throws',
      'source stop() is idempotent on the task',
      /task stop\(\) before start threw/,
    ],
    ['wrong-eos', 'source exactlyOnceSupport', /answered UNSUPPORTED, documented SUPPORTED/],
    [
      'inconsistent-boundaries',
      'source canDefineTransactionBoundaries',
      /answered SUPPORTED, SUPPORTED, UNSUPPORTED/,
    ],
    ['never-asks-boundaries', 'source transaction boundaries', /never asked for one/],
    [
      'repeats-on-resume',
      'source offsets resume where a stopped task left off: no gap, no repeat',
      /repeated/,
    ],
    [
      'skips-on-resume',
      'source offsets resume where a stopped task left off: no gap across',
      /gap, record \d+/,
    ],
    [
      'overlapping-tasks',
      'source offsets resume where a stopped task left off: no gap across',
      /tasks 0 and 1 both read source partition/,
    ],
    ['plain-error', 'source errors carry context', /not a ConnectError/],
  ];
  describe.each(sourceCases)(
    'fails a tiny source that breaks with %s',
    (broken, prefix, message) => {
      it(`in the check "${prefix}…"`, async () => {
        const check = named(sourceConnectorChecks(sourceSubject(broken)), prefix);
        expect(await failure(check)).toMatch(message);
      });
    },
  );

  it('lets a source that repeats a record on resume pass at least once, not exactly once', async () => {
    const checks = sourceConnectorChecks(sourceSubject('repeats-on-resume'));
    await named(checks, 'source offsets resume where a stopped task left off: no gap across').run();
    const exactlyOnce = named(
      checks,
      'source offsets resume where a stopped task left off: no gap, no repeat',
    );
    expect(await failure(exactlyOnce)).toMatch(/repeated/);
  });

  const sinkCases: [SinkGuarantee, SinkBreak, string, RegExp][] = [
    [
      'exactly-once',
      'duplicates-on-replay',
      'sink replay: the same batch',
      /is there \d times after the replay, 1 after one delivery/,
    ],
    [
      'idempotent',
      'duplicates-on-replay',
      'sink replay: batches split differently',
      /times after the replay, 1 after one delivery/,
    ],
    ['at-least-once', 'loses-replays', 'sink replay: the same batch', /missing after the replay/],
    [
      'at-least-once',
      'loses-replays',
      'sink replay: batches split differently',
      /missing after the replay/,
    ],
    [
      'exactly-once',
      'pre-commit-ahead',
      'sink replay: the same batch',
      /preCommit returned in-\d=\d+, above the current offset/,
    ],
    ['exactly-once', 'plain-error', 'sink errors carry context', /not a ConnectError/],
    ['exactly-once', 'mute-error', 'sink errors carry context', /does not name read-only/],
  ];
  describe.each(sinkCases)(
    'fails a tiny %s sink that breaks with %s',
    (guarantee, broken, prefix, message) => {
      it(`in the check "${prefix}…"`, async () => {
        const check = named(sinkConnectorChecks(sinkSubject(guarantee, broken)), prefix);
        expect(await failure(check)).toMatch(message);
      });
    },
  );

  it('lets an at-least-once sink write duplicates', async () => {
    for (const check of sinkConnectorChecks(sinkSubject('at-least-once', 'duplicates-on-replay')))
      await check.run();
  });
});
