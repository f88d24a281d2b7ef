import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { type Admin, type ITopicConfig, Kafka, logLevel } from 'kafkajs';
import { inject } from 'vitest';
import { waitForTopicLeaders } from '../../shared/adapters/kafkajs/admin.js';

/** Test-scoped credentials and region for the local AWS-compatible servers. */
const region = 'us-east-1';

/**
 * A name no other test (in this run or an earlier one against the same broker) uses:
 * `<prefix>-<random>`. Topic, table, bucket and group names in integration tests come from here.
 */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** A kafkajs client for the test broker. */
export function testKafka(clientId = uniqueName('test')): Kafka {
  return new Kafka({
    clientId,
    brokers: inject('kafkaBrokers'),
    logLevel: logLevel.NOTHING,
    retry: { retries: 8, initialRetryTime: 100 },
  });
}

/** Credentials moto accepts (any do; these name it in requests). */
export const MOTO_CREDENTIALS = { accessKeyId: 'moto', secretAccessKey: 'moto' } as const;

/** A DynamoDB client for dynalite. */
export function testDynamo(): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: inject('dynamoEndpoint'),
    region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** A DynamoDB client for moto, whose tables have DynamoDB Streams (same endpoint). */
export function testMotoDynamo(): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: inject('motoEndpoint'),
    region,
    credentials: MOTO_CREDENTIALS,
  });
}

/** The S3-compatible servers of the integration tests: s3rver (npm start's, patched) and moto. */
export type S3Server = 's3rver' | 'moto';

/** Where `server` listens and the credentials it takes. */
export function s3ServerOf(server: S3Server): {
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
} {
  return server === 'moto'
    ? { endpoint: inject('motoEndpoint'), credentials: { ...MOTO_CREDENTIALS } }
    : {
        endpoint: inject('s3Endpoint'),
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      };
}

/** An S3 client for `server` (s3rver unless told; path-style addressing). */
export function testS3(server: S3Server = 's3rver'): S3Client {
  return new S3Client({ ...s3ServerOf(server), region, forcePathStyle: true });
}

/** Creates topics with raw kafkajs and waits until every partition has a leader (KRaft-safe). */
export async function createTopics(admin: Admin, topics: ITopicConfig[]): Promise<void> {
  await admin.createTopics({ topics, waitForLeaders: false });
  await waitForTopicLeaders(
    admin,
    topics.map((t) => t.topic),
  );
}
