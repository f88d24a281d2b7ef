/**
 * A sink whose writes keep failing, under the local runtime (the event-source-mapping stand-in
 * feeding the sink-task handler, dynalite, the real broker), seen as a user sees it: through
 * `GET /connectors/{c}/status` and the log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetriableError } from '../../../shared/connect/errors.js';
import { testPlugins } from '../../support/plugin-modules.js';
import {
  RECORDING_SINK_CLASS,
  RECORDING_SYSTEM_CONFIG,
  recordingSinkDescriptor,
  recordingSystem,
} from '../../support/recording-sink.js';
import { createTopics, testKafka, uniqueName } from '../../support/services.js';
import { connectorPath, type E2eRuntime, eventually, startE2eRuntime } from './support.js';

/** A 500 of the destination below the sink's own error, as a torn S3 object answers. */
function serverError(): RetriableError {
  const cause = new Error('We encountered an internal error. Please try again.');
  cause.name = 'InternalError';
  return new RetriableError('S3 answered 500 for orders+0+0.json', { cause });
}

interface TaskInfo {
  readonly id: number;
  readonly state: string;
  readonly trace?: string;
}

describe('a sink batch that keeps failing (local runtime, real broker)', {
  timeout: 120_000,
}, () => {
  let e2e: E2eRuntime;

  beforeAll(async () => {
    e2e = await startE2eRuntime(testPlugins(recordingSinkDescriptor));
  });

  afterAll(async () => {
    await e2e?.close();
  });

  it('shows the cause while retrying, goes FAILED past errors.retry.timeout, and spares the other partition', async () => {
    // Prepare: two partitions, one task each; writes of partition 0 fail with a 500
    const topic = uniqueName('failing');
    const kafka = testKafka();
    const admin = kafka.admin();
    await admin.connect();
    await createTopics(admin, [{ topic, numPartitions: 2 }]);
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    const produce = (partition: number, values: string[]) =>
      producer.send({ topic, messages: values.map((value) => ({ partition, value })) });
    await produce(0, ['a0', 'a1']);
    await produce(1, ['b0', 'b1']);
    const systemName = uniqueName('system');
    const system = recordingSystem(systemName);
    system.preCommit = (current) => {
      if (current.has(`${topic}-0`)) throw serverError();
      return current;
    };
    const name = uniqueName('failing-sink');
    const status = async () =>
      (await e2e.http('GET', connectorPath(name, '/status'))).body as {
        tasks?: TaskInfo[];
      };
    const taskWithTrace = (tasks: readonly TaskInfo[] | undefined) =>
      tasks?.find((t) => t.trace !== undefined);
    /** The next offset to read the connector stored for `partition` (undefined: none). */
    const stored = async (partition: number) => {
      const { body } = await e2e.http('GET', connectorPath(name, '/offsets'));
      const offsets = (body?.offsets ?? []) as {
        partition: { kafka_partition: number };
        offset: { kafka_offset: number };
      }[];
      return offsets.find((o) => o.partition.kafka_partition === partition)?.offset.kafka_offset;
    };

    try {
      // Act
      const created = await e2e.http('PUT', connectorPath(name, '/config'), {
        'connector.class': RECORDING_SINK_CLASS,
        topics: topic,
        'tasks.max': '2',
        'errors.retry.timeout': '4000',
        'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
        'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
        [RECORDING_SYSTEM_CONFIG]: systemName,
      });
      expect(created.status).toBe(201);
      const retrying = await eventually(
        status,
        (s) => taskWithTrace(s.tasks)?.state === 'RUNNING',
        30_000,
        'a RUNNING task with a trace',
      );
      const failed = await eventually(
        status,
        (s) => s.tasks?.some((t) => t.state === 'FAILED') === true,
        30_000,
        'a FAILED task',
      );
      await produce(1, ['b2']);
      await eventually(
        () => stored(1),
        (next) => next === 3,
        30_000,
        'the healthy partition',
      );

      // Assess: while retrying, RUNNING with the cause
      const whileRetrying = taskWithTrace(retrying.tasks);
      expect(whileRetrying?.trace).toMatch(
        /failed in preCommit[\s\S]*Caused by: RetriableError: S3 answered 500[\s\S]*Caused by: Error \(InternalError\): We encountered an internal error/,
      );
      // ...then FAILED with the cause, the other task RUNNING and its partition delivered
      const failedTask = failed.tasks?.find((t) => t.state === 'FAILED');
      expect(failedTask?.id).toBe(whileRetrying?.id);
      expect(failedTask?.trace).toMatch(
        /^SinkRetriesExhaustedError: Task .* is FAILED: its batch of .*-0 failed \d+ times over \d+ s, past its retry limit \(errors.retry.timeout=4000 ms\)[\s\S]*Caused by: Error \(InternalError\)/,
      );
      expect(failed.tasks?.find((t) => t.id !== failedTask?.id)?.state).toBe('RUNNING');
      expect(await stored(0)).toBeUndefined();
      // ...and each failed attempt logged at WARN with its cause
      const warnings = e2e.logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((l) => l.message === 'sink batch failed; the mapping will redeliver it');
      expect(warnings.length).toBeGreaterThanOrEqual(2);
      expect(warnings[0]).toMatchObject({
        level: 'warn',
        connector: name,
        errorClass: 'RetriableError',
        partitions: [`${topic}-0`],
      });
      expect(String(warnings[0]?.error)).toContain(
        'caused by Error (InternalError): We encountered an internal error',
      );

      // Act: the cause is fixed and the task restarted, as the trace says
      delete system.preCommit;
      const restarted = await e2e.http(
        'POST',
        connectorPath(name, `/tasks/${failedTask?.id}/restart`),
      );
      await eventually(
        () => stored(0),
        (next) => next === 2,
        30_000,
        'the failing partition after the restart',
      );
      const after = await eventually(
        status,
        (s) => s.tasks?.every((t) => t.state === 'RUNNING' && t.trace === undefined) === true,
        30_000,
        'both tasks RUNNING without a trace',
      );
      // Assess
      expect(restarted.status).toBe(204);
      expect(after.tasks).toHaveLength(2);
    } catch (error) {
      throw new Error(`${String(error)}\n${e2e.logs.slice(-40).join('\n')}`);
    } finally {
      await producer.disconnect();
    }
  });
});
