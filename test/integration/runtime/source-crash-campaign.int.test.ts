import { describe, expect, inject, it } from 'vitest';
import { testDynamo } from '../../support/services.js';
import { runSourceCrashCampaign } from '../../support/source-crash-campaign.js';

/**
 * The randomized crash campaign of `npm run check:source-eos`, smaller: datagen through the
 * built-in JsonConverter, crashes at random protocol steps with cold and warm producers.
 */
describe('exactly-once source under random crashes (datagen, real broker + dynalite)', () => {
  it('delivers every sequence number exactly once, in order, across 20 crashes', async () => {
    const result = await runSourceCrashCampaign({
      brokers: inject('kafkaBrokers'),
      dynamo: testDynamo(),
      crashes: 20,
      seed: 20261129,
    });

    expect(result.crashes).toBe(20);
    expect(result.records).toBeGreaterThan(0);
    expect(result).toMatchObject({ duplicates: 0, losses: 0, reordered: 0 });
  }, 180_000);
});
