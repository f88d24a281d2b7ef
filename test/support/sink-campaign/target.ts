/**
 * A sink under test in the campaign: its connector config, what one container's engine is built
 * with for it (its real plugin or Kafka clients, with crash points in its client), and how to
 * read back what it wrote.
 */
import type { PluginDescriptor } from '../../../shared/connect/plugin.js';
import type { KafkaClientFactory } from '../../../shared/ports/kafka.js';
import { tallyKeys } from '../key-tally.js';
import type { Faults } from './faults.js';
import type { InputRecord } from './input.js';

export type SinkName = 's3' | 'dynamodb' | 'kafka' | 'postgres';
export const SINK_NAMES: readonly SinkName[] = ['s3', 'dynamodb', 'kafka', 'postgres'];

/** Where the services are. */
export interface CampaignServices {
  readonly brokers: readonly string[];
  /** dynalite (DynamoDB API). */
  readonly dynamoEndpoint: string;
  /** moto's S3 (path style; AWS S3's conditional writes); only the S3 sink needs it. */
  readonly s3?: {
    readonly endpoint: string;
    readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  };
  /** A `postgres://` URL; only the PostgreSQL sink needs it. */
  readonly postgresUrl?: string;
}

/** The ports one container's engine gets from a sink target. */
export interface SinkContainer {
  /** The engine's Kafka clients (the Kafka sink writes through them). */
  readonly kafka: KafkaClientFactory;
  /** Plugins the engine registers besides the built-in ones (the sink's own, when it has one). */
  readonly plugins: readonly PluginDescriptor<'sink'>[];
  /** The class of the real sink among the engine's plugins, which the campaign wraps. */
  readonly sinkClass: string;
}

/** What a sink's output holds, counted per input record. */
export interface OutputReport {
  /** Records seen more than once (each extra sighting counts once). */
  readonly duplicates: number;
  /** Records never seen. */
  readonly losses: number;
  /**
   * Output that no clean pass would hold: unknown records, DynamoDB items whose coordinates are
   * not their record's, Kafka records out of input order within a partition.
   */
  readonly anomalies: number;
  /** Records (lines, items, messages) read. */
  readonly records: number;
  /** Some lost and some duplicated record ids, for the log. */
  readonly examples?: { readonly lost: readonly string[]; readonly duplicated: readonly string[] };
}

/** A sink under test, its resources created (bucket, table, output topic name). */
export interface SinkTarget {
  readonly name: SinkName;
  /** The steps of the sink's client where a `client` crash can be armed (see Faults.hit). */
  readonly clientSteps: readonly string[];
  /** The sink's connector config, without `name`, `connector.class` and `topics`. */
  readonly config: Readonly<Record<string, string>>;
  /**
   * What one container's engine is built with for this sink, its client crashing where
   * `faults` says; `kafka` are the campaign's Kafka clients.
   */
  container(faults: Faults, kafka: KafkaClientFactory): SinkContainer;
  /** Reads everything the sink wrote and counts it against `input`. */
  readOutput(input: readonly (readonly InputRecord[])[]): Promise<OutputReport>;
  close(): Promise<void>;
}

/** Counts the ids seen in an output against the input's (each input record once). */
export function countIds(
  input: readonly (readonly InputRecord[])[],
  seen: readonly string[],
): {
  duplicates: number;
  losses: number;
  unknown: number;
  examples: { lost: readonly string[]; duplicated: readonly string[] };
} {
  const tally = tallyKeys(
    input.flat().map((record) => record.id),
    seen,
  );
  const { lost, duplicated } = tally.examples;
  return {
    duplicates: tally.duplicates,
    losses: tally.losses,
    unknown: tally.unexpected,
    examples: { lost, duplicated },
  };
}
