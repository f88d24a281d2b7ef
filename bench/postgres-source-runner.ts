import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { createDynamoDbStateStore } from '../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../shared/adapters/kafkajs/client.js';
import type { PluginDescriptor } from '../shared/connect/plugin.js';
import { createEngine, DEFAULT_ENGINE_SETTINGS, type Engine } from '../shared/engine/engine.js';
import type { SourceRuntimeDeps } from '../shared/runtime/source/source-runtime-types.js';
import { runSourceInvocation } from '../shared/runtime/source/source-task-runner.js';
import { testPlugins } from '../test/support/plugin-modules.js';
import { compareThroughput } from './harness.js';
import type { BenchServices } from './services.js';
import { timedSourceDescriptor, timedStore } from './source-runner.js';
import { Timings, timedKafkaFactory } from './timings.js';

/**
 * What the PostgreSQL source benchmarks (`postgres-source`, `postgres-cdc`) share: the project's
 * PostgreSQL server, and ours as a warm Lambda container runs it: the engine over DynamoDB state
 * on dynalite and the broker, exactly once, one task, each round one source invocation of at
 * most `perRound` records. Every step ours takes is timed (the task's start, polls, commit and
 * stop; the record pipeline's conversion; the Kafka transaction's steps; the state store's
 * calls), for `report`.
 */
export interface PostgresSourceBench {
  readonly prefix: string;
  /** `postgres://user:password@host:port/database` */
  readonly url: string;
  /** A connection for the benchmark's own statements (tables, rows, slots). */
  readonly db: pg.Client;
  readonly timings: Timings;
  readonly engine: Engine;
  /** The `connection.*` keys of the server, in the JDBC connectors' form. */
  readonly connection: Readonly<Record<string, string>>;
  /** Stores the connector and its task configs (as the enumerator would). */
  createConnector(config: Readonly<Record<string, string>>): Promise<void>;
  /** One invocation of the connector's task 0: the records it delivered. */
  invoke(connector: string): Promise<number>;
  /**
   * Runs {@link compareThroughput} of `connector` (a round: one invocation; the warm-up's steps
   * left out) against `baseline` (a round: the rows it read), prints ours' steps, then reads
   * `topic` back read_committed: it must hold every record ours delivered, once (`uniqueKeys`:
   * each with a key of its own).
   */
  compare(options: {
    readonly connector: string;
    readonly topic: string;
    readonly baseline: () => Promise<number>;
    readonly uniqueKeys: boolean;
  }): Promise<void>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface PostgresSourceBenchOptions {
  readonly name: string;
  /** The connector; the benchmark runs it as `className`, its task's steps timed. */
  readonly plugin: PluginDescriptor<'source'>;
  readonly className: string;
  readonly perRound: number;
}

export async function preparePostgresSourceBench(
  services: BenchServices,
  options: PostgresSourceBenchOptions,
): Promise<PostgresSourceBench> {
  const [{ brokers }, dynamo, postgres] = await Promise.all([
    services.kafka(),
    services.dynamo(),
    services.postgres(),
  ]);
  const prefix = `${options.name}-${Date.now().toString(36)}`;
  const client = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const tableName = `${prefix}-state`;
  await ensureTable(client, tableName);
  const timings = new Timings();
  const timed = timedSourceDescriptor(options.plugin, options.className, timings);
  const rawStore = createDynamoDbStateStore({ client, tableName });
  const inner = new KafkaJsClientFactory({ brokers, logLevel: logLevel.NOTHING });
  const engine = createEngine(
    {
      store: timedStore(rawStore, timings),
      kafka: timedKafkaFactory(inner, timings),
      pluginModules: testPlugins(timed),
    },
    {
      ...DEFAULT_ENGINE_SETTINGS,
      transactionalIdPrefix: prefix,
      exactlyOnceSource: true,
      source: { maxRecordsPerInvocation: options.perRound },
    },
  );
  // The runtime's own pipeline, its conversion of each polled batch timed.
  const source: SourceRuntimeDeps = {
    ...engine.source,
    buildPipeline: (config, task) => {
      const pipeline = engine.source.buildPipeline(config, task);
      return {
        process: (envelopes) => timings.time('convert', () => pipeline.process(envelopes)),
        close: () => pipeline.close(),
      };
    },
  };
  const db = new pg.Client({ connectionString: postgres.url });
  await db.connect();
  const url = new URL(postgres.url);
  const generations = new Map<string, number>();
  let invocations = 0;
  async function invoke(connector: string): Promise<number> {
    invocations += 1;
    const result = await timings.time('invocation', () =>
      runSourceInvocation(source, {
        connector,
        task: 0,
        generation: generations.get(connector) ?? 0,
        owner: `bench-${invocations}`,
        workerId: 'bench',
        deadline: Date.now() + 120_000,
      }),
    );
    if (result.outcome !== 'completed') {
      throw new Error(`invocation ended ${result.outcome}`, { cause: result.error });
    }
    return result.records;
  }

  /**
   * Records in `topic`, read back read_committed until `expected` arrived (or a minute passed)
   * and a second more, and how many distinct keys they have.
   */
  async function readCommitted(topic: string, expected: number) {
    const kafka = new Kafka({ brokers, logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `${prefix}-check`, readUncommitted: false });
    const keys = new Set<string>();
    let records = 0;
    await consumer.connect();
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachBatch: async ({ batch }) => {
          for (const message of batch.messages) {
            records += 1;
            keys.add(message.key?.toString('base64') ?? '');
          }
        },
      });
      const deadline = Date.now() + 60_000;
      while (records < expected && Date.now() < deadline) await sleep(100);
      // A little longer, so that a record past the expected count (a duplicate) shows.
      await sleep(1_000);
    } finally {
      await consumer.disconnect();
    }
    return { records, keys: keys.size };
  }

  return {
    prefix,
    url: postgres.url,
    db,
    timings,
    engine,
    connection: {
      'connection.url': `jdbc:postgresql://${url.host}${url.pathname}`,
      'connection.user': decodeURIComponent(url.username),
      'connection.password': decodeURIComponent(url.password),
    },
    async createConnector(config) {
      const name = config.name as string;
      await rawStore.configs.createConnector(name, config);
      const connector = timed.create();
      await connector.start(config, { requestTaskReconfiguration: () => {}, raiseError: () => {} });
      const taskConfigs = await connector.taskConfigs(1);
      await connector.stop();
      const set = await rawStore.configs.putTaskConfigs(name, taskConfigs, 0);
      generations.set(name, set.tasks[0]?.generation ?? 0);
    },
    invoke,
    async compare({ connector, topic, baseline, uniqueKeys }) {
      let delivered = 0;
      let warm = true;
      await compareThroughput({
        name: options.name,
        unit: 'rows',
        ours: async () => {
          const records = await invoke(connector);
          delivered += records;
          if (warm) {
            warm = false;
            timings.clear();
          }
          return records;
        },
        baseline,
        cost: { function: 'source-task', recordsPerInvocation: options.perRound },
      });
      await timings.report(options.name);
      const read = await readCommitted(topic, delivered);
      console.log(
        `${options.name}: read back read_committed ${read.records} records, ${read.keys} keys (ours delivered ${delivered})`,
      );
      if (read.records !== delivered || (uniqueKeys && read.keys !== delivered)) {
        throw new Error(
          `${topic} holds ${read.records} records (${read.keys} keys), not ${delivered}`,
        );
      }
    },
    async close() {
      await db.end();
      await engine.close();
      await inner.close();
    },
  };
}
