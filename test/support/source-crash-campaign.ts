import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Kafka, logLevel } from 'kafkajs';
import { createDynamoDbStateStore } from '../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../shared/adapters/kafkajs/client.js';
import { parseDatagenRecordIdentity } from '../../shared/plugins/connectors/datagen/quickstarts.js';
import { checkDelivery } from './eos-checker.js';
import { seededRandom } from './seeded-random.js';
import { createTopic } from './sink-campaign/input.js';
import { CrashingSource, skewedClock, storeSourceConnector } from './source-crashes.js';

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
 * crashes with some chance at a random protocol step, on a random visit, in a cold or warm
 * container (an engine, as a Lambda container builds it, with its producers). Then a
 * read_committed reader checks every sequence number up to the committed offsets arrived
 * exactly once, in order, and nothing beyond them (which a restart would produce again).
 */
export async function runSourceCrashCampaign(options: CampaignOptions): Promise<CampaignResult> {
  const log = options.log ?? (() => {});
  const clock = skewedClock();
  const tableName = `eos-campaign-${Date.now().toString(36)}-${options.seed}`;
  await ensureTable(options.dynamo, tableName);
  const store = createDynamoDbStateStore({ client: options.dynamo, tableName, clock });
  const factory = new KafkaJsClientFactory({
    brokers: options.brokers,
    logLevel: logLevel.NOTHING,
  });
  const name = `campaign-${Date.now().toString(36)}-${options.seed}`;
  const topic = `${name}-out`;
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
  const kafka = new Kafka({ brokers: options.brokers, logLevel: logLevel.NOTHING });
  await createTopic(kafka, topic, 3);
  const generation = await storeSourceConnector({ store, kafka: factory }, config);
  const source = new CrashingSource({
    ports: { store, kafka: factory },
    clock,
    random: seededRandom(options.seed),
    connector: name,
    generation,
    budgetMs: 60_000,
    source: { maxRecordsPerInvocation: 160 },
  });

  try {
    while (source.crashes < options.crashes) {
      const outcome = await source.invoke();
      if (outcome.crashed && source.crashes % 20 === 0) {
        log(`crashes=${source.crashes} invocations=${source.invocations}`);
      }
    }
    await source.settle();

    const offsets = await store.offsets.getSourceOffsets({ connector: name, task: 0 });
    const expected = new Map<string, number>();
    for (const entry of offsets.committed?.offsets ?? []) {
      expected.set(String(entry.partition['datagen.partition']), Number(entry.offset?.seq ?? 0));
    }
    const report = await checkDelivery({
      kafka,
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
      crashes: source.crashes,
      invocations: source.invocations,
      records: report.records,
    };
  } finally {
    await source.close();
    await factory.close();
  }
}
