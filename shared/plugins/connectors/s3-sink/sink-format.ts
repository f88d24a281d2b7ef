/**
 * The S3 sink's output format of a config: how records are encoded, whether objects hold one
 * schema each (Avro, Parquet: `container-formats.ts`) or lines (JSON, bytes: `record-format.ts`),
 * and the objects' compression, content type and extension.
 */
import {
  AvroContainerFormat,
  type ContainerFormat,
  ParquetObjectFormat,
} from './container-formats.js';
import { ByteArrayRecordFormat, JsonRecordFormat, type RecordFormat } from './record-format.js';
import type { S3SinkConfig } from './s3-sink-config.js';

/** How a config's objects are written. */
export interface SinkFormat {
  readonly format: RecordFormat;
  /** The format when it holds one schema per object (Avro, Parquet), else null. */
  readonly container: ContainerFormat | null;
  /** `s3.compression.type`, which Confluent applies to JSON and bytes only. */
  readonly compression: 'none' | 'gzip';
  /** The content type of lines objects (containers have their own). */
  readonly contentType: string;
  /** The extension of object keys, with its dot, compression included. */
  readonly extension: string;
}

function containerOf(config: S3SinkConfig): ContainerFormat | null {
  const settings = {
    cacheSize: config.schemaCacheSize,
    connectMetaData: config.connectMetaData,
    enhancedSchemaSupport: config.enhancedAvroSchemaSupport,
  };
  if (config.format === 'avro') return new AvroContainerFormat(settings, config.avroCodec);
  if (config.format === 'parquet') return new ParquetObjectFormat(settings, config.parquetCodec);
  return null;
}

/** The output format of `config`. */
export function sinkFormatOf(config: S3SinkConfig): SinkFormat {
  const container = containerOf(config);
  const format =
    container ??
    (config.format === 'json'
      ? new JsonRecordFormat(config.jsonDecimalFormat)
      : new ByteArrayRecordFormat(config.byteArrayExtension, config.byteArraySeparator));
  // Containers compress inside (avro.codec, parquet.codec).
  const compression = container === null ? config.compression : 'none';
  const contentType =
    compression === 'gzip'
      ? 'application/gzip'
      : config.format === 'json'
        ? 'application/x-ndjson'
        : 'application/octet-stream';
  const extension = format.extension + (compression === 'gzip' ? '.gz' : '');
  return { format, container, compression, contentType, extension };
}
