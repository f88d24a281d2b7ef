/**
 * What `check:local-crash` reads back: the source topic and the Kafka sink's output topic
 * (read_committed), the S3 sink's objects (over the runtime's S3 API), and the sinks' positions.
 * Every record is a datagen `sequence` record, identified by its source partition and seq.
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Kafka } from 'kafkajs';
import type { RuntimeInfo } from '../../local/runtime/runtime-info.js';
import { parseDatagenRecordIdentity } from '../../shared/plugins/connectors/datagen/quickstarts.js';
import { parseOffsetRecord } from '../../shared/runtime/source/offsets-topic.js';
import {
  checkDelivery,
  type DeliveryReport,
  type TopicDeliveryReport,
  tallyDelivery,
} from '../../test/support/eos-checker.js';
import { sinkOutputKeys } from '../../test/support/s3-sink-output.js';
import { type RuntimeProcess, sleep } from './runtime-process.js';

/** The datagen identity of a record value. */
export function identify(value: Uint8Array | null): { partition: string; seq: number } {
  const id = parseDatagenRecordIdentity(value === null ? null : new Uint8Array(value));
  return { partition: String(id.partition), seq: id.seq };
}

/** Reads `topic` read_committed and checks it against `expected` (see `checkDelivery`). */
export function readTopic(
  kafka: Kafka,
  topic: string,
  expected: ReadonlyMap<string, number>,
): Promise<TopicDeliveryReport> {
  return checkDelivery({ kafka, topic, expected, identify });
}

/** Sink connector `name`'s next offset to read per partition (`GET …/offsets`). */
export async function sinkPositions(
  runtime: RuntimeProcess,
  name: string,
): Promise<Map<number, number>> {
  const { status, body } = await runtime.http('GET', `/connectors/${name}/offsets`);
  if (status !== 200) throw new Error(`offsets of ${name} answered ${status}`);
  const out = new Map<number, number>();
  for (const entry of (body?.offsets ?? []) as {
    partition: { kafka_partition?: number };
    offset: { kafka_offset?: number } | null;
  }[]) {
    out.set(Number(entry.partition.kafka_partition), Number(entry.offset?.kafka_offset ?? 0));
  }
  return out;
}

/** Whether every partition of `positions` is at or past its offset in `targets`. */
export function reached(
  positions: ReadonlyMap<number, number>,
  targets: ReadonlyMap<number, number>,
): boolean {
  return [...targets].every(([p, target]) => (positions.get(p) ?? 0) >= target);
}

/** The S3 sink's output as read back. */
export interface S3OutputReport extends DeliveryReport {
  readonly objects: number;
  /** Objects whose `record-count` metadata differs from the lines they hold. */
  readonly inconsistent: number;
}

/**
 * Reads every object of the S3 sink under `topics/<topic>/` (key order: by partition, then by
 * start offset), then the staged objects of buckets not complete yet, and checks their JSON
 * lines against `expected`, and each object's lines against its `record-count` metadata.
 */
export async function readS3Output(
  info: RuntimeInfo,
  topic: string,
  expected: ReadonlyMap<string, number>,
): Promise<S3OutputReport> {
  const client = new S3Client({
    endpoint: info.s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: info.s3.accessKeyId, secretAccessKey: info.s3.secretAccessKey },
  });
  const seen = new Map<string, number[]>();
  let records = 0;
  let objects = 0;
  let inconsistent = 0;
  try {
    const { keys } = await sinkOutputKeys(client, info.s3.bucket, `topics/${topic}/`);
    for (const key of keys) {
      const got = await client.send(new GetObjectCommand({ Bucket: info.s3.bucket, Key: key }));
      const lines = ((await got.Body?.transformToString()) ?? '').split('\n').filter((l) => l);
      objects += 1;
      if (Number(got.Metadata?.['record-count']) !== lines.length) inconsistent += 1;
      for (const line of lines) {
        const { partition, seq } = identify(new TextEncoder().encode(line));
        const list = seen.get(partition) ?? [];
        list.push(seq);
        seen.set(partition, list);
        records += 1;
      }
    }
  } finally {
    client.destroy();
  }
  return { ...tallyDelivery(seen, expected, records), objects, inconsistent };
}

/** Committed seq per datagen partition, from `GET /connectors/{c}/offsets`. */
export async function committedSeqs(
  runtime: RuntimeProcess,
  connector: string,
): Promise<Map<string, number>> {
  const { body } = await runtime.http('GET', `/connectors/${connector}/offsets`);
  const out = new Map<string, number>();
  for (const entry of (body?.offsets ?? []) as {
    partition: Record<string, unknown>;
    offset: { seq?: number } | null;
  }[]) {
    out.set(String(entry.partition['datagen.partition']), Number(entry.offset?.seq ?? 0));
  }
  return out;
}

/**
 * Committed seq per datagen partition as Kafka holds it: the connector's records on its offsets
 * topic, read read_committed (what Connect's own offsets view reads). The state store's view can
 * lag it by the last transaction of an invocation fenced between its commit and its promotion
 * (the stop's fencing round); the next invocation settles that as committed.
 */
export async function committedInKafka(
  kafka: Kafka,
  offsetsTopic: string,
  connector: string,
  partitions: number,
): Promise<Map<string, number>> {
  const consumer = kafka.consumer({
    groupId: `${connector}-offsets-check-${Date.now()}`,
    readUncommitted: false,
  });
  const out = new Map<string, number>();
  let lastNews = Date.now();
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: offsetsTopic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        lastNews = Date.now();
        const parsed = parseOffsetRecord(
          message.key === null ? null : new Uint8Array(message.key),
          message.value === null ? null : new Uint8Array(message.value),
        );
        if (parsed === undefined || parsed.connector !== connector) return;
        const partition = String(parsed.entry.partition['datagen.partition']);
        const seq = Number((parsed.entry.offset as { seq?: number } | null)?.seq ?? 0);
        out.set(partition, Math.max(out.get(partition) ?? 0, seq));
      },
    });
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && (out.size < partitions || Date.now() - lastNews < 2_000)) {
      await sleep(100);
    }
  } finally {
    await consumer.disconnect();
  }
  return out;
}

/** Duplicates (records beyond the committed offsets count as such) and losses of one path. */
export function deliveryVerdict(report: DeliveryReport, expected: ReadonlyMap<string, number>) {
  let beyond = 0;
  for (const [partition, top] of report.highest) {
    beyond += Math.max(0, top - (expected.get(partition) ?? 0));
  }
  return { duplicates: report.duplicates + beyond, losses: report.losses, beyond };
}
