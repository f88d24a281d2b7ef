import { describe, expect, it } from 'vitest';
import { DataError, RetriableError } from '../../../../../shared/connect/errors.js';
import type { ConsumedRecord } from '../../../../../shared/ports/kafka.js';
import type { ErrorReporter } from '../../../../../shared/runtime/pipeline/error-reporter.js';
import {
  ProcessingContext,
  type Stage,
  type ToleranceType,
} from '../../../../../shared/runtime/pipeline/error-stage.js';
import {
  DROP,
  type PipelineStage,
  type RecordOutcome,
  RecordPipeline,
} from '../../../../../shared/runtime/pipeline/record-pipeline.js';
import {
  RetryWithToleranceOperator,
  TOLERANCE_EXCEEDED,
} from '../../../../../shared/runtime/pipeline/retry-with-tolerance.js';
import { fakeTime } from './error-handling-fakes.js';

/** A record of the test: its name, and what its stages wrote. */
interface Work {
  readonly name: string;
  readonly trail: string[];
}

interface Envelope {
  readonly name: string;
  outcome?: RecordOutcome;
  trail?: readonly string[];
}

const consumedOf = (name: string): ConsumedRecord => ({
  topic: name,
  partition: 0,
  offset: 0,
  key: null,
  value: null,
  headers: [],
});

/**
 * Stage `stage`, which throws `failures[name]`'s errors in turn on that record's calls (then
 * succeeds) and drops the records named in `drops`.
 */
function stage(
  name: Stage,
  failures: Record<string, unknown[]> = {},
  drops: readonly string[] = [],
): PipelineStage<Work> & { readonly calls: string[] } {
  const calls: string[] = [];
  return {
    stage: name,
    class: `${name}Class`,
    calls,
    run: (work) => {
      calls.push(work.name);
      const error = failures[work.name]?.shift();
      if (error !== undefined) throw error;
      if (drops.includes(work.name)) return DROP;
      work.trail.push(name);
      return undefined;
    },
  };
}

/** {@link stage}, answering with promises (rejected for its failures), as an I/O stage does. */
function asyncStage(
  name: Stage,
  failures: Record<string, unknown[]> = {},
  drops: readonly string[] = [],
): PipelineStage<Work> & { readonly calls: string[] } {
  const sync = stage(name, failures, drops);
  return {
    ...sync,
    run: (work) => {
      try {
        const result = sync.run(work);
        return Promise.resolve().then(() => result);
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}

function setup(
  stages: readonly PipelineStage<Work>[],
  options: { tolerance?: ToleranceType; retryTimeoutMs?: number } = {},
) {
  const time = fakeTime();
  const reports: {
    record: string;
    stage: Stage | null;
    className: string | null;
    attempt: number;
  }[] = [];
  const reporter: ErrorReporter = {
    reportsUntolerated: true,
    report: async (context) => {
      const original = context.original;
      reports.push({
        record: original?.kind === 'consumed' ? original.record.topic : '?',
        stage: context.stage,
        className: context.className,
        attempt: context.attempt,
      });
    },
  };
  const operator = new RetryWithToleranceOperator(
    {
      retryTimeoutMs: options.retryTimeoutMs ?? 0,
      retryDelayMaxMs: 0,
      tolerance: options.tolerance ?? 'all',
      reporters: [reporter],
    },
    { clock: time.clock, sleep: time.sleep },
  );
  const contexts: string[] = [];
  const pipeline = new RecordPipeline<Envelope, Work>({
    stages,
    operator,
    begin: ({ name }) => ({ name, trail: [] }),
    contextOf: (work) => {
      contexts.push(work.name);
      return ProcessingContext.forConsumed(consumedOf(work.name));
    },
    end: (envelope, work, outcome) => {
      envelope.outcome = outcome;
      envelope.trail = work.trail;
    },
  });
  const run = async (...names: string[]) => {
    const envelopes: Envelope[] = names.map((name) => ({ name }));
    await pipeline.process(envelopes);
    return envelopes;
  };
  return { run, reports, contexts, metrics: operator.metrics };
}

describe('RecordPipeline', () => {
  it('runs every stage of each record in order and ends each in its envelope', async () => {
    const stages = [stage('TRANSFORMATION'), stage('KEY_CONVERTER'), stage('VALUE_CONVERTER')];
    const { run, contexts } = setup(stages);

    const envelopes = await run('a', 'b');

    expect(envelopes).toEqual([
      {
        name: 'a',
        outcome: 'passed',
        trail: ['TRANSFORMATION', 'KEY_CONVERTER', 'VALUE_CONVERTER'],
      },
      {
        name: 'b',
        outcome: 'passed',
        trail: ['TRANSFORMATION', 'KEY_CONVERTER', 'VALUE_CONVERTER'],
      },
    ]);
    expect(contexts).toEqual([]); // no failure, no context
  });

  it('drops a record at the stage that returns DROP; its later stages never run', async () => {
    const later = stage('KEY_CONVERTER');
    const { run } = setup([stage('TRANSFORMATION', {}, ['a']), later]);

    const envelopes = await run('a', 'b');

    expect(envelopes.map((e) => e.outcome)).toEqual(['dropped', 'passed']);
    expect(later.calls).toEqual(['b']);
  });

  it('hands a throwing stage to the operator, whose retries count the first attempt, then runs on directly', async () => {
    const flaky = stage('VALUE_CONVERTER', {
      a: [new RetriableError('1'), new RetriableError('2')],
    });
    const after = stage('HEADER_CONVERTER');
    const { run, metrics, contexts } = setup([stage('KEY_CONVERTER'), flaky, after], {
      retryTimeoutMs: 60_000,
    });

    const [envelope] = await run('a');

    expect(envelope).toEqual({
      name: 'a',
      outcome: 'passed',
      trail: ['KEY_CONVERTER', 'VALUE_CONVERTER', 'HEADER_CONVERTER'],
    });
    expect(flaky.calls).toEqual(['a', 'a', 'a']); // the direct attempt and two retries
    expect(metrics.totalRecordFailures).toBe(2);
    expect(metrics.totalRetries).toBe(2);
    expect(after.calls).toEqual(['a']);
    expect(contexts).toEqual(['a']);
  });

  it('awaits a stage that answers with a promise, dropping a record when it resolves DROP', async () => {
    const later = stage('VALUE_CONVERTER');
    const { run } = setup([asyncStage('KEY_CONVERTER', {}, ['a']), later]);

    const envelopes = await run('a', 'b');

    expect(envelopes).toEqual([
      { name: 'a', outcome: 'dropped', trail: [] },
      { name: 'b', outcome: 'passed', trail: ['KEY_CONVERTER', 'VALUE_CONVERTER'] },
    ]);
    expect(later.calls).toEqual(['b']);
  });

  it('hands a rejecting stage to the operator as a throwing one: retried, then tolerated and reported', async () => {
    const flaky = asyncStage('VALUE_CONVERTER', {
      a: [new RetriableError('1')],
      b: [new DataError('bad value')],
    });
    const { run, reports, metrics } = setup([flaky, stage('HEADER_CONVERTER')], {
      retryTimeoutMs: 60_000,
    });

    const envelopes = await run('a', 'b', 'c');

    expect(envelopes.map((e) => e.outcome)).toEqual(['passed', 'failed', 'passed']);
    expect(flaky.calls).toEqual(['a', 'a', 'b', 'c']);
    expect(metrics.totalRetries).toBe(1);
    expect(reports).toEqual([
      { record: 'b', stage: 'VALUE_CONVERTER', className: 'VALUE_CONVERTERClass', attempt: 1 },
    ]);
  });

  it('skips a record whose failure is tolerated, reporting the failing stage and class, and goes on with the next', async () => {
    const after = stage('HEADER_CONVERTER');
    const { run, reports, metrics } = setup([
      stage('KEY_CONVERTER'),
      stage('VALUE_CONVERTER', { b: [new DataError('bad value')] }),
      after,
    ]);

    const envelopes = await run('a', 'b', 'c');

    expect(envelopes.map((e) => e.outcome)).toEqual(['passed', 'failed', 'passed']);
    expect(reports).toEqual([
      { record: 'b', stage: 'VALUE_CONVERTER', className: 'VALUE_CONVERTERClass', attempt: 1 },
    ]);
    expect(after.calls).toEqual(['a', 'c']);
    expect(metrics.totalRecordsSkipped).toBe(1);
  });

  it('rejects on a failure errors.tolerance=none does not tolerate, leaving later records alone', async () => {
    const first = stage('KEY_CONVERTER', { b: [new DataError('bad key')] });
    const { run, reports } = setup([first], { tolerance: 'none' });

    await expect(run('a', 'b', 'c')).rejects.toThrow(TOLERANCE_EXCEEDED);
    expect(first.calls).toEqual(['a', 'b']);
    expect(reports.map((r) => r.stage)).toEqual(['KEY_CONVERTER']); // the log takes it
  });

  it('keeps one context per record across stages that fail one after the other', async () => {
    const { run, contexts, reports } = setup(
      [
        stage('KEY_CONVERTER', { a: [new RetriableError('once')] }),
        stage('VALUE_CONVERTER', { a: [new RetriableError('once')] }),
      ],
      { retryTimeoutMs: 60_000 },
    );

    const [envelope] = await run('a');

    expect(envelope?.outcome).toBe('passed');
    expect(contexts).toEqual(['a']);
    expect(reports).toEqual([]);
  });

  it('drops a record whose retried stage returns DROP, and names the class from the error', async () => {
    const retried = stage('TRANSFORMATION', { a: [new RetriableError('once')] }, ['a']);
    const named: PipelineStage<Work> = {
      stage: 'TRANSFORMATION',
      class: (error) => `from ${(error as Error).message}`,
      run: (work) => {
        if (work.name === 'b') throw new DataError('b failed');
        return undefined;
      },
    };
    const { run, reports } = setup([retried, named], { retryTimeoutMs: 60_000 });

    const envelopes = await run('a', 'b');

    expect(envelopes.map((e) => e.outcome)).toEqual(['dropped', 'failed']);
    expect(reports.map((r) => r.className)).toEqual(['from b failed']);
  });
});
