import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningMoto, startMoto } from '../../support/moto/moto-server.js';
import { CAMPAIGN_PART_SIZE, runSinkCampaign, SINK_NAMES } from '../../support/sink-campaign.js';

/**
 * The randomized campaign of `npm run check:sink`, smaller: each sink through the sink runner,
 * fed ESM events of a real input topic (2 partitions × 150 records), with redeliveries that go
 * back, crashes around put / preCommit / the sink's own writes / the sink offset write,
 * recycled containers and overlapping invocations; then the output is counted per record.
 * The S3 sink writes to a moto server of its own, which accepts the campaign's small multipart
 * parts (the suite's moto keeps AWS's 5 MiB minimum).
 */
describe('sinks under random redeliveries and crashes (real broker + dynalite + moto S3)', () => {
  let moto: RunningMoto;

  beforeAll(async () => {
    moto = await startMoto({ s3MinPartSize: CAMPAIGN_PART_SIZE });
  });

  afterAll(async () => {
    await moto?.stop();
  });

  it.each(SINK_NAMES)(
    'writes every input record exactly once through the %s sink',
    async (sink) => {
      // Prepare
      const services = {
        brokers: inject('kafkaBrokers'),
        dynamoEndpoint: inject('dynamoEndpoint'),
        s3: moto,
        postgresUrl: inject('postgresUrl'),
      };

      // Act
      const result = await runSinkCampaign({
        services,
        sinks: [sink],
        replays: 30,
        seed: 20261129,
        partitions: 2,
        perPartition: 150,
      });

      // Assess
      const [run] = result.sinks;
      expect(run?.crashes).toBeGreaterThan(0);
      expect(run?.overlaps).toBeGreaterThan(0);
      expect(run).toMatchObject({
        acknowledged: true,
        errors: [],
        records: 300,
        duplicates: 0,
        losses: 0,
        anomalies: 0,
      });
    },
    120_000,
  );
});
