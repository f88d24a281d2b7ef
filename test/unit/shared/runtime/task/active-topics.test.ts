import { describe, expect, it } from 'vitest';
import { createMemoryStateStore } from '../../../../../shared/adapters/memory/memory-state-store.js';
import type { TopicStore } from '../../../../../shared/ports/connector-meta-store.js';
import { ActiveTopicTracker } from '../../../../../shared/runtime/task/active-topics.js';
import { recordingLogger } from '../pipeline/error-handling-fakes.js';

/** The memory TopicStore, counting the writes it is asked for (and failing them on demand). */
function countingTopics() {
  const real = createMemoryStateStore().topics;
  const writes: string[] = [];
  const faults = { failing: false };
  const store: TopicStore = {
    recordActiveTopic: async (connector, topic) => {
      writes.push(`${connector}/${topic}`);
      if (faults.failing) throw new Error('throttled');
      return real.recordActiveTopic(connector, topic);
    },
    listActiveTopics: (connector) => real.listActiveTopics(connector),
    resetActiveTopics: (connector) => real.resetActiveTopics(connector),
  };
  return { store, writes, faults };
}

const orders = { name: 'orders-src', createdAt: 1_000 };

describe('ActiveTopicTracker', () => {
  it('writes each topic once per task however many records and batches name it', async () => {
    // Prepare
    const { store, writes } = countingTopics();
    const tracker = new ActiveTopicTracker(store);
    // Act
    for (let batch = 0; batch < 50; batch += 1) {
      const topics = tracker.forTask(orders, 0, 1);
      await topics?.record(Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? 'a' : 'b')));
    }
    // Assess
    expect(writes).toEqual(['orders-src/a', 'orders-src/b']);
    expect(await store.listActiveTopics('orders-src')).toEqual(['a', 'b']);
    expect(tracker.forTask(orders, 0, 1)?.isNew('a')).toBe(false);
    expect(tracker.forTask(orders, 0, 1)?.isNew('c')).toBe(true);
  });

  it('keeps one set per task: another task of the connector records the topic for itself', async () => {
    // Prepare
    const { store, writes } = countingTopics();
    const tracker = new ActiveTopicTracker(store);
    // Act
    await tracker.forTask(orders, 0, 1)?.record(['a']);
    await tracker.forTask(orders, 1, 1)?.record(['a']);
    await tracker.forTask(orders, 1, 1)?.record(['a']);
    // Assess
    expect(writes).toEqual(['orders-src/a', 'orders-src/a']);
    expect(await store.listActiveTopics('orders-src')).toEqual(['a']);
  });

  it('shares one write between concurrent batches of one task naming a new topic', async () => {
    // Prepare
    const { store, writes } = countingTopics();
    const topics = new ActiveTopicTracker(store).forTask(orders, 0, 1);
    // Act
    await Promise.all([topics?.record(['a']), topics?.record(['a', 'a']), topics?.record(['a'])]);
    // Assess
    expect(writes).toEqual(['orders-src/a']);
  });

  it('records nothing and hands out no task set when topic tracking is disabled', async () => {
    // Prepare
    const { store, writes } = countingTopics();
    const tracker = new ActiveTopicTracker(store, { enabled: false });
    // Act
    const topics = tracker.forTask(orders, 0, 1);
    // Assess
    expect(topics).toBeUndefined();
    expect(writes).toEqual([]);
  });

  it('records again after a reset, once the task runs at a new generation', async () => {
    // Prepare
    const { store } = countingTopics();
    const tracker = new ActiveTopicTracker(store);
    await tracker.forTask(orders, 0, 1)?.record(['a']);
    await store.resetActiveTopics('orders-src');
    // Act
    await tracker.forTask(orders, 0, 1)?.record(['a']);
    const sameGeneration = await store.listActiveTopics('orders-src');
    await tracker.forTask(orders, 0, 4)?.record(['a']);
    // Assess
    expect(sameGeneration).toEqual([]);
    expect(await store.listActiveTopics('orders-src')).toEqual(['a']);
  });

  it('records again for a connector created anew under the same name', async () => {
    // Prepare
    const { store, writes } = countingTopics();
    const tracker = new ActiveTopicTracker(store);
    await tracker.forTask(orders, 0, 1)?.record(['a']);
    // Act
    await tracker.forTask({ ...orders, createdAt: 2_000 }, 0, 1)?.record(['a']);
    // Assess
    expect(writes).toEqual(['orders-src/a', 'orders-src/a']);
  });

  it('logs a failed write without rejecting, and writes the topic again next time', async () => {
    // Prepare
    const { store, writes, faults } = countingTopics();
    const logger = recordingLogger();
    const tracker = new ActiveTopicTracker(store, { logger });
    faults.failing = true;
    // Act
    await tracker.forTask(orders, 0, 1)?.record(['a']);
    faults.failing = false;
    await tracker.forTask(orders, 0, 1)?.record(['a']);
    await tracker.forTask(orders, 0, 1)?.record(['a']);
    // Assess
    expect(writes).toEqual(['orders-src/a', 'orders-src/a']);
    expect(await store.listActiveTopics('orders-src')).toEqual(['a']);
    expect(logger.lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        fields: expect.objectContaining({ connector: 'orders-src', task: 0, topic: 'a' }),
      }),
    ]);
  });
});
