import { describe, expect, it } from 'vitest';
import type { EsmSourceRecord } from '../../../../../shared/adapters/lambda/esm-event.js';
import { ConnectError, RetriableError } from '../../../../../shared/connect/errors.js';
import type { RecordHeader } from '../../../../../shared/ports/kafka.js';
import { SinkTaskFailedError } from '../../../../../shared/runtime/sink/errors.js';
import { coordinatesOf } from '../../../../support/recording-sink.js';
import { event, harness, ids, records } from './fixtures.js';

const JSON_VALUES = {
  'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
  'value.converter.schemas.enable': 'false',
};
const DLQ = {
  'errors.tolerance': 'all',
  'errors.deadletterqueue.topic.name': 'orders-dlq',
  'errors.deadletterqueue.context.headers.enable': 'true',
};
const utf8 = (text: string) => new TextEncoder().encode(text);
const text = (bytes: Uint8Array | null | undefined) =>
  bytes === null || bytes === undefined ? null : new TextDecoder().decode(bytes);

/** Records `from..to` of partition 0 with JSON values; `bad` offsets carry broken JSON. */
function json(from: number, to: number, ...bad: number[]): EsmSourceRecord[] {
  return records(0, from, to).map((r) => ({
    ...r,
    value: utf8(bad.includes(r.offset) ? '{not json' : `{"n":${r.offset}}`),
  }));
}

const headerMap = (headers: readonly RecordHeader[] | undefined) =>
  Object.fromEntries((headers ?? []).map((h) => [h.key, text(h.value)]));

describe('runSinkInvocation error handling', () => {
  it('fails the task on a poison record under errors.tolerance=none, writing nothing of its batch', async () => {
    const h = await harness({ config: JSON_VALUES });
    await h.run(event(json(0, 1)));

    await expect(h.run(event(json(2, 4, 2)))).rejects.toThrow('Tolerance exceeded');

    expect(coordinatesOf(h.system.committed)).toEqual(ids(records(0, 0, 1)));
    expect(h.system.puts).toHaveLength(1);
    expect(await h.stored()).toEqual({ 'orders-0': 2 });
    const status = await h.store.status.getTaskStatus({ connector: h.name, task: 0 });
    expect(status?.state).toBe('FAILED');
    expect(status?.trace).toMatch(/Tolerance exceeded[\s\S]*Caused by: DataError/);
    expect(h.system.calls.slice(-2)).toEqual(['close:orders-0', 'stop']);
  });

  it('refuses a FAILED task until it is restarted, then starts it afresh', async () => {
    const h = await harness({ config: JSON_VALUES });
    await expect(h.run(event(json(0, 2, 1)))).rejects.toThrow('Tolerance exceeded');

    await expect(h.run(event(json(0, 2, 1)))).rejects.toBeInstanceOf(SinkTaskFailedError);
    expect(h.system.calls.filter((c) => c.startsWith('start'))).toHaveLength(1);

    // The user tolerates the bad record and restarts: the enumerator marks the task RUNNING.
    const stored = await h.store.configs.getConnector(h.name);
    await h.store.configs.updateConnector(
      h.name,
      { ...stored?.config, 'errors.tolerance': 'all' },
      stored?.version ?? 1,
    );
    await h.store.status.putTaskStatus(
      { connector: h.name, task: 0 },
      { state: 'RUNNING', workerId: 'enumerator' },
    );
    const summary = await h.run(event(json(0, 2, 1)));

    expect(h.system.calls.filter((c) => c.startsWith('start'))).toHaveLength(2);
    expect(coordinatesOf(h.system.committed)).toEqual(
      ids([...records(0, 0, 0), ...records(0, 2, 2)]),
    );
    expect(summary.partitions[0]).toMatchObject({ failed: 1, dlq: 0, committedOffset: 3 });
  });

  it('skips a bad record under errors.tolerance=all and sends it to the DLQ with context headers', async () => {
    const h = await harness({ config: { ...JSON_VALUES, ...DLQ } });

    const summary = await h.run(event(json(0, 4, 2)));

    expect(coordinatesOf(h.system.committed)).toEqual(
      ids(records(0, 0, 4).filter((r) => r.offset !== 2)),
    );
    expect(await h.stored()).toEqual({ 'orders-0': 5 });
    expect(summary).toMatchObject({ dlq: 1, written: 4 });
    expect(summary.partitions[0]).toMatchObject({ failed: 1, dlq: 1 });
    const [dead] = h.dlq.sent;
    expect(dead?.topic).toBe('orders-dlq');
    expect([text(dead?.key), text(dead?.value)]).toEqual(['k2', '{not json']);
    expect(headerMap(dead?.headers)).toMatchObject({
      '__connect.errors.topic': 'orders',
      '__connect.errors.partition': '0',
      '__connect.errors.offset': '2',
      '__connect.errors.connector.name': h.name,
      '__connect.errors.task.id': '0',
      '__connect.errors.stage': 'VALUE_CONVERTER',
      '__connect.errors.class.name': 'org.apache.kafka.connect.json.JsonConverter',
      '__connect.errors.exception.class.name': 'DataError',
    });
  });

  it('fails the task at start when its DLQ topic cannot be created', async () => {
    const h = await harness({ config: { ...JSON_VALUES, ...DLQ } });
    h.kafka.admin.createTopics = async (specs) => {
      throw new ConnectError(`Not authorized to create topic ${specs[0]?.topic}`);
    };

    await expect(h.run(event(json(0, 0)))).rejects.toThrow(/Not authorized to create topic/);

    const status = await h.store.status.getTaskStatus({ connector: h.name, task: 0 });
    expect(status?.state).toBe('FAILED');
    expect(h.system.calls.filter((c) => c.startsWith('start'))).toHaveLength(0);
  });

  it('lets the task report errant records from put: to the DLQ with their original bytes', async () => {
    const h = await harness({ config: DLQ });
    h.system.onPut = async (batch, context) => {
      const second = batch[1];
      if (second) await context.errantRecordReporter?.report(second, new Error('rejected by sink'));
    };

    const summary = await h.run(event(records(0, 0, 2)));

    expect(summary.partitions[0]).toMatchObject({ written: 3, failed: 1, dlq: 1 });
    expect(await h.stored()).toEqual({ 'orders-0': 3 });
    const [dead] = h.dlq.sent;
    expect([text(dead?.key), text(dead?.value)]).toEqual(['k1', 'v1']);
    expect(headerMap(dead?.headers)).toMatchObject({
      '__connect.errors.offset': '1',
      '__connect.errors.stage': 'TASK_PUT',
      '__connect.errors.class.name': 'RecordingSinkTask',
      '__connect.errors.exception.message': 'rejected by sink',
    });
  });

  it('gives no errant record reporter when errors are neither tolerated, logged nor dead-lettered', async () => {
    const h = await harness();
    await h.run(event(records(0, 0, 0)));
    expect(h.system.contexts[0]?.errantRecordReporter).toBeNull();
  });

  it('retries put after a RetriableError within errors.retry.timeout and commits once it succeeds', async () => {
    const h = await harness({ config: { 'errors.retry.timeout': '10000' } });
    h.system.failNextPut = { error: new RetriableError('throttled') };

    await h.run(event(records(0, 0, 2)));

    expect(h.system.calls.filter((c) => c === 'put:3')).toHaveLength(2);
    expect(h.time.sleeps).toEqual([300]);
    expect(await h.stored()).toEqual({ 'orders-0': 3 });
  });

  it('waits for the timeout the task set with context.timeout before retrying put', async () => {
    const h = await harness();
    let refused = false;
    h.system.onPut = async (_batch, context) => {
      if (refused) return;
      refused = true;
      context.timeout(2_500);
      throw new RetriableError('busy');
    };

    await h.run(event(records(0, 0, 1)));

    expect(h.time.sleeps).toEqual([2_500]);
    expect(await h.stored()).toEqual({ 'orders-0': 2 });
  });

  it('throws a RetriableError without failing the task when put keeps failing past its retry budget', async () => {
    const h = await harness();
    h.system.failNextPut = { error: new RetriableError('throttled') };

    const result = h.run(event(records(0, 0, 2)));

    await expect(result).rejects.toMatchObject({ retriable: true });
    await expect(result).rejects.toThrow(/the batch will be redelivered/);
    expect(await h.stored()).toEqual({});
    expect(await h.store.status.getTaskStatus({ connector: h.name, task: 0 })).toMatchObject({
      state: 'RUNNING',
      retry: { attempts: 1 },
    });
    await h.run(event(records(0, 0, 2)));
    expect(await h.stored()).toEqual({ 'orders-0': 3 });
    expect(h.system.calls.filter((c) => c.startsWith('start'))).toHaveLength(1);
  });

  it('stops retrying put at the invocation deadline', async () => {
    const h = await harness({ config: { 'errors.retry.timeout': '-1' } });
    h.system.onPut = async () => {
      throw new RetriableError('down');
    };

    await expect(h.run(event(records(0, 0, 0)), 5_000)).rejects.toMatchObject({ retriable: true });
    expect(h.time.sleeps.reduce((a, b) => a + b, 0)).toBeLessThan(5_000);
  });

  it('fails the task when put throws a non-retriable error', async () => {
    const h = await harness();
    h.system.failNextPut = { error: new Error('disk full') };

    await expect(h.run(event(records(0, 0, 2)))).rejects.toThrow(/unrecoverable exception in put/);

    expect(await h.stored()).toEqual({});
    const status = await h.store.status.getTaskStatus({ connector: h.name, task: 0 });
    expect(status?.state).toBe('FAILED');
    expect(status?.trace).toContain('disk full');
  });

  it('does not fail the task on a retriable preCommit failure, and fails it on any other', async () => {
    const h = await harness();
    h.system.preCommit = () => {
      throw new RetriableError('slow down');
    };
    await expect(h.run(event(records(0, 0, 0)))).rejects.toMatchObject({ retriable: true });
    expect((await h.store.status.getTaskStatus({ connector: h.name, task: 0 }))?.state).toBe(
      'RUNNING',
    );

    h.system.preCommit = () => {
      throw new Error('access denied');
    };
    await expect(h.run(event(records(0, 0, 0)))).rejects.toThrow(/failed in preCommit/);
    expect((await h.store.status.getTaskStatus({ connector: h.name, task: 0 }))?.state).toBe(
      'FAILED',
    );
    expect(await h.stored()).toEqual({});
  });
});
