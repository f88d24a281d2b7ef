import { startDynalite } from '../local/services/dynalite.js';
import { ensureKafkaBroker } from '../local/services/kafka-broker.js';
import { startMoto } from '../test/support/moto/moto-server.js';
import { ensurePostgres } from '../test/support/postgres-server.js';
import {
  CAMPAIGN_PART_SIZE,
  runSinkCampaign,
  SINK_NAMES,
  type SinkName,
} from '../test/support/sink-campaign.js';
import { flag, wholeFlag } from './check-flags.js';

/**
 * `npm run check:sink [-- --replays N --seed S --sinks s3,dynamodb,kafka,postgres]`: randomized
 * redeliveries, crashes, recycled containers and overlapping invocations against the S3 sink
 * (moto's S3, its venv built on the first run), the DynamoDB sink (dynalite), the Kafka sink
 * (KAFKA_BROKERS, or the pinned local broker) and the PostgreSQL sink (POSTGRES_URL, or the
 * project's server), then every output is read back (S3 objects, the
 * table, the output topic read_committed) and counted per input record. `--replays` is the randomized replays per sink.
 * Last line: `duplicates=<d> losses=<l> replays=<r>` (r: invocations, all sinks); exits non-zero
 * unless d and l are 0 (and no sink failed non-retriably or wrote foreign output).
 */
function sinksFlag(): SinkName[] {
  const text = flag('sinks');
  if (text === undefined) return [...SINK_NAMES];
  const names = text.split(',').map((s) => s.trim());
  const unknown = names.filter((n) => !(SINK_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0) {
    throw new Error(`--sinks takes a list of ${SINK_NAMES.join(', ')} (got ${text})`);
  }
  return names as SinkName[];
}

const replays = wholeFlag('replays', 500);
const seed = wholeFlag('seed', Date.now() % 1_000_000);
const sinks = sinksFlag();
const [kafka, dynamo, s3, postgres] = await Promise.all([
  ensureKafkaBroker(),
  startDynalite(),
  sinks.includes('s3') ? startMoto({ s3MinPartSize: CAMPAIGN_PART_SIZE }) : null,
  sinks.includes('postgres') ? ensurePostgres() : null,
]);
const started = Date.now();
try {
  console.log(
    `check:sink: ${replays} replays per sink (${sinks.join(', ')}), seed ${seed}, ` +
      `broker ${kafka.brokers.join(',')}`,
  );
  const result = await runSinkCampaign({
    services: {
      brokers: kafka.brokers,
      dynamoEndpoint: dynamo.endpoint,
      ...(s3 === null ? {} : { s3 }),
      ...(postgres === null ? {} : { postgresUrl: postgres.url }),
    },
    sinks,
    replays,
    seed,
    log: (line) => console.log(`  ${line}`),
  });
  for (const r of result.sinks) {
    console.log(
      `${r.sink}: records=${result.records} read=${r.records} duplicates=${r.duplicates} ` +
        `losses=${r.losses} anomalies=${r.anomalies} replays=${r.replays} crashes=${r.crashes} ` +
        `overlaps=${r.overlaps} cold=${r.coldStarts} retriable=${r.failures} ` +
        `errors=${r.errors.length} seconds=${r.seconds.toFixed(1)}`,
    );
  }
  console.log(`seconds=${Math.round((Date.now() - started) / 1000)}`);
  console.log(`duplicates=${result.duplicates} losses=${result.losses} replays=${result.replays}`);
  const clean =
    result.duplicates === 0 && result.losses === 0 && result.anomalies === 0 && result.errors === 0;
  process.exitCode = clean ? 0 : 1;
} finally {
  await Promise.allSettled([dynamo.close(), s3?.stop(), postgres?.stop(), kafka.stop()]);
}
