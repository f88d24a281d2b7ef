import { describe, expect, it } from 'vitest';
import { StaleVersionError } from '../../../shared/ports/errors.js';
import { KAFKA_OFFSETS_TASK } from '../../../shared/ports/offset-store.js';
import { seedConnector } from './fixtures.js';
import type { StateStoreFactory } from './harness.js';

const entry = (seq: number, offset: number) => ({
  seq,
  offsets: [{ partition: { p: 0 }, offset: { seq: offset }, at: 1_000 + seq }],
  watermark: { topic: 'connect-offsets', next: [{ partition: 0, offset: 10 * seq }] },
});

/** The connector's Kafka entry: source offsets adopted from the offsets topic (offsets-reconcile.ts). */
export function kafkaEntryContract(factory: StateStoreFactory): void {
  describe('Kafka entry of source offsets', () => {
    it('is empty until written, then holds its offsets and watermark and is listed as its own task', async () => {
      // Prepare
      const { store } = await factory();
      await seedConnector(store, 'c');
      const before = await store.offsets.getKafkaSourceOffsets('c');
      // Act
      await store.offsets.writeKafkaSourceOffsets('c', entry(1, 5));
      // Assess
      expect(before).toEqual({ seq: 0, offsets: [] });
      expect(await store.offsets.getKafkaSourceOffsets('c')).toEqual(entry(1, 5));
      const listed = await store.offsets.listSourceOffsets('c');
      expect(listed).toEqual([
        {
          connector: 'c',
          task: KAFKA_OFFSETS_TASK,
          committed: { seq: 1, offsets: entry(1, 5).offsets },
        },
      ]);
    });

    it('refuses a write that does not follow the stored seq (another task wrote it first)', async () => {
      // Prepare
      const { store } = await factory();
      await seedConnector(store, 'c');
      await store.offsets.writeKafkaSourceOffsets('c', entry(1, 5));
      // Act (one write at a time: a second rejection before the first is awaited would go
      // unhandled for a moment)
      const stale = await store.offsets.writeKafkaSourceOffsets('c', entry(1, 7)).catch((e) => e);
      const skipping = await store.offsets
        .writeKafkaSourceOffsets('c', entry(3, 7))
        .catch((e) => e);
      // Assess
      expect(stale).toBeInstanceOf(StaleVersionError);
      expect(skipping).toBeInstanceOf(StaleVersionError);
      await store.offsets.writeKafkaSourceOffsets('c', entry(2, 9));
      expect(await store.offsets.getKafkaSourceOffsets('c')).toEqual(entry(2, 9));
    });

    it('is kept when the connector is deleted, as its other offsets are', async () => {
      // Prepare
      const { store } = await factory();
      await seedConnector(store, 'c');
      await store.offsets.writeKafkaSourceOffsets('c', entry(1, 5));
      // Act
      await store.configs.deleteConnector('c', { keepOffsets: true });
      // Assess
      expect(await store.offsets.getKafkaSourceOffsets('c')).toEqual(entry(1, 5));
    });
  });
}
