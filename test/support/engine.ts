import { inject } from 'vitest';
import { createDynamoDbStateStore } from '../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../shared/adapters/dynamodb/ensure-table.js';
import { KafkaJsClientFactory } from '../../shared/adapters/kafkajs/client.js';
import { meterS3Requests } from '../../shared/adapters/s3/s3-request-meter.js';
import {
  createEngine,
  DEFAULT_ENGINE_SETTINGS,
  type Engine,
  type EnginePorts,
  type EngineSettings,
} from '../../shared/engine/engine.js';
import { systemClock } from '../../shared/ports/clock.js';
import type { StateStore } from '../../shared/ports/state-store.js';
import { UsageScopes } from '../../shared/runtime/metering/usage-scopes.js';
import { testDynamo, uniqueName } from './services.js';

/** What a test may change of the engine: any port, and settings on top of Kafka Connect's. */
export type TestEngineOptions = Partial<EnginePorts> & {
  readonly settings?: Partial<EngineSettings>;
};

/** An engine of a test's own, and what it was built over. */
export interface TestEngine {
  readonly engine: Engine;
  readonly store: StateStore;
  /** Closes the engine, then the Kafka clients and the DynamoDB client it made. */
  close(): Promise<void>;
}

/**
 * The engine as the functions and the local runtime build it (shared/engine), over the
 * integration services: a DynamoDB state store on a fresh dynalite table and kafkajs clients of
 * the test broker, unless the test brings its own ports. Metered as the functions are: the
 * store's and the S3 connectors' requests are reported to the engine's `usage`. Tests never wire runtime
 * dependencies by hand; they change ports and settings here.
 *
 * @example
 * ```ts
 * const { engine, close } = await testEngine({ pluginModules: testPlugins(sequenceSourceDescriptor) });
 * await runSourceInvocation(engine.source, invocation);
 * await close();
 * ```
 */
export async function testEngine(options: TestEngineOptions = {}): Promise<TestEngine> {
  const { settings, store: givenStore, kafka: givenKafka, ...ports } = options;
  const usage = ports.usage ?? new UsageScopes(ports.clock ?? systemClock);
  const dynamo = givenStore === undefined ? testDynamo() : undefined;
  let store = givenStore;
  if (store === undefined && dynamo !== undefined) {
    const tableName = uniqueName('engine');
    await ensureTable(dynamo, tableName);
    store = createDynamoDbStateStore({ client: dynamo, tableName, usage });
  }
  if (store === undefined) throw new Error('no state store');
  const made =
    givenKafka === undefined
      ? new KafkaJsClientFactory({
          brokers: inject('kafkaBrokers'),
          clientId: uniqueName('engine'),
        })
      : undefined;
  const kafka = givenKafka ?? made;
  if (kafka === undefined) throw new Error('no Kafka clients');
  const engine = createEngine(
    { s3ClientHook: (client) => meterS3Requests(client, usage), ...ports, usage, store, kafka },
    { ...DEFAULT_ENGINE_SETTINGS, kafkaClusterId: 'it-cluster', ...settings },
  );
  return {
    engine,
    store,
    close: async () => {
      await engine.close();
      await made?.close();
      dynamo?.destroy();
    },
  };
}
