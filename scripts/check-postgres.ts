import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startDynalite } from '../local/services/dynalite.js';
import { ensureKafkaBroker } from '../local/services/kafka-broker.js';
import {
  type PartReport,
  runPostgresCampaign,
} from '../test/support/postgres-campaign/campaign.js';
import { ensurePostgres } from '../test/support/postgres-server.js';
import { wholeFlag } from './check-flags.js';

/**
 * `npm run check:postgres [-- --crashes N --seed S]`: the PostgreSQL connectors under crashes
 * (test/support/postgres-campaign/campaign.ts). A workload inserts, updates and deletes rows of
 * the source database while postgres-cdc and postgres-source stream them to Kafka through the
 * exactly-once source runtime (the broker: KAFKA_BROKERS or the pinned local one; dynalite),
 * their invocations crashing at random protocol steps (N crashes, default 40); then
 * postgres-sink copies the orders topic into another database under randomized redeliveries
 * and crashes (N replays). The read_committed topics and the copied table are held against the
 * workload's own log. Last line: `duplicates=<d> losses=<l> crashes=<c>` (totals); exits non-zero
 * unless d and l are 0 (and nothing foreign, out of order or failed turned up).
 */
const crashes = wholeFlag('crashes', 40);
const seed = wholeFlag('seed', Date.now() % 1_000_000);
const [kafka, dynamo, postgres] = await Promise.all([
  ensureKafkaBroker(),
  startDynalite(),
  ensurePostgres(),
]);
const started = Date.now();

function line(name: string, r: PartReport, extra = ''): string {
  const ended = [...r.outcomes].map(([outcome, n]) => `${outcome} x${n}`).join(', ');
  const points = [...r.crashPoints].map(([point, n]) => `${point} x${n}`).join(', ');
  const { lost, duplicated, unexpected } = r.examples;
  const examples = [
    lost.length > 0 ? ` lost e.g. ${lost.join(' ')}` : '',
    duplicated.length > 0 ? ` duplicated e.g. ${duplicated.join(' ')}` : '',
    unexpected.length > 0 ? ` unexpected e.g. ${unexpected.join(' ')}` : '',
  ].join('');
  return (
    `${name}: records=${r.records} duplicates=${r.duplicates} losses=${r.losses} ` +
    `unexpected=${r.unexpected} reordered=${r.reordered} crashes=${r.crashes} ` +
    `invocations=${r.invocations}${extra}${points === '' ? '' : ` (crashed ${points})`}` +
    `${ended === '' ? '' : ` (${ended})`}${examples}`
  );
}

try {
  console.log(
    `check:postgres: ${crashes} crashes, seed ${seed}, broker ${kafka.brokers.join(',')}`,
  );
  const result = await runPostgresCampaign({
    brokers: kafka.brokers,
    dynamo: new DynamoDBClient({
      endpoint: dynamo.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
    postgresUrl: postgres.url,
    crashes,
    seed,
    log: (text) => console.log(`  ${text}`),
  });
  const { workload } = result;
  console.log(
    `workload: transactions=${workload.transactions} rolled-back=${workload.rolledBack} ` +
      `item-changes=${workload.changes} key-changes=${workload.keyChanges} orders=${workload.orders}`,
  );
  console.log(line('postgres-cdc', result.cdc));
  console.log(line('postgres-source', result.source));
  console.log(line('postgres-sink', result.sink, ` errors=${result.sink.errors.length}`));
  for (const error of result.sink.errors) console.log(`  postgres-sink error: ${error}`);
  console.log(`seconds=${Math.round((Date.now() - started) / 1000)}`);
  console.log(`duplicates=${result.duplicates} losses=${result.losses} crashes=${result.crashes}`);
  process.exitCode =
    result.duplicates === 0 && result.losses === 0 && result.anomalies === 0 ? 0 : 1;
} finally {
  await Promise.allSettled([dynamo.close(), postgres.stop(), kafka.stop()]);
}
