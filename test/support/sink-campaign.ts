/**
 * The sink campaign behind `npm run check:sink` and its in-suite test: randomized redeliveries
 * and crashes against the S3 sink (moto's S3), the DynamoDB sink (dynalite) and the Kafka sink (the
 * broker), each driven through `runSinkInvocation` with events built by `toEsmEvent` from
 * records produced to a real input topic; then every output is read back and counted per input
 * record.
 *
 * Per sink: one connector with two tasks (even and odd partitions), state in DynamoDB on
 * dynalite. See `sink-campaign/replays.ts` for the mapping's moves and `sink-campaign/faults.ts`
 * for the crash points.
 */
import { Kafka, logLevel } from 'kafkajs';
import { createDynamoDbStateStore } from '../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../shared/adapters/kafkajs/client.js';
import { createEngine, DEFAULT_ENGINE_SETTINGS } from '../../shared/engine/engine.js';
import { systemClock } from '../../shared/ports/clock.js';
import type { KafkaClientFactory } from '../../shared/ports/kafka.js';
import type { StateStore } from '../../shared/ports/state-store.js';
import { TASK_PARTITIONS_KEY } from '../../shared/runtime/task/task-split.js';
import { testPlugins } from './plugin-modules.js';
import { derivedSeed, seededRandom } from './seeded-random.js';
import { createDynamoTarget, dynaliteClient } from './sink-campaign/dynamodb-target.js';
import { Faults, faultyOffsets, faultySinkDescriptor } from './sink-campaign/faults.js';
import { type InputRecord, produceInput } from './sink-campaign/input.js';
import { createKafkaTarget } from './sink-campaign/kafka-target.js';
import { createPostgresTarget } from './sink-campaign/postgres-target.js';
import { type Container, type ReplayStats, runReplays } from './sink-campaign/replays.js';
import { createS3Target } from './sink-campaign/s3-target.js';
import {
  type CampaignServices,
  type OutputReport,
  SINK_NAMES,
  type SinkName,
  type SinkTarget,
} from './sink-campaign/target.js';

export { CAMPAIGN_PART_SIZE } from './sink-campaign/s3-target.js';
export type { CampaignServices, SinkName } from './sink-campaign/target.js';
export { SINK_NAMES } from './sink-campaign/target.js';

export interface SinkCampaignOptions {
  readonly services: CampaignServices;
  /** @default all three */
  readonly sinks?: readonly SinkName[];
  /** Randomized replays per sink (clean replays then finish the input). */
  readonly replays: number;
  readonly seed: number;
  /** Input partitions. @default 4 */
  readonly partitions?: number;
  /** Input records per partition. @default 750 */
  readonly perPartition?: number;
  readonly log?: (line: string) => void;
}

/** One sink's run: what the mapping did and what the output holds. */
export type SinkRunResult = OutputReport &
  Omit<ReplayStats, 'errors'> & {
    readonly sink: SinkName;
    readonly errors: readonly string[];
    readonly seconds: number;
  };

export interface SinkCampaignResult {
  readonly duplicates: number;
  readonly losses: number;
  readonly anomalies: number;
  /** Non-retriable failures (each stopped its sink's replays). */
  readonly errors: number;
  /** Invocations, all sinks and phases. */
  readonly replays: number;
  readonly records: number;
  readonly sinks: readonly SinkRunResult[];
}

async function createTarget(
  sink: SinkName,
  services: CampaignServices,
  prefix: string,
  topic: string,
): Promise<SinkTarget> {
  if (sink === 's3') return createS3Target(services, `${prefix}-s3`);
  if (sink === 'dynamodb') return createDynamoTarget(services, `${prefix}-ddb`);
  if (sink === 'postgres') return createPostgresTarget(services, `${prefix}-pg`);
  return createKafkaTarget(services, { inputTopic: topic });
}

/** Stores the connector: task 0 owns the even partitions, task 1 the odd ones. */
async function storeConnector(
  store: StateStore,
  connector: string,
  config: Record<string, string>,
  topic: string,
  partitions: number,
): Promise<void> {
  await store.configs.createConnector(connector, config);
  const tasks = Math.min(2, partitions);
  const ids = (task: number) =>
    Array.from({ length: partitions }, (_, p) => p)
      .filter((p) => p % tasks === task)
      .map((p) => `${topic}-${p}`)
      .join(',');
  await store.configs.putTaskConfigs(
    connector,
    Array.from({ length: tasks }, (_, task) => ({ ...config, [TASK_PARTITIONS_KEY]: ids(task) })),
    0,
  );
}

/** One sink target's replays: see {@link runSinkTarget}. */
export interface SinkTargetRun {
  readonly target: SinkTarget;
  /** The campaign's state (connector configs, sink offsets). */
  readonly store: StateStore;
  readonly kafka: KafkaClientFactory;
  readonly brokers: readonly string[];
  /** Names the connector (`<prefix>-<sink>`) and the engine's transactional ids. */
  readonly prefix: string;
  /** The topic the sink reads, and its records per partition (in offset order). */
  readonly topic: string;
  readonly input: readonly (readonly InputRecord[])[];
  /** Randomized replays (clean replays then finish the input). */
  readonly replays: number;
  readonly random: () => number;
  readonly log?: (line: string) => void;
}

/**
 * Stores a connector of `target`'s sink over `topic` (task 0 the even partitions, task 1 the odd
 * ones), plays the event source mapping against it (replays.ts) in containers whose sink crashes
 * where planned (faults.ts), then reads the target's output back against `input`.
 */
export async function runSinkTarget(run: SinkTargetRun): Promise<SinkRunResult> {
  const { target, store, kafka, prefix, topic, input } = run;
  const sink = target.name;
  const log = run.log ?? (() => {});
  const started = Date.now();
  const connector = `${prefix}-${sink}`;
  const className = `test.campaign.${sink}.FaultySinkConnector`;
  const config = { name: connector, 'connector.class': className, topics: topic };
  await storeConnector(store, connector, { ...config, ...target.config }, topic, input.length);
  /** A Lambda container: an engine whose sink offset writes and sink crash where planned. */
  const newContainer = (): Container => {
    const faults = new Faults();
    const ports = target.container(faults, kafka);
    const engine = createEngine(
      {
        store: { ...store, offsets: faultyOffsets(store.offsets, faults) },
        kafka: ports.kafka,
        pluginModules: testPlugins(...ports.plugins),
      },
      { ...DEFAULT_ENGINE_SETTINGS, transactionalIdPrefix: prefix },
    );
    // The crashes around put and preCommit wrap the real sink as the engine resolves it (the
    // Kafka sink is the engine's own, over its Kafka clients), under the connector's class.
    const inner = engine.plugins.resolve(ports.sinkClass, 'sink');
    engine.plugins.register(faultySinkDescriptor(inner, className, faults));
    return { faults, engine };
  };
  const stats = await runReplays({
    connector,
    input,
    newContainer,
    clientSteps: target.clientSteps,
    bootstrapServers: run.brokers.join(','),
    random: run.random,
    replays: run.replays,
    log,
  });
  for (const error of stats.errors) log(`${sink}: error: ${error}`);
  for (const [reason, n] of stats.failureReasons) log(`${sink}: retriable x${n}: ${reason}`);
  const output = await target.readOutput(input);
  const { lost = [], duplicated = [] } = output.examples ?? {};
  if (lost.length > 0) log(`${sink}: lost records, e.g. ${lost.join(' ')}`);
  if (duplicated.length > 0) log(`${sink}: duplicated records, e.g. ${duplicated.join(' ')}`);
  return { sink, ...stats, ...output, seconds: (Date.now() - started) / 1000 };
}

async function runSink(
  sink: SinkName,
  options: SinkCampaignOptions,
  store: StateStore,
  kafka: KafkaClientFactory,
  prefix: string,
  topic: string,
  input: readonly (readonly InputRecord[])[],
): Promise<SinkRunResult> {
  const target = await createTarget(sink, options.services, prefix, topic);
  try {
    return await runSinkTarget({
      target,
      store,
      kafka,
      brokers: options.services.brokers,
      prefix,
      topic,
      input,
      replays: options.replays,
      random: seededRandom(derivedSeed(options.seed, sink)),
      ...(options.log === undefined ? {} : { log: options.log }),
    });
  } finally {
    await target.close();
  }
}

/** Runs the campaign against `options.sinks`, one after the other; see the module notes. */
export async function runSinkCampaign(options: SinkCampaignOptions): Promise<SinkCampaignResult> {
  const { services } = options;
  const partitions = options.partitions ?? 4;
  const perPartition = options.perPartition ?? 750;
  const prefix = `sink-campaign-${Date.now().toString(36)}-${options.seed}`;
  const topic = `${prefix}-in`;
  const kafka = new Kafka({
    brokers: [...services.brokers],
    logLevel: logLevel.NOTHING,
    retry: { retries: 8, initialRetryTime: 100 },
  });
  const input = await produceInput(kafka, topic, partitions, perPartition);
  const dynamo = dynaliteClient(services.dynamoEndpoint);
  const clients = new KafkaJsClientFactory({
    brokers: [...services.brokers],
    logLevel: logLevel.NOTHING,
  });
  const results: SinkRunResult[] = [];
  try {
    const tableName = `${prefix}-state`;
    await ensureTable(dynamo, tableName);
    const store = createDynamoDbStateStore({ client: dynamo, tableName, clock: systemClock });
    for (const sink of options.sinks ?? SINK_NAMES) {
      results.push(await runSink(sink, options, store, clients, prefix, topic, input));
    }
  } finally {
    await clients.close();
    dynamo.destroy();
  }
  const sum = (pick: (r: SinkRunResult) => number) => results.reduce((n, r) => n + pick(r), 0);
  return {
    duplicates: sum((r) => r.duplicates),
    losses: sum((r) => r.losses),
    anomalies: sum((r) => r.anomalies),
    errors: sum((r) => r.errors.length),
    replays: sum((r) => r.replays),
    records: partitions * perPartition,
    sinks: results,
  };
}
