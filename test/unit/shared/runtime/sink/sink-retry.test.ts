import { describe, expect, it } from 'vitest';
import { RetriableError } from '../../../../../shared/connect/errors.js';
import {
  SinkRetriesExhaustedError,
  SinkTaskFailedError,
} from '../../../../../shared/runtime/sink/errors.js';
import { DEFAULT_SINK_RETRY_LIMIT_MS } from '../../../../../shared/runtime/sink/sink-retry.js';
import { event, harness, records } from './fixtures.js';

const ref = (name: string) => ({ connector: name, task: 0 });

/** What a torn object in S3 looks like to the sink: a retriable preCommit with a 500 below. */
function serverError(): RetriableError {
  const cause = new Error('We encountered an internal error. Please try again.');
  cause.name = 'InternalError';
  return new RetriableError('S3 answered 500 for topics/orders/partition=0/orders+0+0.json', {
    cause,
  });
}

describe('sink batches that keep failing with retriable errors', () => {
  it('keeps the task RUNNING with the cause as its trace, and logs the cause at WARN on each attempt', async () => {
    // Prepare
    const h = await harness();
    h.system.preCommit = () => {
      throw serverError();
    };
    // Act
    await expect(h.run(event(records(0, 0, 2)))).rejects.toMatchObject({ retriable: true });
    await h.time.sleep(5_000);
    await expect(h.run(event(records(0, 0, 2)))).rejects.toMatchObject({ retriable: true });
    // Assess
    const status = await h.store.status.getTaskStatus(ref(h.name));
    expect(status?.state).toBe('RUNNING');
    expect(status?.trace).toMatch(
      /failed in preCommit[\s\S]*Caused by: RetriableError: S3 answered 500[\s\S]*Caused by: Error \(InternalError\): We encountered an internal error/,
    );
    expect(status?.retry).toEqual({ partitions: ['orders-0'], since: 1_000_000, attempts: 2 });
    const warnings = h.logger.lines.filter((l) => l.message.startsWith('sink batch failed'));
    expect(warnings.map((l) => l.level)).toEqual(['warn', 'warn']);
    expect(warnings[1]?.fields).toMatchObject({
      connector: h.name,
      task: 0,
      partitions: ['orders-0'],
      attempt: 2,
      failingForMs: 5_000,
      errorClass: 'RetriableError',
      retryLimit: 'errors.retry.timeout=0: the default 600 s',
    });
    expect(String(warnings[1]?.fields?.error)).toContain(
      'caused by RetriableError: S3 answered 500 for topics/orders/partition=0/orders+0+0.json; ' +
        'caused by Error (InternalError): We encountered an internal error',
    );
    expect(await h.stored()).toEqual({});
  });

  it('fails the task once its batch kept failing for errors.retry.timeout, with the cause in its trace', async () => {
    // Prepare
    const h = await harness({ config: { 'errors.retry.timeout': '30000' } });
    h.system.preCommit = () => {
      throw serverError();
    };
    await expect(h.run(event(records(0, 0, 2)))).rejects.toMatchObject({ retriable: true });
    await h.time.sleep(20_000);
    await expect(h.run(event(records(0, 0, 2)))).rejects.toMatchObject({ retriable: true });
    await h.time.sleep(10_000);
    // Act
    const exhausted = h.run(event(records(0, 0, 2)));
    // Assess
    await expect(exhausted).rejects.toBeInstanceOf(SinkRetriesExhaustedError);
    await expect(exhausted).rejects.toMatchObject({ retriable: false });
    const status = await h.store.status.getTaskStatus(ref(h.name));
    expect(status?.state).toBe('FAILED');
    expect(status?.trace).toMatch(
      /^SinkRetriesExhaustedError: Task sink-\d+-0 is FAILED: its batch of orders-0 failed 3 times over 30 s, past its retry limit \(errors.retry.timeout=30000 ms\)[\s\S]*Caused by: Error \(InternalError\): We encountered an internal error/,
    );
    expect(status).not.toHaveProperty('retry');
    expect(h.system.calls.slice(-2)).toEqual(['close:orders-0', 'stop']);
    await expect(h.run(event(records(0, 0, 2)))).rejects.toBeInstanceOf(SinkTaskFailedError);
  });

  it.each([
    {
      limit: '0 (the default limit)',
      timeout: '0',
      afterMs: DEFAULT_SINK_RETRY_LIMIT_MS,
      state: 'FAILED',
    },
    { limit: '-1 (no limit)', timeout: '-1', afterMs: 24 * 3_600_000, state: 'RUNNING' },
  ])(
    'with errors.retry.timeout=$limit, the task is $state once the run lasted that long',
    async ({ timeout, afterMs, state }) => {
      // Prepare
      const h = await harness({ config: { 'errors.retry.timeout': timeout } });
      h.system.preCommit = () => {
        throw serverError();
      };
      await expect(h.run(event(records(0, 0, 0)))).rejects.toBeDefined();
      await h.time.sleep(afterMs - 1);
      await expect(h.run(event(records(0, 0, 0)))).rejects.toMatchObject({ retriable: true });
      const before = (await h.store.status.getTaskStatus(ref(h.name)))?.state;
      await h.time.sleep(1);
      // Act
      await expect(h.run(event(records(0, 0, 0)))).rejects.toBeDefined();
      // Assess
      expect(before).toBe('RUNNING');
      expect((await h.store.status.getTaskStatus(ref(h.name)))?.state).toBe(state);
    },
  );

  it('clears the trace once the batch is written, and counts a later failure afresh', async () => {
    // Prepare
    const h = await harness({ config: { 'errors.retry.timeout': '30000' } });
    let failing = true;
    h.system.preCommit = (current) => {
      if (failing) throw serverError();
      return current;
    };
    await expect(h.run(event(records(0, 0, 2)))).rejects.toMatchObject({ retriable: true });
    await h.time.sleep(25_000);
    await expect(h.run(event(records(0, 0, 2)))).rejects.toMatchObject({ retriable: true });
    // Act
    failing = false;
    await h.run(event(records(0, 0, 2)));
    // Assess
    const written = await h.store.status.getTaskStatus(ref(h.name));
    expect(written?.state).toBe('RUNNING');
    expect(written).not.toHaveProperty('trace');
    expect(written).not.toHaveProperty('retry');
    expect(await h.stored()).toEqual({ 'orders-0': 3 });
    expect(h.logger.lines.map((l) => l.message)).toContain(
      'sink batch written after failed attempts; the task is no longer retrying',
    );
    failing = true;
    await h.time.sleep(25_000);
    await expect(h.run(event(records(0, 3, 3)))).rejects.toMatchObject({ retriable: true });
    await h.time.sleep(10_000);
    await expect(h.run(event(records(0, 3, 3)))).rejects.toMatchObject({ retriable: true });
    expect((await h.store.status.getTaskStatus(ref(h.name)))?.retry?.attempts).toBe(2);
  });

  it('keeps counting a failing partition while another partition of the task is written', async () => {
    // Prepare
    const h = await harness({ config: { 'errors.retry.timeout': '30000' } });
    h.system.preCommit = (current) => {
      if (current.has('orders-0')) throw serverError();
      return current;
    };
    await expect(h.run(event(records(0, 0, 0)))).rejects.toMatchObject({ retriable: true });
    // Act: the healthy partition is written in between
    await h.run(event(records(1, 0, 0)));
    await h.time.sleep(30_000);
    await h.run(event(records(1, 1, 1)));
    const exhausted = h.run(event(records(0, 0, 0)));
    // Assess
    await expect(exhausted).rejects.toBeInstanceOf(SinkRetriesExhaustedError);
    expect(await h.stored()).toEqual({ 'orders-1': 2 });
  });
});
