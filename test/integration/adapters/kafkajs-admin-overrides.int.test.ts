import { logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import { uniqueName } from '../../support/services.js';

describe('KafkaJsClientFactory.admin with admin.override.* options (real broker)', () => {
  let factory: KafkaJsClientFactory;

  beforeAll(() => {
    factory = new KafkaJsClientFactory({
      brokers: inject('kafkaBrokers'),
      logLevel: logLevel.NOTHING,
    });
  });

  afterAll(async () => {
    await factory.close();
  });

  it('serves metadata and topic creation through an admin client with its own id, timeouts and retries', async () => {
    // Prepare
    const admin = factory.admin({
      clientId: uniqueName('connector-admin'),
      requestTimeoutMs: 10_000,
      connectionTimeoutMs: 5_000,
      retry: { retries: 3, initialRetryTimeMs: 50, maxRetryTimeMs: 500 },
      security: { protocol: 'PLAINTEXT' },
    });
    const topic = uniqueName('admin-override');

    // Act
    const created = await admin.createTopics([{ topic, partitions: 2 }]);
    const counts = await admin.partitionCounts([topic]);
    await admin.close();

    // Assess
    expect(created).toEqual([topic]);
    expect(counts.get(topic)).toBe(2);
  });

  it('speaks SASL when security.protocol asks for it (a PLAINTEXT broker refuses it)', async () => {
    // Prepare
    const admin = factory.admin({
      retry: { retries: 0 },
      security: {
        protocol: 'SASL_PLAINTEXT',
        sasl: { mechanism: 'plain', username: 'alice', password: 'secret' },
      },
    });

    // Act
    const listing = admin.listTopics();

    // Assess
    await expect(listing).rejects.toThrow(/connecting the admin client/);
    await admin.close();
  });
});
