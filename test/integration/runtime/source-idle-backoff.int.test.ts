import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { MemorySinkMappings } from '../../../shared/adapters/memory/memory-sink-mappings.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { UsageScopes } from '../../../shared/runtime/metering/usage-scopes.js';
import { ARRIVAL_SOURCE_CLASS, arrivalSourceDescriptor } from '../../support/arrival-source.js';
import { type TestEngine, testEngine } from '../../support/engine.js';
import { testPlugins } from '../../support/plugin-modules.js';
import { SEQUENCE_CONVERTERS } from '../../support/sequence-source.js';
import { createTopics, testDynamo, testKafka, uniqueName } from '../../support/services.js';
import { SimulatedClock } from '../../support/simulated-clock.js';
import { queueInvoker, runSchedule } from '../../support/simulated-schedule.js';

const MINUTE = 60_000;
/** Steps of a minute, at most 5 minutes added. */
const BACKOFF = { baseMs: MINUTE, maxMs: 5 * MINUTE };
const BURST = 1_200;

/**
 * The idle back-off through the real runtime: dynalite's state table (the lease release writes
 * the streak, the enumerator reads it), the broker, the exactly-once source runner, on a
 * simulated clock (tests/support/simulated-clock.ts): 40 scheduled minutes in seconds.
 */
describe('idle back-off of source dispatch (dynalite + broker, simulated clock)', () => {
  const clock = new SimulatedClock();
  const { invoker, queue } = queueInvoker();
  let built: TestEngine;
  let store: StateStore;
  let arrivesAt = Number.POSITIVE_INFINITY;

  beforeAll(async () => {
    const client = testDynamo();
    const tableName = uniqueName('idle');
    await ensureTable(client, tableName);
    const usage = new UsageScopes(clock);
    store = createDynamoDbStateStore({ client, tableName, clock, usage });
    built = await testEngine({
      store,
      clock,
      sleep: clock.sleep,
      usage,
      invoker,
      mappings: new MemorySinkMappings(),
      // One burst of records arrives at `arrivesAt`.
      pluginModules: testPlugins(
        arrivalSourceDescriptor(
          (now) => (now >= arrivesAt ? BURST : 0),
          () => clock.now(),
        ),
      ),
      settings: { enumerator: { idleBackoff: BACKOFF } },
    });
  });

  afterAll(async () => {
    await built?.close();
  });

  it('thins out the dispatches of an idle task and delivers records arriving within the bound', async () => {
    // Prepare
    const name = uniqueName('idle');
    const topic = `${name}-out`;
    const admin = testKafka().admin();
    await admin.connect();
    await createTopics(admin, [{ topic, numPartitions: 1 }]);
    await admin.disconnect();
    await store.configs.createConnector(name, {
      name,
      'connector.class': ARRIVAL_SOURCE_CLASS,
      ...SEQUENCE_CONVERTERS,
      'offsets.storage.topic': `${name}-offsets`,
      topic,
    });
    const start = clock.now();
    const minute = (at: number) => Math.floor((at - start) / MINUTE);
    // Act: 40 scheduled minutes, the burst arriving 30 s into minute 25.
    const ran = await runSchedule({
      engine: built.engine,
      clock,
      queue,
      periodMs: MINUTE,
      ticks: 40,
      beforeTick: (tick) => {
        if (tick === 25) arrivesAt = clock.now() + 30_000;
      },
    });
    // Assess
    const idle = ran.filter((r) => r.at < arrivesAt);
    const delivering = ran.filter((r) => r.result.records > 0);
    const after = ran.filter((r) => r.at > (delivering.at(-1)?.at ?? Number.POSITIVE_INFINITY));
    expect(ran.every((r) => r.result.outcome === 'completed')).toBe(true);
    // 26 runs saw the task idle; the back-off dispatched it at minutes 0, 1, 3, 7 (then at most
    // 5 minutes late: 13, 19, 25), 7 times instead of 26.
    expect(idle.map((r) => minute(r.at))).toEqual([0, 1, 3, 7, 13, 19, 25]);
    // The burst is delivered whole by the first dispatch after it arrived, at most the bound
    // plus one schedule period later.
    expect(delivering.reduce((n, r) => n + r.result.records, 0)).toBe(BURST);
    const firstDelivery = delivering[0]?.at ?? Number.POSITIVE_INFINITY;
    expect(firstDelivery - arrivesAt).toBeLessThanOrEqual(BACKOFF.maxMs + MINUTE);
    const { committed } = await store.offsets.getSourceOffsets({ connector: name, task: 0 });
    expect(committed?.offsets.map((o) => o.offset)).toEqual([{ seq: BURST }]);
    // Delivering cleared the streak: the next scheduled run dispatched the task again.
    expect(minute(after[0]?.at ?? 0)).toBe(minute(delivering.at(-1)?.at ?? 0) + 1);
  });
});
