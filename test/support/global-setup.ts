import type { TestProject } from 'vitest/node';
import { startDynalite } from '../../local/services/dynalite.js';
import { ensureKafkaBroker } from '../../local/services/kafka-broker.js';
import { startS3rver } from '../../local/services/s3rver.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Bootstrap servers of the real Kafka broker. */
    kafkaBrokers: string[];
    /** Endpoint of the dynalite server (DynamoDB API). */
    dynamoEndpoint: string;
    /** Endpoint of the s3rver server (S3 API, path style). */
    s3Endpoint: string;
  }
}

/**
 * Integration-test services: the real Kafka broker (KAFKA_BROKERS, or the pinned local broker
 * started here), dynalite and s3rver on random loopback ports. Endpoints reach the tests
 * through `inject(...)`; everything started here is stopped in the teardown.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [kafka, dynamo, s3] = await Promise.all([
    ensureKafkaBroker(),
    startDynalite(),
    startS3rver(),
  ]);
  project.provide('kafkaBrokers', kafka.brokers);
  project.provide('dynamoEndpoint', dynamo.endpoint);
  project.provide('s3Endpoint', s3.endpoint);
  return async () => {
    await Promise.allSettled([dynamo.close(), s3.close(), kafka.stop()]);
  };
}
