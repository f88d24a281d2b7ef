import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Kafka, logLevel } from 'kafkajs';
import { createDynamoDbStateStore } from '../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../shared/adapters/kafkajs/client.js';
import type { SourceConnector } from '../../shared/connect/source.js';
import { parseDatagenRecordIdentity } from '../../shared/plugins/connectors/datagen/quickstarts.js';
import { builtinRegistry } from '../../shared/plugins/registry.js';
import { systemClock } from '../../shared/ports/clock.js';
import { silentLogger } from '../../shared/ports/logger.js';
import { buildSourcePipeline } from '../../shared/runtime/pipeline/source-pipeline.js';
import { ProducerPool } from '../../shared/runtime/source/producer-pool.js';
import {
  AbandonedInvocation,
  defaultSourceRuntimeSettings,
  runSourceInvocation,
} from '../../shared/runtime/source/source-task-runner.js';
import type { SourceCheckpoint } from '../../shared/runtime/source/source-transaction.js';
import { checkDelivery } from './eos-checker.js';

const points: readonly SourceCheckpoint[] = [
  'before-send',
  'after-send',
  'after-pending',
  'after-commit',
  'after-promote',
];

/** mulberry32: a small seeded PRNG, so a failing campaign can be replayed with its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface CampaignOptions {
  readonly brokers: string[];
  readonly dynamo: DynamoDBClient;
  /** Crashes to inject (at random protocol steps). */
  readonly crashes: number;
  readonly seed: number;
  readonly log?: (line: string) => void;
}

export interface CampaignResult {
  readonly duplicates: number;
  readonly losses: number;
  readonly reordered: number;
  readonly crashes: number;
  readonly invocations: number;
  readonly records: number;
}

/**
 * A datagen source (3 source partitions, JSON values) runs invocation after invocation; each
 * crashes with some chance at a random protocol step, on a random visit, with a cold or warm
 * producer. Then a read_committed reader checks every sequence number up to the committed
 * offsets arrived exactly once, in order, and nothing beyond them (which a restart would
 * produce again).
 */
export async function runSourceCrashCampaign(options: CampaignOptions): Promise<CampaignResult> {
  const next = random(options.seed);
  const log = options.log ?? (() => {});
  const clock = { skew: 0, now: () => Date.now() + clock.skew };
  const tableName = `eos-campaign-${Date.now().toString(36)}-${options.seed}`;
  await ensureTable(options.dynamo, tableName);
  const store = createDynamoDbStateStore({ client: options.dynamo, tableName, clock });
  const factory = new KafkaJsClientFactory({
    brokers: options.brokers,
    logLevel: logLevel.NOTHING,
  });
  const admin = factory.admin();
  const registry = builtinRegistry();
  const name = `campaign-${Date.now().toString(36)}-${options.seed}`;
  const topic = `${name}-out`;
  await admin.createTopics([{ topic, partitions: 3 }]);
  const config = {
    name,
    'connector.class': 'datagen',
    'kafka.topic': topic,
    quickstart: 'sequence',
    'source.partitions': '3',
    'records.per.poll': '40',
    'offsets.storage.topic': `${name}-offsets`,
    'value.converter.schemas.enable': 'false',
  };
  await store.configs.createConnector(name, config);
  const connector = registry.resolve('datagen', 'source').create() as SourceConnector;
  await connector.start(config, { requestTaskReconfiguration: () => {}, raiseError: () => {} });
  const set = await store.configs.putTaskConfigs(name, await connector.taskConfigs(1), 0);
  await connector.stop();
  const generation = set.tasks[0]?.generation ?? 0;

  let crashes = 0;
  let invocations = 0;
  let warm = new ProducerPool(factory);
  const deps = (checkpoint?: (p: SourceCheckpoint) => Promise<void>) => ({
    store,
    admin,
    producers: warm,
    plugins: registry,
    clock,
    sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
    buildPipeline: (parsed: Parameters<typeof buildSourcePipeline>[0]) =>
      buildSourcePipeline(parsed, 0, {
        plugins: registry,
        logger: silentLogger,
        clock: systemClock,
        sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      }),
    settings: { ...defaultSourceRuntimeSettings, maxRecordsPerInvocation: 160 },
    ...(checkpoint === undefined ? {} : { checkpoint }),
  });
  const invoke = (checkpoint?: (p: SourceCheckpoint) => Promise<void>) =>
    runSourceInvocation(deps(checkpoint), {
      connector: name,
      task: 0,
      generation,
      owner: `inv-${invocations}`,
      workerId: 'campaign',
      deadline: clock.now() + 60_000,
    });

  try {
    while (crashes < options.crashes) {
      invocations += 1;
      if (next() < 0.3) {
        await warm.closeAll();
        warm = new ProducerPool(factory); // a cold container
      }
      // A quarter of the invocations run clean (to the record cap); the rest crash.
      const point = next() < 0.25 ? undefined : points[Math.floor(next() * points.length)];
      const visit = 1 + Math.floor(next() * 4);
      let visits = 0;
      try {
        await invoke(async (p) => {
          if (p === point && ++visits === visit) throw new Error(`crash at ${p} #${visit}`);
        });
      } catch (error) {
        if (!(error instanceof AbandonedInvocation)) throw error;
        crashes += 1;
        clock.skew += 120_000; // the dead holder's lease expires
        await warm.closeAll();
        warm = new ProducerPool(factory); // the container died with it
        if (crashes % 20 === 0) log(`crashes=${crashes} invocations=${invocations}`);
      }
    }
    // A clean invocation settles whatever the last crash left; a retriable interruption (an
    // undecided transaction under load) is retried, as the next dispatch would.
    let last = await invoke();
    invocations += 1;
    for (let retry = 0; last.outcome === 'interrupted' && retry < 3; retry += 1) {
      last = await invoke();
      invocations += 1;
    }
    if (last.outcome !== 'completed') {
      throw new Error(`final invocation ended ${last.outcome}: ${last.error?.message ?? ''}`);
    }

    const offsets = await store.offsets.getSourceOffsets({ connector: name, task: 0 });
    const expected = new Map<string, number>();
    for (const entry of offsets.committed?.offsets ?? []) {
      expected.set(String(entry.partition['datagen.partition']), Number(entry.offset?.seq ?? 0));
    }
    const report = await checkDelivery({
      kafka: new Kafka({ brokers: options.brokers, logLevel: logLevel.NOTHING }),
      topic,
      expected,
      identify: (value) => {
        const id = parseDatagenRecordIdentity(value === null ? null : new Uint8Array(value));
        return { partition: String(id.partition), seq: id.seq };
      },
    });
    // Records beyond the committed offsets would be produced again by the next invocation.
    let beyond = 0;
    for (const [partition, top] of report.highest)
      beyond += Math.max(0, top - (expected.get(partition) ?? 0));
    return {
      duplicates: report.duplicates + beyond,
      losses: report.losses,
      reordered: report.reordered,
      crashes,
      invocations,
      records: report.records,
    };
  } finally {
    await warm.closeAll();
    await admin.close();
    await factory.close();
  }
}
