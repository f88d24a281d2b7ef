import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../shared/connect/errors.js';
import { BigDecimal } from '../../../../../shared/connect/logical-types.js';
import { SourceRecord } from '../../../../../shared/connect/records.js';
import type { ConsumedRecord } from '../../../../../shared/ports/kafka.js';
import {
  describeError,
  LogReporter,
  toJsonValue,
} from '../../../../../shared/runtime/pipeline/error-reporter.js';
import {
  createErrorHandlingMetrics,
  ProcessingContext,
} from '../../../../../shared/runtime/pipeline/error-stage.js';
import { recordingLogger, single } from './error-handling-fakes.js';

const taskId = { connector: 'orders-sink', task: 0 };
const CONVERTER = 'org.apache.kafka.connect.json.JsonConverter';

const consumed: ConsumedRecord = {
  topic: 'orders',
  partition: 3,
  offset: 1042,
  timestamp: 1_700_000_000_000,
  timestampType: 'CreateTime',
  key: new TextEncoder().encode('customer-ssn-123'),
  value: new TextEncoder().encode('{"card":"4111-secret"}'),
  headers: [{ key: 'auth', value: new TextEncoder().encode('token-secret') }],
};

const polled = new SourceRecord({
  sourcePartition: { table: 'users' },
  sourceOffset: { id: 99 },
  topic: 'db.users',
  key: 'user-99',
  value: { email: 'alice@secret.example' },
});

function failed(context: ProcessingContext, error: unknown = new DataError('bad data')) {
  context.currentContext('VALUE_CONVERTER', CONVERTER);
  context.attempted(1);
  context.fail(error);
  return context;
}

function reporter(options: { enabled: boolean; includeMessages: boolean }) {
  const logger = recordingLogger();
  const metrics = createErrorHandlingMetrics();
  return { logger, metrics, reporter: new LogReporter({ taskId, logger, metrics, ...options }) };
}

describe('LogReporter', () => {
  it('logs nothing when errors.log.enable is false', async () => {
    // Prepare
    const { logger, metrics, reporter: log } = reporter({ enabled: false, includeMessages: true });

    // Act
    await log.report(failed(ProcessingContext.forConsumed(consumed)));

    // Assess
    expect(logger.lines).toEqual([]);
    expect(metrics.totalErrorsLogged).toBe(0);
  });

  it("logs Connect's line without the record when errors.log.include.messages is false", async () => {
    // Prepare
    const { logger, metrics, reporter: log } = reporter({ enabled: true, includeMessages: false });
    const error = new DataError('bad data');

    // Act
    await log.report(failed(ProcessingContext.forConsumed(consumed), error));

    // Assess
    const line = single(logger.lines);
    expect(line.level).toBe('error');
    expect(line.message).toBe(
      "Error encountered in task orders-sink-0. Executing stage 'VALUE_CONVERTER' with class " +
        "'org.apache.kafka.connect.json.JsonConverter'.",
    );
    expect(line.fields).toEqual({
      connector: 'orders-sink',
      task: 0,
      stage: 'VALUE_CONVERTER',
      className: CONVERTER,
      attempt: 1,
      error,
    });
    expect(metrics.totalErrorsLogged).toBe(1);
  });

  it('adds only the coordinates of a consumed record when errors.log.include.messages is true', async () => {
    // Prepare
    const { logger, reporter: log } = reporter({ enabled: true, includeMessages: true });

    // Act
    await log.report(failed(ProcessingContext.forConsumed(consumed)));

    // Assess
    const line = single(logger.lines);
    expect(line.message).toBe(
      "Error encountered in task orders-sink-0. Executing stage 'VALUE_CONVERTER' with class " +
        "'org.apache.kafka.connect.json.JsonConverter', where consumed record is {topic='orders', " +
        'partition=3, offset=1042, timestamp=1700000000000, timestampType=CreateTime}.',
    );
    expect(line.fields?.record).toEqual({
      topic: 'orders',
      partition: 3,
      offset: 1042,
      timestamp: 1_700_000_000_000,
      timestampType: 'CreateTime',
    });
    expect(JSON.stringify(line)).not.toMatch(/secret|ssn/);
  });

  it('hides a source record unless errors.log.include.messages is true', async () => {
    // Prepare
    const hidden = reporter({ enabled: true, includeMessages: false });
    const shown = reporter({ enabled: true, includeMessages: true });

    // Act
    await hidden.reporter.report(failed(ProcessingContext.forSource(polled)));
    await shown.reporter.report(failed(ProcessingContext.forSource(polled)));

    // Assess
    const hiddenLine = single(hidden.logger.lines);
    expect(JSON.stringify(hiddenLine)).not.toContain('alice@secret.example');
    expect(hiddenLine.fields).not.toHaveProperty('record');
    const shownLine = single(shown.logger.lines);
    expect(shownLine.message).toContain(', where source record is = {');
    expect(shownLine.message).toContain('alice@secret.example');
    expect(shownLine.fields?.record).toMatchObject({
      topic: 'db.users',
      sourcePartition: { table: 'users' },
      sourceOffset: { id: 99 },
      key: 'user-99',
      value: { email: 'alice@secret.example' },
    });
  });
});

describe('describeError', () => {
  it('renders the class, the message and the causes like a Java stack trace', () => {
    // Prepare
    const error = new DataError('outer', { cause: new TypeError('inner') });

    // Act
    const described = describeError(error);

    // Assess
    expect(described.className).toBe('DataError');
    expect(described.message).toBe('outer');
    const lines = described.stackTrace.split('\n');
    expect(lines[0]).toBe('DataError: outer');
    expect(lines).toContain('Caused by: TypeError: inner');
  });

  it('stops on a cause cycle', () => {
    // Prepare
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;

    // Act
    const described = describeError(a);

    // Assess
    expect(described.stackTrace.match(/^(Caused by: )?Error: /gm)).toHaveLength(2);
  });
});

describe('toJsonValue', () => {
  it('renders Connect values as plain JSON', () => {
    // Act
    const json = toJsonValue({
      bytes: new Uint8Array([1, 2, 3]),
      big: 2n ** 64n,
      small: 5n,
      date: new Date(Date.UTC(2024, 0, 2)),
      decimal: BigDecimal.parse('12.50'),
      nan: Number.NaN,
      byString: new Map([['a', 1]]),
      byNumber: new Map([[1, 'one']]),
      missing: undefined,
    });

    // Assess
    expect(json).toEqual({
      bytes: 'AQID',
      big: '18446744073709551616',
      small: 5,
      date: '2024-01-02T00:00:00.000Z',
      decimal: '12.50',
      nan: 'NaN',
      byString: { a: 1 },
      byNumber: [[1, 'one']],
      missing: null,
    });
  });
});
