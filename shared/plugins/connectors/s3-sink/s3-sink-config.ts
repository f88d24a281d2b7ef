/**
 * The parsed S3 sink config: {@link parseS3SinkConfig} checks every key (Kafka's messages),
 * then the rules between keys (credentials together, the time-based partitioner's settings),
 * and builds the AWS SDK client of a config.
 */
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { invalidValue } from 'serverless-connect/connect';
import type { DecimalFormat } from '../../converters/json-encode.js';
import type { S3ClientHook } from '../s3-client-hook.js';
import { type S3Connection, s3ClientSettings, s3ConnectionOf } from '../s3-connection-config.js';
import { timeZoneOf } from '../time-zone.js';
import type { AvroFileCodec } from './avro-container.js';
import { compileJodaPattern } from './joda-format.js';
import { normalizeTopicsDir } from './object-naming.js';
import type { ParquetCodec } from './parquet-file.js';
import {
  DAILY_PATH_FORMAT,
  DAY_MS,
  HOUR_MS,
  HOURLY_PATH_FORMAT,
  type PartitionerSpec,
  type TimestampExtractorKind,
} from './partitioners.js';
import type { NullValueBehavior } from './record-format.js';
import { type S3SinkClient, sdkS3SinkClient } from './s3-sink-client.js';
import {
  AVRO_CODEC_CONFIG,
  avroCodecOf,
  BEHAVIOR_ON_NULL_VALUES_CONFIG,
  CONNECT_META_DATA_CONFIG,
  ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG,
  FLUSH_SIZE_CONFIG,
  FORMAT_BYTEARRAY_EXTENSION_CONFIG,
  FORMAT_BYTEARRAY_SEPARATOR_CONFIG,
  FORMAT_CLASS_CONFIG,
  FORMAT_CLASSES,
  JSON_DECIMAL_FORMAT_CONFIG,
  LOCALE_CONFIG,
  PARQUET_CODEC_CONFIG,
  PARTITION_DURATION_MS_CONFIG,
  PARTITION_FIELD_NAME_CONFIG,
  PARTITIONER_CLASS_CONFIG,
  PARTITIONER_CLASSES,
  PATH_FORMAT_CONFIG,
  parquetCodecOf,
  resolveNamed,
  S3_BUCKET_CONFIG,
  S3_COMPRESSION_TYPE_CONFIG,
  S3_CONDITIONAL_WRITES_CONFIG,
  S3_PART_SIZE_CONFIG,
  S3_SINK_CONFIG_DEF,
  S3_STAGING_DIR_CONFIG,
  S3_WRITE_MODE_CONFIG,
  type S3SinkFormat,
  SCHEMA_CACHE_SIZE_CONFIG,
  TIMESTAMP_EXTRACTOR_CONFIG,
  TIMESTAMP_FIELD_CONFIG,
  TIMEZONE_CONFIG,
  TOPICS_DIR_CONFIG,
} from './s3-sink-config-def.js';

export * from './s3-sink-config-def.js';

/** The parsed connector (and task) config: the S3 connection (region, endpoint, credentials) and the rest. */
export interface S3SinkConfig extends S3Connection {
  readonly bucket: string;
  readonly partSize: number;
  readonly compression: 'none' | 'gzip';
  readonly conditionalWrites: boolean;
  /** `once`: objects written once, complete (records staged meanwhile); `progressive`: rewritten per batch. */
  readonly writeMode: 'once' | 'progressive';
  /** Where `once` stages records; without leading or trailing `/`. */
  readonly stagingDir: string;
  /** Without leading or trailing `/`. */
  readonly topicsDir: string;
  readonly flushSize: number;
  readonly format: S3SinkFormat;
  readonly byteArrayExtension: string;
  readonly byteArraySeparator: Uint8Array;
  readonly jsonDecimalFormat: DecimalFormat;
  /** AvroFormat's block codec (`avro.codec`). */
  readonly avroCodec: AvroFileCodec;
  /** ParquetFormat's codec (`parquet.codec`). */
  readonly parquetCodec: ParquetCodec;
  /** The Avro mapping's settings (Avro and Parquet formats). */
  readonly schemaCacheSize: number;
  readonly connectMetaData: boolean;
  readonly enhancedAvroSchemaSupport: boolean;
  readonly nullValues: NullValueBehavior;
  readonly partitioner: PartitionerSpec;
}

const ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
  '0': '\0',
  '\\': '\\',
  "'": "'",
  '"': '"',
};

/**
 * `text` with Java escape sequences (`\n`, `\r`, `\t`, `\b`, `\f`, `\0`, `\\`, `\'`, `\"`,
 * `\uXXXX`) replaced by their characters. Throws ConfigError for an unknown or cut escape.
 */
export function unescapeSeparator(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = text.charAt(i + 1);
    if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
      out += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
      i += 5;
    } else if (ESCAPES[next] !== undefined) {
      out += ESCAPES[next];
      i++;
    } else {
      throw invalidValue(
        FORMAT_BYTEARRAY_SEPARATOR_CONFIG,
        text,
        `invalid escape sequence at position ${i}`,
      );
    }
  }
  return out;
}

function required(values: Record<string, unknown>, key: string, message: string): string {
  const value = String(values[key] ?? '');
  if (value === '') throw invalidValue(key, value, message);
  return value;
}

function extractorOf(value: unknown): TimestampExtractorKind {
  const lower = String(value).toLowerCase();
  return lower === 'record' ? 'Record' : lower === 'recordfield' ? 'RecordField' : 'Wallclock';
}

/** The time-based partitioner's settings, checked as Confluent's TimeBasedPartitioner does. */
function timeSpec(
  values: Record<string, unknown>,
  kind: 'time' | 'hourly' | 'daily',
): PartitionerSpec {
  let durationMs = Number(values[PARTITION_DURATION_MS_CONFIG]);
  let pathFormat = String(values[PATH_FORMAT_CONFIG] ?? '');
  if (kind === 'hourly' || kind === 'daily') {
    durationMs = kind === 'hourly' ? HOUR_MS : DAY_MS;
    pathFormat = kind === 'hourly' ? HOURLY_PATH_FORMAT : DAILY_PATH_FORMAT;
  }
  if (!(durationMs > 0)) {
    throw invalidValue(
      PARTITION_DURATION_MS_CONFIG,
      durationMs,
      'Partition duration needs to be a positive.',
    );
  }
  if (pathFormat === '')
    throw invalidValue(PATH_FORMAT_CONFIG, pathFormat, 'Path format cannot be empty.');
  try {
    compileJodaPattern(pathFormat);
  } catch (error) {
    throw invalidValue(PATH_FORMAT_CONFIG, pathFormat, (error as Error).message);
  }
  const locale = required(values, LOCALE_CONFIG, 'Locale cannot be empty.');
  try {
    Intl.getCanonicalLocales(locale.replace(/_/g, '-'));
  } catch (error) {
    throw invalidValue(LOCALE_CONFIG, locale, (error as Error).message);
  }
  const timezone = required(values, TIMEZONE_CONFIG, 'Timezone cannot be empty.');
  try {
    timeZoneOf(timezone);
  } catch (error) {
    throw invalidValue(TIMEZONE_CONFIG, timezone, (error as Error).message);
  }
  const extractor = extractorOf(values[TIMESTAMP_EXTRACTOR_CONFIG]);
  const timestampField = String(values[TIMESTAMP_FIELD_CONFIG] ?? '');
  if (extractor === 'RecordField' && timestampField === '') {
    throw invalidValue(TIMESTAMP_FIELD_CONFIG, timestampField, 'RecordField needs a field name');
  }
  return { kind: 'time', durationMs, pathFormat, locale, timezone, extractor, timestampField };
}

function partitionerSpec(values: Record<string, unknown>): PartitionerSpec {
  const kind =
    resolveNamed(PARTITIONER_CLASSES, String(values[PARTITIONER_CLASS_CONFIG])) ?? 'default';
  if (kind === 'default') return { kind };
  if (kind === 'field') {
    const fields = (values[PARTITION_FIELD_NAME_CONFIG] as string[]).filter((f) => f !== '');
    if (fields.length === 0) {
      throw invalidValue(
        PARTITION_FIELD_NAME_CONFIG,
        fields,
        'FieldPartitioner needs at least one field name',
      );
    }
    return { kind, fields };
  }
  return timeSpec(values, kind);
}

/** `s3.staging.dir` without leading or trailing slashes; ConfigError when nothing is left. */
function stagingDirOf(value: string): string {
  const dir = normalizeTopicsDir(value);
  if (dir === '') throw invalidValue(S3_STAGING_DIR_CONFIG, value, 'must name a directory');
  return dir;
}

/** Parses a connector or task config. Throws ConfigError with Kafka's messages. */
export function parseS3SinkConfig(props: Readonly<Record<string, string>>): S3SinkConfig {
  const values = S3_SINK_CONFIG_DEF.parse(props);
  const separator = values[FORMAT_BYTEARRAY_SEPARATOR_CONFIG] as string | null;
  const format = resolveNamed(FORMAT_CLASSES, String(values[FORMAT_CLASS_CONFIG])) ?? 'json';
  const writeMode =
    String(values[S3_WRITE_MODE_CONFIG]).toLowerCase() === 'progressive' ? 'progressive' : 'once';
  if (writeMode === 'progressive' && (format === 'avro' || format === 'parquet')) {
    throw invalidValue(
      S3_WRITE_MODE_CONFIG,
      values[S3_WRITE_MODE_CONFIG],
      `${format === 'avro' ? 'AvroFormat' : 'ParquetFormat'} objects are written once, complete: use once`,
    );
  }
  return {
    bucket: String(values[S3_BUCKET_CONFIG]),
    ...s3ConnectionOf(values),
    partSize: Number(values[S3_PART_SIZE_CONFIG]),
    compression:
      String(values[S3_COMPRESSION_TYPE_CONFIG]).toLowerCase() === 'gzip' ? 'gzip' : 'none',
    conditionalWrites: values[S3_CONDITIONAL_WRITES_CONFIG] === true,
    writeMode,
    stagingDir: stagingDirOf(String(values[S3_STAGING_DIR_CONFIG])),
    topicsDir: normalizeTopicsDir(String(values[TOPICS_DIR_CONFIG] ?? '')),
    flushSize: Number(values[FLUSH_SIZE_CONFIG]),
    format,
    byteArrayExtension: String(values[FORMAT_BYTEARRAY_EXTENSION_CONFIG] ?? ''),
    byteArraySeparator: new TextEncoder().encode(
      separator === null ? '\n' : unescapeSeparator(separator),
    ),
    jsonDecimalFormat:
      String(values[JSON_DECIMAL_FORMAT_CONFIG]).toUpperCase() === 'NUMERIC' ? 'NUMERIC' : 'BASE64',
    avroCodec: avroCodecOf(values[AVRO_CODEC_CONFIG]),
    parquetCodec: parquetCodecOf(values[PARQUET_CODEC_CONFIG]),
    schemaCacheSize: Number(values[SCHEMA_CACHE_SIZE_CONFIG]),
    connectMetaData: values[CONNECT_META_DATA_CONFIG] === true,
    enhancedAvroSchemaSupport: values[ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG] === true,
    nullValues:
      String(values[BEHAVIOR_ON_NULL_VALUES_CONFIG]).toLowerCase() === 'ignore' ? 'ignore' : 'fail',
    partitioner: partitionerSpec(values),
  };
}

/** The AWS SDK client settings of `config` (explicit credentials only when configured). */
export function s3SinkClientConfigOf(config: S3SinkConfig): S3ClientConfig {
  return s3ClientSettings(config);
}

/** A client for `config` over the AWS SDK, given to `hook` first when there is one. */
export function createS3SinkClient(config: S3SinkConfig, hook?: S3ClientHook): S3SinkClient {
  const client = new S3Client(s3SinkClientConfigOf(config));
  hook?.(client);
  return sdkS3SinkClient(client);
}
