/**
 * The PostgreSQL campaign behind `npm run check:postgres`: the three PostgreSQL connectors under
 * crashes, held against a workload's own log.
 *
 * 1. Two databases on the test server (databases.ts); the workload's tables in the source one,
 *    seeded (workload.ts).
 * 2. postgres-cdc (`items`) and postgres-source (`orders`) run through the exactly-once source
 *    runtime (real broker, state in dynalite), invocation after invocation, each at its own pace;
 *    three in four invocations die at a random protocol step (source-crashes.ts). After a CDC
 *    crash, the dead container's connections close (its walsender ends, the slot is free). Once
 *    the snapshot is committed, the workload writes while they run.
 * 3. The workload stops; clean invocations catch up until one finds nothing new.
 * 4. The topics are read read_committed and held against the log (verify.ts).
 * 5. postgres-sink copies the orders topic into the other database under the sink campaign's
 *    randomized redeliveries and crashes (orders-copy.ts); the table is held against the topic.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Kafka, logLevel } from 'kafkajs';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../../shared/adapters/kafkajs/client.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { type CommittedMessage, readCommitted } from '../eos-checker.js';
import { derivedSeed, seededRandom } from '../seeded-random.js';
import { createTopic } from '../sink-campaign/input.js';
import { runSinkTarget, type SinkRunResult } from '../sink-campaign.js';
import { type SkewedClock, skewedClock } from '../source-crashes.js';
import { type CampaignNames, campaignNames, cdcConfig, sourceConfig } from './connectors.js';
import { CampaignDatabases } from './databases.js';
import { createOrdersCopyTarget, ordersInput } from './orders-copy.js';
import {
  crashingInvocations,
  type PartReport,
  type SourcePart,
  snapshotCommitted,
  sourcePart,
} from './sources.js';
import { decodeChange, orderIdOf, verifyChanges, verifyOrders } from './verify.js';
import { Workload } from './workload.js';

export type { PartReport } from './sources.js';

export interface PostgresCampaignOptions {
  readonly brokers: readonly string[];
  readonly dynamo: DynamoDBClient;
  /** The test server (any database of it). */
  readonly postgresUrl: string;
  /** Crashes of the two sources' invocations (together); the sink gets three replays each. */
  readonly crashes: number;
  readonly seed: number;
  readonly log?: (line: string) => void;
}

export interface PostgresCampaignResult {
  readonly duplicates: number;
  readonly losses: number;
  /** Output no run should hold: foreign records, rows out of order, sink task failures. */
  readonly anomalies: number;
  readonly crashes: number;
  readonly cdc: PartReport;
  readonly source: PartReport;
  readonly sink: PartReport & { readonly errors: readonly string[] };
  readonly workload: {
    readonly transactions: number;
    readonly rolledBack: number;
    readonly keyChanges: number;
    readonly changes: number;
    readonly orders: number;
  };
}

const ITEMS_PARTITIONS = 3;
/** Rows before streaming: the snapshot takes 6 polls (max.batch.size 25), so crashes cut it. */
const SEED_ITEMS = 150;
/** About one sink replay in four crashes (sink-campaign/replays.ts). */
const SINK_REPLAYS_PER_CRASH = 3;

/** A state store over the campaign's table, on `clock` (leases expire on it). */
function stateStore(options: PostgresCampaignOptions, tableName: string, clock = skewedClock()) {
  return createDynamoDbStateStore({ client: options.dynamo, tableName, clock });
}

/** postgres-sink copies the orders topic (records `read` back) into the sink database. */
async function copyOrders(
  run: {
    readonly options: PostgresCampaignOptions;
    readonly names: CampaignNames;
    readonly databases: CampaignDatabases;
    readonly kafka: KafkaJsClientFactory;
    readonly log: (line: string) => void;
  },
  store: StateStore,
  read: readonly CommittedMessage[],
): Promise<SinkRunResult> {
  const { options, names } = run;
  const target = await createOrdersCopyTarget(names, run.databases.sink);
  try {
    return await runSinkTarget({
      target,
      store,
      kafka: run.kafka,
      brokers: options.brokers,
      prefix: names.prefix,
      topic: names.ordersTopic,
      input: ordersInput(names.ordersTopic, 1, read),
      replays: SINK_REPLAYS_PER_CRASH * options.crashes,
      random: seededRandom(derivedSeed(options.seed, 'sink')),
      log: run.log,
    });
  } finally {
    await target.close();
  }
}

/** The sink run as a {@link PartReport}. */
function sinkReport(copy: SinkRunResult): PartReport & { readonly errors: readonly string[] } {
  return {
    duplicates: copy.duplicates,
    losses: copy.losses,
    unexpected: copy.anomalies,
    reordered: 0,
    records: copy.records,
    examples: { lost: [], duplicated: [], unexpected: [], ...copy.examples },
    crashes: copy.crashes,
    invocations: copy.replays,
    outcomes: new Map([...copy.failureReasons].map(([reason, n]) => [`retriable: ${reason}`, n])),
    crashPoints: new Map(),
    errors: copy.errors,
  };
}

/** Reads both source topics read_committed and holds them against the workload's log. */
async function verifySources(kafka: Kafka, names: CampaignNames, workload: Workload) {
  const deletes = workload.changes.filter((c) => c.op === 'd').length;
  const [items, orders] = await Promise.all([
    readCommitted({
      kafka,
      topic: names.itemsTopic,
      count: workload.changes.length + deletes,
      timeoutMs: 30_000,
    }),
    readCommitted({
      kafka,
      topic: names.ordersTopic,
      count: workload.orders.length,
      timeoutMs: 30_000,
    }),
  ]);
  const changes = verifyChanges(
    workload.changes,
    items.map(({ message }) => decodeChange(message.key, message.value)),
  );
  const ids = orders.map(({ message }) => orderIdOf(message.value));
  return { changes, orders: verifyOrders(workload.orders, ids), read: orders };
}

/** Runs the campaign; see the module notes. */
export async function runPostgresCampaign(
  options: PostgresCampaignOptions,
): Promise<PostgresCampaignResult> {
  const started = Date.now();
  const at = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
  const log = (line: string) => options.log?.(`${at()} ${line}`);
  const names = campaignNames(`pgcheck_${Date.now().toString(36)}_${options.seed}`);
  const kafka = new Kafka({ brokers: [...options.brokers], logLevel: logLevel.NOTHING });
  const factory = new KafkaJsClientFactory({
    brokers: [...options.brokers],
    logLevel: logLevel.NOTHING,
  });
  const tableName = `${names.prefix}-state`;
  await ensureTable(options.dynamo, tableName);
  await createTopic(kafka, names.itemsTopic, ITEMS_PARTITIONS);
  await createTopic(kafka, names.ordersTopic, 1);
  const databases = await CampaignDatabases.create(options.postgresUrl, names.prefix);
  const parts: SourcePart[] = [];
  let workload: Workload | undefined;
  try {
    const load = await Workload.create(
      databases.source.url,
      seededRandom(derivedSeed(options.seed, 'workload')),
    );
    workload = load;
    await load.seed(SEED_ITEMS, 20);
    const cdcSettings = cdcConfig(names, databases.source);
    const deps = {
      store: (clock: SkewedClock) => stateStore(options, tableName, clock),
      kafka: factory,
      seed: options.seed,
    };
    const cdc = await sourcePart('postgres-cdc', deps, cdcSettings, () =>
      databases.closeDeadCdcConnections(names.slot),
    );
    const orders = await sourcePart('postgres-source', deps, sourceConfig(names, databases.source));
    parts.push(cdc, orders);
    await crashingInvocations({ cdc, orders, load, crashes: options.crashes, log }, () =>
      snapshotCommitted(cdc.source.engine.store, cdcSettings.name),
    );
    await load.stop();
    await load.checkTables();
    log(
      `workload: ${load.transactions} transactions (${load.rolledBack} rolled back), ` +
        `${load.changes.length} item changes, ${load.orders.length} orders; catching up`,
    );
    await Promise.all([cdc.catchUp(), orders.catchUp()]);
    log('caught up; reading the topics back');

    const verdicts = await verifySources(kafka, names, load);
    log(`topics read (${verdicts.changes.records} change events); postgres-sink copies orders`);
    const copy = await copyOrders(
      { options, names, databases, kafka: factory, log },
      stateStore(options, tableName),
      verdicts.read,
    );
    const sink = sinkReport(copy);
    const cdcReport = cdc.report(verdicts.changes);
    const sourceReport = orders.report(verdicts.orders);
    const all = [cdcReport, sourceReport, sink];
    const sum = (pick: (r: PartReport) => number) => all.reduce((n, r) => n + pick(r), 0);
    return {
      duplicates: sum((r) => r.duplicates),
      losses: sum((r) => r.losses),
      anomalies: sum((r) => r.unexpected + r.reordered) + copy.errors.length,
      crashes: sum((r) => r.crashes),
      cdc: cdcReport,
      source: sourceReport,
      sink,
      workload: {
        transactions: load.transactions,
        rolledBack: load.rolledBack,
        keyChanges: load.keyChanges,
        changes: load.changes.length,
        orders: load.orders.length,
      },
    };
  } finally {
    // What cleaning up fails at must not hide what failed the campaign.
    const cleanUp = [
      () => workload?.close(),
      ...parts.map((part) => () => part.source.close()),
      () => databases.drop(names.slot),
    ];
    for (const step of cleanUp) await Promise.resolve(step()).catch((e) => log(`cleanup: ${e}`));
  }
}
