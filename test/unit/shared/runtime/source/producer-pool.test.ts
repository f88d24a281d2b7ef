import { describe, expect, it } from 'vitest';
import type {
  AdminOptions,
  KafkaAdminPort,
  KafkaClientFactory,
} from '../../../../../shared/ports/kafka.js';
import { ProducerPool } from '../../../../../shared/runtime/source/producer-pool.js';

/** A factory whose admin clients record what they were built with and whether they closed. */
function fakeFactory() {
  const built: { options: AdminOptions | undefined; closed: boolean }[] = [];
  const factory: KafkaClientFactory = {
    transactionalProducer: () => {
      throw new Error('not used');
    },
    idempotentProducer: () => {
      throw new Error('not used');
    },
    admin: (options) => {
      const entry = { options, closed: false };
      built.push(entry);
      return {
        close: async () => {
          entry.closed = true;
        },
      } as KafkaAdminPort;
    },
  };
  return { factory, built };
}

describe('ProducerPool.admin', () => {
  it('builds one admin client per override set and reuses it across invocations', () => {
    // Prepare
    const { factory, built } = fakeFactory();
    const pool = new ProducerPool(factory);

    // Act
    const first = pool.admin({ clientId: 'a' });
    const again = pool.admin({ clientId: 'a' });
    const other = pool.admin({ clientId: 'b' });

    // Assess
    expect(again).toBe(first);
    expect(other).not.toBe(first);
    expect(built.map((b) => b.options)).toEqual([{ clientId: 'a' }, { clientId: 'b' }]);
  });

  it('closes the least recently used admin client past 16 override sets, and all on closeAll', async () => {
    // Prepare
    const { factory, built } = fakeFactory();
    const pool = new ProducerPool(factory);
    pool.admin({ clientId: 'c0' });
    for (let i = 1; i < 16; i++) pool.admin({ clientId: `c${i}` });
    pool.admin({ clientId: 'c0' }); // c0 is used again: c1 is now the oldest

    // Act
    pool.admin({ clientId: 'c16' });
    await Promise.resolve();

    // Assess
    expect(built.filter((b) => b.closed).map((b) => b.options?.clientId)).toEqual(['c1']);
    await pool.closeAll();
    expect(built.every((b) => b.closed)).toBe(true);
  });
});
