import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LocalEventSourceMappings } from '../../../local/esm/local-event-source-mappings.js';
import type { KafkaEsmEvent } from '../../../shared/adapters/lambda/esm-event.js';
import { MemorySinkMappings } from '../../../shared/adapters/memory/memory-sink-mappings.js';
import type { SinkMappingSpec } from '../../../shared/ports/dispatch.js';
import type { LogFields, Logger } from '../../../shared/ports/logger.js';
import { createTopics, testKafka, uniqueName } from '../../support/services.js';
import { eventually } from '../e2e/support.js';

/** Waits until `check` holds. */
const waitFor = (check: () => boolean, timeoutMs: number, what: string) =>
  eventually(async () => check(), Boolean, timeoutMs, what);

interface Line {
  readonly level: string;
  readonly message: string;
  readonly fields: LogFields;
}

function recordingLogger(lines: Line[]): Logger {
  const at =
    (level: string) =>
    (message: string, fields: LogFields = {}) =>
      lines.push({ level, message, fields });
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

/** The stand-in in a child process (test/support/esm-standin-process.ts). */
function standinProcess(mapping: SinkMappingSpec) {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/support/esm-standin-process.ts'],
    {
      env: {
        ...process.env,
        ESM_BROKERS: inject('kafkaBrokers').join(','),
        ESM_MAPPING: JSON.stringify(mapping),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const delivered: string[] = [];
  let ready = false;
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    const parsed = JSON.parse(line) as {
      ready?: boolean;
      delivered?: { partition: number; offset: number }[];
    };
    if (parsed.ready === true) ready = true;
    for (const r of parsed.delivered ?? []) delivered.push(`${r.partition}@${r.offset}`);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, delivered, isReady: () => ready, exited };
}

/**
 * `npm start` killed with SIGKILL leaves its mapping consumers in their groups until the broker
 * drops them (their session timeout); the next start's consumer of the group waits for that
 * before it is given partitions. This measures that idle time (reported, not asserted: speed
 * is measured, never asserted in a timed test) and checks nothing is lost across the kill.
 */
describe('event-source-mapping stand-in after a SIGKILL (real broker)', {
  timeout: 120_000,
}, () => {
  let admin: Admin;

  beforeAll(async () => {
    admin = testKafka().admin();
    await admin.connect();
  });

  afterAll(async () => {
    await admin.disconnect();
  });

  it('takes the group over from a killed process and delivers what was produced since', async () => {
    // Prepare: a stand-in process delivering the first records of two partitions
    const topic = uniqueName('takeover');
    const groupId = uniqueName('takeover-group');
    await createTopics(admin, [{ topic, numPartitions: 2 }]);
    const producer = testKafka().producer();
    await producer.connect();
    const produce = (from: number, to: number) =>
      producer.send({
        topic,
        messages: Array.from({ length: to - from }, (_, i) => ({
          partition: (from + i) % 2,
          value: `v${from + i}`,
        })),
      });
    await produce(0, 10);
    const mapping: SinkMappingSpec = {
      connector: 'takeover',
      topic,
      groupId,
      startingPosition: 'TRIM_HORIZON',
      batchSize: 100,
      maxBatchingWindowSeconds: 0,
      enabled: true,
    };
    const first = standinProcess(mapping);
    await waitFor(
      () => first.isReady() && first.delivered.length >= 10,
      60_000,
      'the first process',
    );
    // The kill: the process's consumer never leaves its group.
    first.child.kill('SIGKILL');
    await first.exited;
    await produce(10, 20);

    // Act: the next start's stand-in, with its default settings
    const lines: Line[] = [];
    const delivered: string[] = [];
    let firstAt: number | undefined;
    const mappings = new MemorySinkMappings();
    const esm = new LocalEventSourceMappings({
      mappings,
      brokers: inject('kafkaBrokers'),
      handler: async (event: KafkaEsmEvent) => {
        firstAt ??= Date.now();
        for (const r of Object.values(event.records).flat()) {
          delivered.push(`${r.partition}@${r.offset}`);
        }
      },
      aliasFor: (connector) => `${connector}-live`,
      logger: recordingLogger(lines),
    });
    const started = Date.now();
    try {
      await esm.start();
      await mappings.create(mapping);
      await esm.whenIdle();
      await waitFor(() => firstAt !== undefined, 90_000, 'a delivery after the kill');
      const firstDeliveryMs = (firstAt ?? Number.NaN) - started;
      // Records produced after the kill (offsets 5..9 of each partition); the new consumer may
      // also redeliver records the killed one delivered without committing.
      const expected = Array.from(
        { length: 10 },
        (_, i) => `${(10 + i) % 2}@${5 + Math.floor(i / 2)}`,
      );
      await waitFor(() => expected.every((id) => delivered.includes(id)), 30_000, 'the records');

      // Assess: nothing is lost across the kill
      const all = new Set([...first.delivered, ...delivered]);
      expect(all.size).toBe(20);
      // The wait is named in the log while it lasts.
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          message: expect.stringContaining(
            'waiting for the group to rebalance after an unclean stop',
          ),
          fields: expect.objectContaining({ groupId, leftoverMembers: 1 }),
        }),
      );
      console.info(
        `[takeover] first delivery ${firstDeliveryMs} ms after the stand-in started following ` +
          'a group whose previous consumer was killed (SIGKILL)',
      );
    } finally {
      await esm.close();
      await producer.disconnect();
    }
  });
});
