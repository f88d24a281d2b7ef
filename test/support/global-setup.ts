import { Kafka, logLevel } from 'kafkajs';
import type { TestProject } from 'vitest/node';
import { startDynalite } from '../../local/services/dynalite.js';
import { ensureKafkaBroker } from '../../local/services/kafka-broker.js';
import { startS3rver } from '../../local/services/s3rver.js';
import { waitForTopicLeaders } from '../../shared/adapters/kafkajs/admin.js';
import { startMoto } from './moto/moto-server.js';
import { ensurePostgres } from './postgres-server.js';
import { ensureSchemaRegistry, someFileUsesSchemaRegistry } from './schema-registry-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Bootstrap servers of the real Kafka broker. */
    kafkaBrokers: string[];
    /** Endpoint of the dynalite server (DynamoDB API). */
    dynamoEndpoint: string;
    /** Endpoint of the s3rver server (S3 API, path style). */
    s3Endpoint: string;
    /** Endpoint of the moto server: S3 (path style), DynamoDB and DynamoDB Streams. */
    motoEndpoint: string;
    /** URL of the real PostgreSQL server (`postgres://user:password@host:port/database`). */
    postgresUrl: string;
    /**
     * Base URL of the real schema registry's Confluent API (`http://…/apis/ccompat/v7`), or ''
     * when no selected test file names `schemaRegistryUrl` (then it is not started).
     */
    schemaRegistryUrl: string;
    /**
     * The same API on the registry's HTTPS port (`https://…`, its certificate signed by a private
     * CA), and the folder of its certificates (ca.pem; a client certificate as client.pem/.key
     * and client.p12 with client.p12.password): '' when the registry is not started or has no
     * HTTPS port.
     */
    schemaRegistryTlsUrl: string;
    schemaRegistryTlsDir: string;
  }
}

/**
 * Integration-test services, started side by side: the real Kafka broker (KAFKA_BROKERS, or the
 * pinned local broker started here), dynalite and s3rver in this process, moto's server (its
 * venv built on the first run), on random loopback ports, and the real PostgreSQL server
 * (POSTGRES_URL, or the project's cluster started with scripts/postgres/start.sh), and the schema
 * registry (SCHEMA_REGISTRY_URL, or the project's started with scripts/schema-registry/start.sh)
 * when a selected test file names `schemaRegistryUrl`. Endpoints reach the tests
 * through `inject(...)`; everything started here is stopped in the teardown, and when one
 * service fails to start, the others are stopped before the error is thrown.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const wantsRegistry = await someFileUsesSchemaRegistry(await selectedTestFiles(project));
  const started = await Promise.allSettled([
    ensureKafkaBroker(),
    startDynalite(),
    startS3rver(),
    startMoto(),
    ensurePostgres(),
    wantsRegistry ? ensureSchemaRegistry() : null,
  ] as const);
  const [kafka, dynamo, s3, moto, postgres, registry] = started;
  const teardown = async () => {
    await Promise.allSettled([
      registry.status === 'fulfilled' ? registry.value?.stop() : undefined,
      dynamo.status === 'fulfilled' ? dynamo.value.close() : undefined,
      s3.status === 'fulfilled' ? s3.value.close() : undefined,
      moto.status === 'fulfilled' ? moto.value.stop() : undefined,
      kafka.status === 'fulfilled' ? kafka.value.stop() : undefined,
      postgres.status === 'fulfilled' ? postgres.value.stop() : undefined,
    ]);
  };
  if (
    kafka.status === 'rejected' ||
    dynamo.status === 'rejected' ||
    s3.status === 'rejected' ||
    moto.status === 'rejected' ||
    postgres.status === 'rejected' ||
    registry.status === 'rejected'
  ) {
    await teardown();
    const failures = started.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
    throw failures.length === 1
      ? failures[0]
      : new AggregateError(failures, 'integration services failed to start');
  }
  try {
    await warmUp(kafka.value.brokers);
  } catch (error) {
    await teardown();
    throw error;
  }
  project.provide('kafkaBrokers', kafka.value.brokers);
  project.provide('dynamoEndpoint', dynamo.value.endpoint);
  project.provide('s3Endpoint', s3.value.endpoint);
  project.provide('motoEndpoint', moto.value.endpoint);
  project.provide('postgresUrl', postgres.value.url);
  project.provide('schemaRegistryUrl', registry.value?.url ?? '');
  project.provide('schemaRegistryTlsUrl', registry.value?.tlsUrl ?? '');
  project.provide('schemaRegistryTlsDir', registry.value?.tlsDir ?? '');
  return teardown;
}

/**
 * The test files of this run: the project's files matching the file filters given on the
 * command line. vitest keeps those filters as `filenamePattern`, outside its typed API; without
 * them (or if a later vitest drops the field) every file of the project counts, which only
 * starts services that may not be needed.
 */
async function selectedTestFiles(project: TestProject): Promise<string[]> {
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  return (await project.globTestFiles(filters ?? [])).testFiles;
}

/**
 * A fresh broker creates `__transaction_state` and `__consumer_offsets` on first use, and its
 * coordinators answer "loading" for seconds meanwhile. One committed transaction with a group
 * offset, with patient retries, makes both ready before any test measures anything.
 */
async function warmUp(brokers: string[]): Promise<void> {
  const kafka = new Kafka({
    brokers,
    clientId: 'warm-up',
    logLevel: logLevel.NOTHING,
    retry: { initialRetryTime: 200, retries: 30, maxRetryTime: 2_000 },
  });
  const topic = 'serverless-connect-warm-up';
  const admin = kafka.admin();
  await admin.connect();
  const producer = kafka.producer({
    transactionalId: 'serverless-connect-warm-up',
    idempotent: true,
    maxInFlightRequests: 1,
  });
  try {
    if (!(await admin.listTopics()).includes(topic)) {
      await admin.createTopics({ topics: [{ topic }], waitForLeaders: false });
      await waitForTopicLeaders(admin, [topic]);
    }
    await producer.connect();
    // The patched kafkajs retries coordinator answers within one transaction for about 6.5 s
    // (ADR 0004); a slower broker gets the whole transaction again.
    for (let attempt = 1; ; attempt += 1) {
      const tx = await producer.transaction();
      try {
        await tx.send({ topic, messages: [{ value: 'warm' }] });
        await tx.sendOffsets({
          consumerGroupId: 'serverless-connect-warm-up',
          topics: [{ topic, partitions: [{ partition: 0, offset: '1' }] }],
        });
        await tx.commit();
        break;
      } catch (error) {
        await tx.abort().catch(() => undefined);
        const retriable = (error as { retriable?: boolean }).retriable === true;
        if (!retriable || attempt >= 10) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
      }
    }
    await admin.fetchOffsets({ groupId: 'serverless-connect-warm-up', topics: [topic] });
  } finally {
    await producer.disconnect();
    await admin.disconnect();
  }
}
