/** Active topic tracking (KIP-558) in the sink runtime: each consumed topic, once per task. */
import { describe, expect, it } from 'vitest';
import type { TopicStore } from '../../../../../shared/ports/connector-meta-store.js';
import { TASK_PARTITIONS_KEY } from '../../../../../shared/runtime/task/task-split.js';
import { event, harness, records } from './fixtures.js';

/** Records `from..to` of `audit-<partition>`. */
function audit(partition: number, from: number, to: number) {
  return records(partition, from, to).map((r) => ({ ...r, topic: 'audit' }));
}

/** A sink over `orders` and `audit` whose state store counts the active topic writes. */
async function trackedHarness(
  options: { enabled?: boolean; tasks?: number; config?: Record<string, string> } = {},
) {
  const writes: string[] = [];
  const counting = (topics: TopicStore): TopicStore => ({
    recordActiveTopic: async (connector, topic) => {
      writes.push(topic);
      return topics.recordActiveTopic(connector, topic);
    },
    listActiveTopics: (connector) => topics.listActiveTopics(connector),
    resetActiveTopics: (connector) => topics.resetActiveTopics(connector),
  });
  const h = await harness({
    config: { topics: 'orders,audit', ...options.config },
    tasks:
      options.tasks === 2
        ? [{ [TASK_PARTITIONS_KEY]: 'orders-0,orders-1' }, { [TASK_PARTITIONS_KEY]: 'audit-0' }]
        : [{ [TASK_PARTITIONS_KEY]: 'orders-0,orders-1,audit-0' }],
    store: (memory) => ({ ...memory, topics: counting(memory.topics) }),
    topicTracking: options.enabled ?? true,
  });
  return { h, writes, listed: () => h.store.topics.listActiveTopics(h.name) };
}

describe('runSinkInvocation: active topics', () => {
  it('lists every topic of the batches once, with one store write per topic', async () => {
    // Prepare
    const { h, writes, listed } = await trackedHarness();
    // Act
    await h.run(event(records(0, 0, 99), records(1, 0, 99)));
    await h.run(event(records(0, 100, 199), audit(0, 0, 49)));
    await h.run(event(records(1, 100, 199), audit(0, 50, 99)));
    // Assess
    expect(await listed()).toEqual(['audit', 'orders']);
    expect(writes).toEqual(['orders', 'audit']);
    expect(h.system.committed).toHaveLength(500);
  });

  it('records each topic for the task that consumes it', async () => {
    // Prepare
    const { h, writes, listed } = await trackedHarness({ tasks: 2 });
    // Act
    await h.run(event(records(0, 0, 9), audit(0, 0, 9)));
    await h.run(event(records(1, 0, 9), audit(0, 10, 19)));
    // Assess
    expect(await listed()).toEqual(['audit', 'orders']);
    expect([...writes].sort()).toEqual(['audit', 'orders']);
  });

  it('does not list the dead letter queue topic', async () => {
    // Prepare
    const { h, listed } = await trackedHarness({
      config: {
        'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
        'value.converter.schemas.enable': 'false',
        'errors.tolerance': 'all',
        'errors.deadletterqueue.topic.name': 'orders-dlq',
      },
    });
    const poison = records(0, 0, 0).map((r) => ({ ...r, value: new TextEncoder().encode('{') }));
    // Act
    const summary = await h.run(event(poison));
    // Assess
    expect(summary.dlq).toBe(1);
    expect(h.dlq.sent.map((r) => r.topic)).toEqual(['orders-dlq']);
    expect(await listed()).toEqual(['orders']);
  });

  it('records nothing when topic tracking is disabled', async () => {
    // Prepare
    const { h, writes, listed } = await trackedHarness({ enabled: false });
    // Act
    await h.run(event(records(0, 0, 9), audit(0, 0, 9)));
    // Assess
    expect(h.system.committed).toHaveLength(20);
    expect(writes).toEqual([]);
    expect(await listed()).toEqual([]);
  });
});
