import { Kafka, logLevel } from 'kafkajs';
import { createDynamoDbStateStore } from '../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../shared/adapters/kafkajs/client.js';
import {
  type KafkaEsmEvent,
  parseEsmEvent,
  toEsmEvent,
} from '../shared/adapters/lambda/esm-event.js';
import type { AnyPluginDescriptor, PluginDescriptor } from '../shared/connect/plugin.js';
import { createEngine, DEFAULT_ENGINE_SETTINGS, type Engine } from '../shared/engine/engine.js';
import { systemClock } from '../shared/ports/clock.js';
import type { KafkaClientFactory } from '../shared/ports/kafka.js';
import type { StateStore } from '../shared/ports/state-store.js';
import { runSinkInvocation } from '../shared/runtime/sink/sink-task-runner.js';
import { TASK_PARTITIONS_KEY } from '../shared/runtime/task/task-split.js';
import { testPlugins } from '../test/support/plugin-modules.js';
import { dynaliteClient } from '../test/support/sink-campaign/dynamodb-target.js';
import { type InputRecord, produceInput } from '../test/support/sink-campaign/input.js';
import { wrappedSinkDescriptor } from '../test/support/wrapped-sink.js';
import { benchRounds, compareThroughput } from './harness.js';
import type { BenchServices } from './services.js';
import { Timings, timedMethods } from './timings.js';

/**
 * The sink benchmarks (`s3-sink`, `dynamodb-sink`, `kafka-sink`): the input is a real topic of
 * JSON records (~200 bytes); round k of either side handles slice k of it (`perRound` records,
 * in batches of `batch` records over the partitions). Ours = the sink connector through
 * `runSinkInvocation` (one warm container: the engine, as a Lambda container builds it, with its
 * task cache and its state in DynamoDB on dynalite) fed the
 * ESM events of the slice's batches (built before timing, as the mapping delivers them);
 * baseline = the raw client doing the same writes, prepared before timing too. Then where
 * ours' time goes: p50/p99 per step, per invocation.
 *
 * `<name>-floor` compares the protocol's own floor with the same baseline: per batch, the state
 * read the sink protocol needs (`getSinkSnapshot`, one Query), the baseline's writes of the
 * batch, then each partition's sink offset write (conditional UpdateItems, in parallel), through
 * the same store adapter with no sink runtime. No implementation of the protocol can beat it on
 * these services; the distance between ours and the floor is the runtime's own cost.
 */

/** Timed rounds of each side (the input holds one more slice, for the warm-up). */
export const ROUNDS = benchRounds();

/** `inner` under `className`, timing its tasks' `put` and `preCommit`. */
export function timedSinkDescriptor(
  inner: PluginDescriptor<'sink'>,
  className: string,
  timings: Timings,
): PluginDescriptor<'sink'> {
  return wrappedSinkDescriptor(inner, className, {
    put: (_records, next) => timings.time('task put', next),
    preCommit: (_current, next) => timings.time('task preCommit', next),
  });
}

/** `store`, timing the read and the sink offset writes the sink runtime makes. */
function timedStore(store: StateStore, timings: Timings): StateStore {
  return {
    ...store,
    offsets: timedMethods(store.offsets, { commitSinkOffset: 'state commitSinkOffset' }, timings),
    status: timedMethods(store.status, { getSinkSnapshot: 'state getSinkSnapshot' }, timings),
  };
}

/** A slice of the input: its records per partition and its ESM batches. */
export interface Slice {
  /** 0 for the warm-up round, then 1… */
  readonly index: number;
  readonly records: readonly (readonly InputRecord[])[];
  /** Each batch's records (over all partitions), in delivery order. */
  readonly batches: readonly (readonly InputRecord[])[];
  /** Each batch as the ESM event the mapping delivers (JSON-decoded). */
  readonly events: readonly KafkaEsmEvent[];
  readonly count: number;
}

export interface SinkBenchOptions {
  readonly name: string;
  readonly partitions: number;
  /** Records per round (all partitions). */
  readonly perRound: number;
  /** Records per invocation (all partitions). */
  readonly batch: number;
  /** Record `seq` of `partition`'s value (default: JSON of ~200 bytes, no schema). */
  readonly value?: (partition: number, seq: number) => string;
}

export interface SinkBench {
  readonly topic: string;
  readonly brokers: string[];
  readonly dynamoEndpoint: string;
  readonly s3Endpoint: string;
  /** `<name>-<time>`, for unique resource names. */
  readonly prefix: string;
  readonly timings: Timings;
  /** Every slice, for preparing the baseline's writes before timing. */
  readonly slices: readonly Slice[];
  /**
   * The next slice for `side` (each side walks the same slices; ours once, since it skips what
   * it wrote; the raw sides start over when they reach the end).
   */
  nextSlice(side: 'ours' | 'baseline' | 'floor'): Slice;
  /**
   * Stores `config` as connector `name` (one task owning every partition); the first call also
   * stores the floor's connector, of the same shape.
   */
  createConnector(name: string, config: Record<string, string>): Promise<void>;
  /**
   * A warm container: the engine over the bench's state store (its calls timed), with `plugins`
   * beside the built-in ones, over `kafka` (the bench's own clients by default). Closed by
   * `close`.
   */
  container(ports?: {
    readonly plugins?: readonly AnyPluginDescriptor[];
    readonly kafka?: KafkaClientFactory;
  }): Engine;
  /** Runs the slice's events through the engine's sink runtime; returns the records written. */
  runOurs(engine: Engine, connector: string, slice: Slice): Promise<number>;
  /**
   * Compares ours with the baseline (every batch of a slice written by `writeBatch`), prints the
   * ratio line, saves results and prints ours' steps; then compares the protocol floor (see the
   * module notes) with the baseline.
   */
  compare(
    ours: () => Promise<number>,
    writeBatch: (slice: Slice, batch: number) => Promise<unknown>,
  ): Promise<void>;
  /** Closes the containers and the bench's clients. */
  close(): Promise<void>;
}

function slicesOf(input: readonly (readonly InputRecord[])[], options: SinkBenchOptions): Slice[] {
  const perPartitionRound = options.perRound / options.partitions;
  const perPartitionBatch = options.batch / options.partitions;
  return Array.from({ length: ROUNDS + 1 }, (_, k) => {
    const records = input.map((list) =>
      list.slice(k * perPartitionRound, (k + 1) * perPartitionRound),
    );
    const batches: InputRecord[][] = [];
    for (let from = 0; from < perPartitionRound; from += perPartitionBatch) {
      batches.push(records.flatMap((list) => list.slice(from, from + perPartitionBatch)));
    }
    const events = batches.map(
      (batch) => JSON.parse(JSON.stringify(toEsmEvent(batch))) as KafkaEsmEvent,
    );
    return { index: k, records, batches, events, count: options.perRound };
  });
}

/** Produces the input (enough for the warm-up and every round) and the shared state store. */
export async function prepareSinkBench(
  services: BenchServices,
  options: SinkBenchOptions,
): Promise<SinkBench> {
  const [{ brokers }, dynamo, s3] = await Promise.all([
    services.kafka(),
    services.dynamo(),
    services.s3(),
  ]);
  const prefix = `${options.name}-${Date.now().toString(36)}`;
  const topic = `${prefix}-in`;
  const kafka = new Kafka({ brokers, logLevel: logLevel.NOTHING, retry: { retries: 8 } });
  const perPartition = (options.perRound / options.partitions) * (ROUNDS + 1);
  const input = await produceInput(
    kafka,
    topic,
    options.partitions,
    perPartition,
    140,
    options.value,
  );
  const slices = slicesOf(input, options);
  const client = dynaliteClient(dynamo.endpoint);
  const tableName = `${prefix}-state`;
  await ensureTable(client, tableName);
  const timings = new Timings();
  const rawStore = createDynamoDbStateStore({ client, tableName, clock: systemClock });
  const store = timedStore(rawStore, timings);
  const createConnector = async (name: string, config: Record<string, string>) => {
    await rawStore.configs.createConnector(name, config);
    const ids = input.map((_, p) => `${topic}-${p}`).join(',');
    await rawStore.configs.putTaskConfigs(name, [{ ...config, [TASK_PARTITIONS_KEY]: ids }], 0);
  };
  const next = { ours: 0, baseline: 0, floor: 0 };
  const nextSlice = (side: keyof typeof next): Slice => {
    const slice = slices[side === 'ours' ? next[side] : next[side] % slices.length];
    if (slice === undefined) throw new Error(`no slice left for ${side}`);
    next[side] += 1;
    return slice;
  };
  const floorConnector = `${prefix}-floor`;
  let floorCreated = false;
  const clients = new KafkaJsClientFactory({ brokers, logLevel: logLevel.NOTHING });
  const containers: Engine[] = [];
  return {
    topic,
    brokers,
    dynamoEndpoint: dynamo.endpoint,
    s3Endpoint: s3.endpoint,
    prefix,
    timings,
    slices,
    nextSlice,
    async createConnector(name, config) {
      await createConnector(name, config);
      // The floor reads a connector of the same shape and moves its own offsets.
      if (!floorCreated) await createConnector(floorConnector, { ...config, name: floorConnector });
      floorCreated = true;
    },
    container(ports = {}) {
      const engine = createEngine(
        {
          store,
          kafka: ports.kafka ?? clients,
          pluginModules: testPlugins(...(ports.plugins ?? [])),
        },
        { ...DEFAULT_ENGINE_SETTINGS, transactionalIdPrefix: prefix },
      );
      containers.push(engine);
      return engine;
    },
    async runOurs(engine, connector, slice) {
      let written = 0;
      for (const event of slice.events) {
        const summary = await timings.time('invocation', () =>
          runSinkInvocation(engine.sink, {
            connector,
            records: () => parseEsmEvent(event),
            deadline: Date.now() + 120_000,
            workerId: 'bench',
          }),
        );
        written += summary.written;
      }
      if (written !== slice.count) {
        throw new Error(`${connector} wrote ${written} of ${slice.count} records`);
      }
      return written;
    },
    async compare(ours, writeBatch) {
      const baseline = async () => {
        const slice = nextSlice('baseline');
        for (let b = 0; b < slice.batches.length; b += 1) await writeBatch(slice, b);
        return slice.count;
      };
      const floor = async () => {
        const slice = nextSlice('floor');
        for (let b = 0; b < slice.batches.length; b += 1) {
          const partitions = [...new Set((slice.batches[b] ?? []).map((r) => r.partition))].map(
            (partition) => ({ topic, partition }),
          );
          const snapshot = await rawStore.status.getSinkSnapshot(floorConnector, partitions);
          if (snapshot === undefined) throw new Error(`${floorConnector} is missing`);
          await writeBatch(slice, b);
          const next = new Map<number, number>();
          for (const r of slice.batches[b] ?? []) next.set(r.partition, r.offset + 1);
          await Promise.all(
            [...next].map(([partition, nextOffset]) =>
              rawStore.offsets.commitSinkOffset(floorConnector, { topic, partition, nextOffset }),
            ),
          );
        }
        return slice.count;
      };
      let warm = true;
      await compareThroughput({
        name: options.name,
        unit: 'records',
        rounds: ROUNDS,
        ours: async () => {
          // The warm-up round (first) starts the task and its clients: not in the steps.
          if (warm) {
            warm = false;
            const n = await ours();
            timings.clear();
            return n;
          }
          return ours();
        },
        baseline,
        cost: { function: 'sink-task', recordsPerInvocation: options.batch },
      });
      await timings.report(options.name);
      await compareThroughput({
        name: `${options.name}-floor`,
        unit: 'records',
        rounds: ROUNDS,
        ours: floor,
        baseline,
      });
    },
    async close() {
      for (const engine of containers) await engine.close();
      await clients.close();
    },
  };
}

/** Runs `work` over `items`, at most `limit` at a time. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
