import { describe, expect, it } from 'vitest';
import { createMemoryStateStore } from '../../../../../shared/adapters/memory/memory-state-store.js';
import { createEngine, DEFAULT_ENGINE_SETTINGS } from '../../../../../shared/engine/engine.js';
import { runSourceInvocation } from '../../../../../shared/runtime/source/source-task-runner.js';
import { FakeKafka } from '../../../../support/fake-kafka.js';
import { testPlugins } from '../../../../support/plugin-modules.js';
import {
  SEQUENCE_CONVERTERS,
  SEQUENCE_SOURCE_CLASS,
  sequenceSourceDescriptor,
} from '../../../../support/sequence-source.js';

const text = (s: string) => new TextEncoder().encode(s);

describe('source invocation whose pending transaction stays undecided', () => {
  it('ends retriably by its deadline instead of running past it (a Lambda timeout)', async () => {
    // Prepare: a manual clock that sleeping moves; a pending entry whose probe sits behind a
    // transaction of another producer that never ends (the offsets topic's stable end stays there).
    let now = 1_000_000;
    const clock = { now: () => now };
    const sleep = async (ms: number) => {
      now += ms;
    };
    const kafka = new FakeKafka().topic('connect-offsets', 1).topic('out', 1);
    const stranger = kafka.clients.transactionalProducer('someone-else');
    await stranger.connect();
    const open = await stranger.begin();
    const [probe] = await open.send([
      { topic: 'connect-offsets', partition: 0, key: text('["c",{"p":0}]'), value: text('{}') },
    ]);
    if (probe === undefined) throw new Error('no position');
    const store = createMemoryStateStore({ clock });
    const config = {
      name: 'c',
      'connector.class': SEQUENCE_SOURCE_CLASS,
      ...SEQUENCE_CONVERTERS,
      topic: 'out',
      partitions: '0',
      total: '10',
    };
    await store.configs.createConnector('c', config);
    const set = await store.configs.putTaskConfigs('c', [config], 0);
    const generation = set.tasks[0]?.generation ?? 0;
    const ref = { connector: 'c', task: 0 };
    const earlier = await store.leases.acquireLease({
      ...ref,
      owner: 'dead',
      generation,
      ttlMs: 1,
    });
    await store.offsets.writePendingSourceOffsets(
      ref,
      {
        seq: 1,
        offsets: [{ partition: { p: 0 }, offset: { seq: 5 } }],
        positions: [
          { topic: probe.topic, partition: probe.partition, offset: String(probe.offset) },
        ],
      },
      earlier,
    );
    await store.leases.releaseLease(earlier);
    const engine = createEngine(
      {
        store,
        kafka: kafka.clients,
        clock,
        sleep,
        pluginModules: testPlugins(sequenceSourceDescriptor),
      },
      DEFAULT_ENGINE_SETTINGS,
    );
    const started = now;
    // Act
    const result = await runSourceInvocation(engine.source, {
      connector: 'c',
      task: 0,
      generation,
      owner: 'next',
      workerId: 'w',
      deadline: started + 4_000,
    });
    // Assess: it gave up at its deadline (recovery's own limit is 30 s), wrote nothing.
    expect(result.outcome).toBe('interrupted');
    expect(result.error?.message).toMatch(/still undecided/);
    expect(now - started).toBeLessThanOrEqual(4_200);
    expect(result.records).toBe(0);
  });
});
