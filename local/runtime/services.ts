import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { Kafka, logLevel } from 'kafkajs';
import { type RunningDynamo, startDynalite } from '../services/dynalite.js';
import type { EnsureBrokerOptions, KafkaBrokerHandle } from '../services/kafka-broker.js';
import { type RunningS3, startS3rver } from '../services/s3rver.js';
import { connectBroker } from './broker.js';

/** The servers the local runtime stands on. */
export interface LocalServices {
  readonly broker: KafkaBrokerHandle;
  readonly dynamo: RunningDynamo;
  readonly s3: RunningS3;
  /** Where s3rver keeps objects; undefined for a temporary folder. */
  readonly s3Directory: string | undefined;
  /** Where dynalite keeps tables; undefined in memory. */
  readonly dynamoDirectory: string | undefined;
  /** Stops what was started here (the broker only when started here). */
  close(): Promise<void>;
}

export interface LocalServicesOptions {
  readonly brokers?: readonly string[];
  /** Absent: in memory (and objects in a temporary folder). */
  readonly dataDir: string | undefined;
  readonly s3Port: number;
  readonly dynamoPort: number;
  /** An external DynamoDB-compatible endpoint: no dynalite is started. */
  readonly dynamoEndpoint?: string;
  /** How the pinned broker is started when no brokers are given (owner, progress, abort). */
  readonly broker?: EnsureBrokerOptions;
}

/**
 * Starts dynalite (unless an external endpoint is given), s3rver and (unless brokers are given or KAFKA_BROKERS is set) the pinned
 * broker, at the same time. When one fails, the others are stopped before the error is thrown.
 */
export async function startLocalServices(options: LocalServicesOptions): Promise<LocalServices> {
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  const external = options.dynamoEndpoint;
  const dynamoDirectory =
    dataDir === undefined || external !== undefined ? undefined : join(dataDir, 'dynamodb');
  const s3Directory = dataDir === undefined ? undefined : join(dataDir, 's3');
  if (dynamoDirectory !== undefined) await mkdir(dynamoDirectory, { recursive: true });
  if (s3Directory !== undefined) await mkdir(s3Directory, { recursive: true });
  const [broker, dynamo, s3] = await Promise.allSettled([
    connectBroker(options.brokers, options.broker),
    external === undefined
      ? startDynalite({
          port: options.dynamoPort,
          ...(dynamoDirectory === undefined ? {} : { path: dynamoDirectory }),
        })
      : Promise.resolve<RunningDynamo>({ endpoint: external, close: async () => {} }),
    startS3rver({
      port: options.s3Port,
      ...(s3Directory === undefined ? {} : { directory: s3Directory }),
    }),
  ]);
  if (broker.status === 'rejected' || dynamo.status === 'rejected' || s3.status === 'rejected') {
    await Promise.allSettled([
      broker.status === 'fulfilled' ? broker.value.stop() : undefined,
      dynamo.status === 'fulfilled' ? dynamo.value.close() : undefined,
      s3.status === 'fulfilled' ? s3.value.close() : undefined,
    ]);
    const failed = [broker, dynamo, s3].find((r) => r.status === 'rejected');
    throw (failed as PromiseRejectedResult).reason;
  }
  return {
    broker: broker.value,
    dynamo: dynamo.value,
    s3: s3.value,
    s3Directory,
    dynamoDirectory,
    close: async () => {
      await Promise.allSettled([dynamo.value.close(), s3.value.close()]);
      await broker.value.stop();
    },
  };
}

/** Creates `bucket` in s3rver unless it exists. */
export async function ensureBucket(s3: RunningS3, bucket: string): Promise<void> {
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: s3.credentials,
  });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw error;
  } finally {
    client.destroy();
  }
}

/** The Kafka cluster id (`kafka_cluster_id` of `GET /`), or 'unknown' when it cannot be read. */
export async function kafkaClusterId(brokers: readonly string[]): Promise<string> {
  const admin = new Kafka({
    brokers: [...brokers],
    clientId: 'serverless-connect-local',
    logLevel: logLevel.NOTHING,
    retry: { retries: 5, initialRetryTime: 200 },
  }).admin();
  try {
    await admin.connect();
    return (await admin.describeCluster()).clusterId;
  } catch {
    return 'unknown';
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
