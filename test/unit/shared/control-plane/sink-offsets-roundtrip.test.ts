/**
 * The sink offset as it crosses modules: the runner stores the next offset to read, the REST
 * API shows and alters it as Kafka Connect's `kafka_offset` (a consumer group's committed
 * offset: the next offset to consume), and the runner skips exactly the records before it.
 */
import { describe, expect, it } from 'vitest';
import { coordinatesOf } from '../../../support/recording-sink.js';
import { event, harness, ids, records, TOPIC } from '../runtime/sink/fixtures.js';
import { call } from './fixtures.js';

/** The sink runner's harness and the REST router of the same engine. */
async function sinkWithApi() {
  const h = await harness();
  const { router } = h.engine;
  const path = `/connectors/${h.name}/offsets`;
  const kafkaOffsets = async () =>
    (await call(router, 'GET', path)).body.offsets.map(
      (o: { partition: { kafka_partition: number }; offset: { kafka_offset: number } }) => [
        o.partition.kafka_partition,
        o.offset.kafka_offset,
      ],
    );
  /** Stops the connector as the enumerator does (no task configs), PATCHes, runs it again. */
  const patch = async (offsets: unknown[]) => {
    const tasks = (await h.store.configs.getTaskConfigs(h.name)).tasks.map((t) => t.config);
    await h.store.configs.setTargetState(h.name, 'STOPPED');
    const stopped = await h.store.configs.getTaskConfigs(h.name);
    await h.store.configs.putTaskConfigs(h.name, [], stopped.version);
    const res = await call(router, 'PATCH', path, { body: { offsets } });
    await h.store.configs.putTaskConfigs(h.name, tasks, stopped.version + 1);
    await h.store.configs.setTargetState(h.name, 'RUNNING');
    return res;
  };
  return { h, kafkaOffsets, patch };
}

describe('sink offsets across the runner and the REST API', () => {
  it('shows kafka_offset 10 once the sink wrote offsets 0..9, as Kafka Connect shows its group', async () => {
    // Prepare
    const { h, kafkaOffsets } = await sinkWithApi();
    // Act
    await h.run(event(records(0, 0, 9)));
    // Assess
    expect(await kafkaOffsets()).toEqual([[0, 10]]);
    expect(await h.stored()).toEqual({ [`${TOPIC}-0`]: 10 });
  });

  it('rewinds to a PATCHed kafka_offset: the next delivery writes from exactly that record', async () => {
    // Prepare
    const { h, kafkaOffsets, patch } = await sinkWithApi();
    await h.run(event(records(0, 0, 9)));
    // Act
    const res = await patch([
      { partition: { kafka_topic: TOPIC, kafka_partition: 0 }, offset: { kafka_offset: 5 } },
      { partition: { kafka_topic: TOPIC, kafka_partition: 1 }, offset: { kafka_offset: 0 } },
    ]);
    const altered = await kafkaOffsets();
    const summary = await h.run(event(records(0, 3, 9), records(1, 0, 1)));
    // Assess
    expect(res.status).toBe(200);
    expect(altered).toEqual([
      [0, 5],
      [1, 0],
    ]);
    expect(summary.partitions.map((p) => [p.partition, p.duplicates, p.written])).toEqual([
      [0, 2, 5],
      [1, 0, 2],
    ]);
    expect(coordinatesOf(h.system.committed).slice(10)).toEqual(
      ids([...records(0, 5, 9), ...records(1, 0, 1)]),
    );
    expect(await kafkaOffsets()).toEqual([
      [0, 10],
      [1, 2],
    ]);
  });

  it('rewrites a partition altered to kafka_offset 0 from its first record', async () => {
    // Prepare
    const { h, patch } = await sinkWithApi();
    await h.run(event(records(0, 0, 9)));
    await patch([
      { partition: { kafka_topic: TOPIC, kafka_partition: 0 }, offset: { kafka_offset: 0 } },
    ]);
    // Act
    const summary = await h.run(event(records(0, 0, 2)));
    // Assess
    expect(summary.partitions[0]).toMatchObject({ duplicates: 0, written: 3, committedOffset: 3 });
  });
});
