import { describe, expect, it } from 'vitest';
import { ConnectError, DataError, RetriableError } from '../../../../../shared/connect/errors.js';
import type { ConsumedRecord } from '../../../../../shared/ports/kafka.js';
import { DeadLetterQueueReporter } from '../../../../../shared/runtime/pipeline/dead-letter.js';
import { LogReporter } from '../../../../../shared/runtime/pipeline/error-reporter.js';
import {
  createErrorHandlingMetrics,
  ProcessingContext,
  STAGES,
  type Stage,
  type ToleranceType,
  toleratesEveryError,
} from '../../../../../shared/runtime/pipeline/error-stage.js';
import {
  RetryWithToleranceOperator,
  retryBackoffMs,
} from '../../../../../shared/runtime/pipeline/retry-with-tolerance.js';
import {
  alwaysFailing,
  type FakeTime,
  failing,
  fakeTime,
  headerText,
  recordingLogger,
  recordingSink,
  single,
} from './error-handling-fakes.js';

const consumed: ConsumedRecord = {
  topic: 'orders',
  partition: 3,
  offset: 1042,
  key: new TextEncoder().encode('k1'),
  value: new TextEncoder().encode('{not json'),
  headers: [],
};

const CONVERTER = 'org.apache.kafka.connect.json.JsonConverter';

interface Setup {
  readonly retryTimeoutMs?: number;
  readonly retryDelayMaxMs?: number;
  readonly tolerance?: ToleranceType;
  readonly random?: () => number;
}

function setup(options: Setup = {}) {
  const time: FakeTime = fakeTime();
  const logger = recordingLogger();
  const sink = recordingSink();
  const taskId = { connector: 'orders-sink', task: 0 };
  const metrics = createErrorHandlingMetrics();
  const operator = new RetryWithToleranceOperator(
    {
      retryTimeoutMs: options.retryTimeoutMs ?? 0,
      retryDelayMaxMs: options.retryDelayMaxMs ?? 60_000,
      tolerance: options.tolerance ?? 'all',
      metrics,
      reporters: [
        new LogReporter({ taskId, enabled: true, includeMessages: false, logger, metrics }),
        new DeadLetterQueueReporter({
          topic: 'orders-dlq',
          contextHeadersEnable: true,
          taskId,
          sink,
          metrics,
        }),
      ],
    },
    { clock: time.clock, sleep: time.sleep, ...(options.random ? { random: options.random } : {}) },
  );
  return { time, logger, sink, operator, metrics };
}

describe('retryBackoffMs', () => {
  it('doubles from 300 ms while below the maximum delay', () => {
    // Act
    const delays = [1, 2, 3, 4, 5].map((n) => retryBackoffMs(n, 60_000, 0, 1e9, () => 0.5));

    // Assess
    expect(delays).toEqual([300, 600, 1200, 2400, 4800]);
  });

  it('draws a random delay below the maximum once doubling exceeds it', () => {
    // Act
    const low = retryBackoffMs(4, 1000, 0, 1e9, () => 0);
    const high = retryBackoffMs(4, 1000, 0, 1e9, () => 0.9999);

    // Assess
    expect([low, high]).toEqual([0, 999]);
  });

  it('never sleeps past the deadline', () => {
    // Act
    const delay = retryBackoffMs(3, 60_000, 9_500, 10_000, () => 0.5);

    // Assess
    expect(delay).toBe(500);
  });
});

describe('RetryWithToleranceOperator retries', () => {
  it('does not retry a retriable error when errors.retry.timeout is 0', async () => {
    // Prepare
    const { operator, time, metrics } = setup({ retryTimeoutMs: 0 });
    const op = alwaysFailing(() => new RetriableError('broker busy'));

    // Act
    const result = await operator.execute(
      'VALUE_CONVERTER',
      CONVERTER,
      op.operation,
      ProcessingContext.forConsumed(consumed),
    );

    // Assess
    expect(result.failed).toBe(true);
    expect(op.calls()).toBe(1);
    expect(time.sleeps).toEqual([]);
    expect(metrics.totalRetries).toBe(0);
  });

  it('backs off 300 ms doubling and stops at errors.retry.timeout', async () => {
    // Prepare
    const { operator, time, metrics } = setup({ retryTimeoutMs: 10_000 });
    const op = alwaysFailing(() => new RetriableError('broker busy'));
    const start = time.now();

    // Act
    const result = await operator.execute(
      'TASK_PUT',
      'S3SinkTask',
      op.operation,
      ProcessingContext.forConsumed(consumed),
    );

    // Assess
    expect(result.failed).toBe(true);
    expect(time.sleeps).toEqual([300, 600, 1200, 2400, 4800, 700]);
    expect(time.now() - start).toBe(10_000);
    expect(op.calls()).toBe(7);
    expect(metrics).toMatchObject({
      totalRetries: 6,
      totalRecordFailures: 7,
      totalRecordErrors: 1,
    });
  });

  it('caps each delay with a random one below errors.retry.delay.max.ms', async () => {
    // Prepare
    const { operator, time } = setup({
      retryTimeoutMs: 5_000,
      retryDelayMaxMs: 1_000,
      random: () => 0.5,
    });
    const op = alwaysFailing(() => new RetriableError('throttled'));

    // Act
    await operator.execute(
      'TASK_PUT',
      'S3SinkTask',
      op.operation,
      ProcessingContext.forConsumed(consumed),
    );

    // Assess
    expect(time.sleeps).toEqual([300, 600, 500, 500, 500, 500, 500, 500, 500, 500, 100]);
  });

  it('keeps retrying until success when errors.retry.timeout is -1', async () => {
    // Prepare
    const { operator, time } = setup({
      retryTimeoutMs: -1,
      retryDelayMaxMs: 60_000,
      random: () => 0.25,
    });
    const errors = Array.from({ length: 40 }, () => new RetriableError('not yet'));
    const op = failing(errors, 'written');

    // Act
    const result = await operator.execute(
      'TASK_PUT',
      'S3SinkTask',
      op.operation,
      ProcessingContext.forConsumed(consumed),
    );

    // Assess
    expect(result).toEqual({ failed: false, value: 'written' });
    expect(op.calls()).toBe(41);
    expect(time.sleeps).toHaveLength(40);
    expect(Math.max(...time.sleeps)).toBe(38_400);
    expect(time.sleeps.slice(-1)).toEqual([15_000]);
  });

  it('returns the value after transient failures without reporting anything', async () => {
    // Prepare
    const { operator, sink, logger, metrics } = setup({ retryTimeoutMs: 60_000 });
    const op = failing([new RetriableError('a'), new RetriableError('b')], 42);

    // Act
    const result = await operator.execute(
      'KEY_CONVERTER',
      CONVERTER,
      op.operation,
      ProcessingContext.forConsumed(consumed),
    );

    // Assess
    expect(result).toEqual({ failed: false, value: 42 });
    expect(sink.sent).toEqual([]);
    expect(logger.lines).toEqual([]);
    expect(metrics).toMatchObject({
      totalRetries: 2,
      totalRecordsSkipped: 0,
      totalRecordErrors: 0,
    });
  });

  it('does not retry a non-retriable error', async () => {
    // Prepare
    const { operator, time } = setup({ retryTimeoutMs: 60_000 });
    const op = alwaysFailing(() => new DataError('bad json'));

    // Act
    const result = await operator.execute(
      'VALUE_CONVERTER',
      CONVERTER,
      op.operation,
      ProcessingContext.forConsumed(consumed),
    );

    // Assess
    expect(result.failed).toBe(true);
    expect(op.calls()).toBe(1);
    expect(time.sleeps).toEqual([]);
  });

  it('gives up when stopped during a backoff, even with infinite retries', async () => {
    // Prepare
    const time = fakeTime();
    const sleeps: number[] = [];
    const operator: RetryWithToleranceOperator = new RetryWithToleranceOperator(
      { retryTimeoutMs: -1, retryDelayMaxMs: 60_000, tolerance: 'all' },
      {
        clock: time.clock,
        sleep: async (ms) => {
          sleeps.push(ms);
          if (sleeps.length === 2) operator.stop();
        },
      },
    );
    const op = alwaysFailing(() => new RetriableError('down'));

    // Act
    const result = await operator.execute(
      'TASK_PUT',
      'S3SinkTask',
      op.operation,
      ProcessingContext.forConsumed(consumed),
    );

    // Assess
    expect(result.failed).toBe(true);
    expect(op.calls()).toBe(2);
    expect(sleeps).toEqual([300, 600]);
  });
});

describe('RetryWithToleranceOperator tolerance', () => {
  it('throws "Tolerance exceeded" with the cause and writes no DLQ record when errors.tolerance=none', async () => {
    // Prepare
    const { operator, sink, logger } = setup({ tolerance: 'none' });
    const error = new DataError('bad json');

    // Act
    const attempt = operator.execute(
      'VALUE_CONVERTER',
      CONVERTER,
      () => {
        throw error;
      },
      ProcessingContext.forConsumed(consumed),
    );

    // Assess
    await expect(attempt).rejects.toThrow(ConnectError);
    await expect(attempt).rejects.toMatchObject({
      message: 'Tolerance exceeded in error handler',
      cause: error,
      retriable: false,
    });
    expect(sink.sent).toEqual([]);
    expect(logger.lines.map((l) => l.level)).toEqual(['error']);
  });

  it('throws "Tolerance exceeded" when retries run out and errors.tolerance=none', async () => {
    // Prepare
    const { operator, time } = setup({ tolerance: 'none', retryTimeoutMs: 1_000 });
    const op = alwaysFailing(() => new RetriableError('busy'));

    // Act
    const attempt = operator.execute(
      'TASK_PUT',
      'S3SinkTask',
      op.operation,
      ProcessingContext.forConsumed(consumed),
    );

    // Assess
    await expect(attempt).rejects.toThrow('Tolerance exceeded in error handler');
    expect(time.sleeps).toEqual([300, 600, 100]);
  });

  it('reports the failure to the log and the DLQ and tells the caller to skip when errors.tolerance=all', async () => {
    // Prepare
    const { operator, sink, logger, metrics, time } = setup({ tolerance: 'all' });
    const error = new DataError('bad json');

    // Act
    const result = await operator.execute(
      'VALUE_CONVERTER',
      CONVERTER,
      () => {
        throw error;
      },
      ProcessingContext.forConsumed(consumed),
    );

    // Assess
    expect(result).toEqual({ failed: true, error });
    expect(sink.sent).toHaveLength(1);
    expect(single(sink.sent).value).toEqual(consumed.value);
    expect(logger.lines).toHaveLength(1);
    expect(metrics).toMatchObject({
      totalRecordsSkipped: 1,
      totalRecordErrors: 1,
      totalErrorsLogged: 1,
      deadLetterQueueProduceRequests: 1,
      deadLetterQueueProduceFailures: 0,
      lastErrorTimestamp: time.now(),
    });
  });

  it.each(STAGES.map((stage) => [stage, toleratesEveryError(stage)] as const))(
    'under errors.tolerance=all, a non-retriable error in %s is tolerated: %s',
    async (stage: Stage, tolerated: boolean) => {
      // Prepare
      const { operator, sink } = setup({ tolerance: 'all' });
      const error = new DataError('boom');

      // Act
      const attempt = operator.execute(
        stage,
        'SomeClass',
        () => {
          throw error;
        },
        ProcessingContext.forConsumed(consumed),
      );

      // Assess
      if (tolerated) {
        await expect(attempt).resolves.toEqual({ failed: true, error });
        expect(sink.sent).toHaveLength(1);
      } else {
        await expect(attempt).rejects.toMatchObject({
          message: 'Unhandled exception in error handler',
          cause: error,
        });
        expect(sink.sent).toEqual([]);
      }
    },
  );

  it('tolerates a retriable error in put once its retries run out when errors.tolerance=all', async () => {
    // Prepare
    const { operator, sink } = setup({ tolerance: 'all', retryTimeoutMs: 500 });
    const op = alwaysFailing(() => new RetriableError('busy'));

    // Act
    const result = await operator.execute(
      'TASK_PUT',
      'S3SinkTask',
      op.operation,
      ProcessingContext.forConsumed(consumed),
    );

    // Assess
    expect(result.failed).toBe(true);
    expect(op.calls()).toBe(3);
    expect(headerText(single(sink.sent))).toMatchObject({
      '__connect.errors.stage': 'TASK_PUT',
      '__connect.errors.exception.class.name': 'RetriableError',
    });
  });

  it('skips later operations on a record whose earlier operation failed', async () => {
    // Prepare
    const { operator, sink } = setup({ tolerance: 'all' });
    const context = ProcessingContext.forConsumed(consumed);
    await operator.execute(
      'KEY_CONVERTER',
      CONVERTER,
      () => {
        throw new DataError('bad key');
      },
      context,
    );
    let ran = false;

    // Act
    const result = await operator.execute(
      'VALUE_CONVERTER',
      CONVERTER,
      () => {
        ran = true;
        return 1;
      },
      context,
    );

    // Assess
    expect(result.failed).toBe(true);
    expect(ran).toBe(false);
    expect(sink.sent).toHaveLength(1);
  });

  it('names the class derived from the error when given a function', async () => {
    // Prepare
    const { operator, sink } = setup({ tolerance: 'all' });
    const error = Object.assign(new DataError('no field'), { className: 'InsertField$Value' });

    // Act
    await operator.execute(
      'TRANSFORMATION',
      (e) => (e as { className: string }).className,
      () => {
        throw error;
      },
      ProcessingContext.forConsumed(consumed),
    );

    // Assess
    expect(headerText(single(sink.sent))).toMatchObject({
      '__connect.errors.class.name': 'InsertField$Value',
    });
  });

  it('fails the operation instead of skipping the record when the DLQ write fails', async () => {
    // Prepare
    const time = fakeTime();
    const sendError = new RetriableError('dlq unavailable');
    const metrics = createErrorHandlingMetrics();
    const operator = new RetryWithToleranceOperator(
      {
        retryTimeoutMs: 0,
        retryDelayMaxMs: 60_000,
        tolerance: 'all',
        metrics,
        reporters: [
          new DeadLetterQueueReporter({
            topic: 'dlq',
            contextHeadersEnable: false,
            taskId: { connector: 'c', task: 0 },
            sink: { send: () => Promise.reject(sendError) },
            metrics,
          }),
        ],
      },
      time,
    );

    // Act
    const attempt = operator.execute(
      'VALUE_CONVERTER',
      CONVERTER,
      () => {
        throw new DataError('bad');
      },
      ProcessingContext.forConsumed(consumed),
    );

    // Assess
    await expect(attempt).rejects.toBe(sendError);
    expect(metrics.deadLetterQueueProduceFailures).toBe(1);
  });
});

describe('RetryWithToleranceOperator.executeFailed', () => {
  it('reports an errant record to the DLQ when errors.tolerance=all', async () => {
    // Prepare
    const { operator, sink } = setup({ tolerance: 'all' });

    // Act
    await operator.executeFailed(
      'TASK_PUT',
      'S3SinkTask',
      new DataError('rejected by the sink'),
      ProcessingContext.forConsumed(consumed),
    );

    // Assess
    expect(headerText(single(sink.sent))).toMatchObject({
      '__connect.errors.stage': 'TASK_PUT',
      '__connect.errors.exception.message': 'rejected by the sink',
    });
  });

  it('throws "Tolerance exceeded" without a DLQ record when errors.tolerance=none', async () => {
    // Prepare
    const { operator, sink } = setup({ tolerance: 'none' });
    const error = new DataError('rejected');

    // Act
    const attempt = operator.executeFailed(
      'TASK_PUT',
      'S3SinkTask',
      error,
      ProcessingContext.forConsumed(consumed),
    );

    // Assess
    await expect(attempt).rejects.toMatchObject({
      message: 'Tolerance exceeded in error handler',
      cause: error,
    });
    expect(sink.sent).toEqual([]);
  });
});
