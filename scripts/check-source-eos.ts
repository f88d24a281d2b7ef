import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startDynalite } from '../local/services/dynalite.js';
import { ensureKafkaBroker } from '../local/services/kafka-broker.js';
import { runSourceCrashCampaign } from '../test/support/source-crash-campaign.js';
import { wholeFlag } from './check-flags.js';

/**
 * `npm run check:source-eos [-- --crashes N --seed S]`: a randomized crash campaign against the
 * exactly-once source runtime (real broker, dynalite), then a read_committed check of the output.
 * Last line: `duplicates=<d> losses=<l> crashes=<c>`; exits non-zero unless d and l are 0.
 */
const crashes = wholeFlag('crashes', 200);
const seed = wholeFlag('seed', Date.now() % 1_000_000);
const kafka = await ensureKafkaBroker();
const dynamo = await startDynalite();
const started = Date.now();
try {
  console.log(
    `check:source-eos: ${crashes} crashes, seed ${seed}, broker ${kafka.brokers.join(',')}`,
  );
  const result = await runSourceCrashCampaign({
    brokers: kafka.brokers,
    dynamo: new DynamoDBClient({
      endpoint: dynamo.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
    crashes,
    seed,
    log: (line) => console.log(`  ${line}`),
  });
  console.log(
    `invocations=${result.invocations} records=${result.records} reordered=${result.reordered} seconds=${Math.round((Date.now() - started) / 1000)}`,
  );
  console.log(`duplicates=${result.duplicates} losses=${result.losses} crashes=${result.crashes}`);
  process.exitCode =
    result.duplicates === 0 && result.losses === 0 && result.reordered === 0 ? 0 : 1;
} finally {
  await dynamo.close();
  await kafka.stop();
}
