/**
 * The S3 sink's format keys: `format.class` (Confluent's four format classes, their simple names
 * and short aliases) and the keys of the Avro and Parquet formats, with Confluent's names and
 * defaults (`avro.codec`, `parquet.codec`, and the AvroData settings `schema.cache.size`,
 * `connect.meta.data`, `enhanced.avro.schema.support` of kafka-connect-storage-common's
 * `StorageSinkConnectorConfig`).
 */
import { ConfigDef, invalidValue, LambdaValidator, Range } from 'serverless-connect/connect';
import { AVRO_FILE_CODECS, type AvroFileCodec } from './avro-container.js';
import { PARQUET_CODECS, type ParquetCodec } from './parquet-file.js';

export const AVRO_CODEC_CONFIG = 'avro.codec';
export const PARQUET_CODEC_CONFIG = 'parquet.codec';
export const SCHEMA_CACHE_SIZE_CONFIG = 'schema.cache.size';
export const CONNECT_META_DATA_CONFIG = 'connect.meta.data';
export const ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG = 'enhanced.avro.schema.support';

/** A supported output format. */
export type S3SinkFormat = 'json' | 'bytearray' | 'avro' | 'parquet';

export interface Named<T> {
  readonly value: T;
  readonly className: string;
  readonly aliases: readonly string[];
}

export const FORMAT_CLASSES: readonly Named<S3SinkFormat>[] = [
  ['json', 'json.JsonFormat'],
  ['bytearray', 'bytearray.ByteArrayFormat'],
  ['avro', 'avro.AvroFormat'],
  ['parquet', 'parquet.ParquetFormat'],
].map(([value, path]) => ({
  value: value as S3SinkFormat,
  className: `io.confluent.connect.s3.format.${path}`,
  aliases: [(path as string).slice((path as string).indexOf('.') + 1), value as string],
}));

/** The entry of `classes` that `name` designates (class name, simple name or short alias). */
export function resolveNamed<T>(classes: readonly Named<T>[], name: string): T | null {
  const lower = name.toLowerCase();
  const found = classes.find(
    (c) => c.className === name || c.aliases.some((a) => a.toLowerCase() === lower),
  );
  return found?.value ?? null;
}

export function describeNamed<T>(classes: readonly Named<T>[]): string {
  return classes.map((c) => `${c.className} (${c.aliases.join(', ')})`).join(', ');
}

export const formatValidator = LambdaValidator.with(
  (name, value) => {
    if (typeof value === 'string' && resolveNamed(FORMAT_CLASSES, value) !== null) return;
    const simple = String(value).slice(String(value).lastIndexOf('.') + 1);
    const why = /orc|csv/i.test(simple)
      ? `${simple} is not supported by this S3 sink`
      : 'not a known format';
    throw invalidValue(name, value, `${why}; supported formats: ${describeNamed(FORMAT_CLASSES)}`);
  },
  () => describeNamed(FORMAT_CLASSES),
);

/** A codec key's validator: the supported values, and a clear refusal of Confluent's others. */
function codecValidator(supported: readonly string[], confluentOnly: readonly string[]) {
  return LambdaValidator.with(
    (name, value) => {
      const lower = String(value).trim().toLowerCase();
      if (supported.includes(lower)) return;
      const why = confluentOnly.includes(lower)
        ? `${lower} is not supported by this S3 sink`
        : 'not a known codec';
      throw invalidValue(name, value, `${why}; supported: ${supported.join(', ')}`);
    },
    () => `[${supported.join(', ')}]`,
  );
}

/** `parquet.codec`'s spellings: Confluent takes `none` and `uncompressed` alike. */
const PARQUET_CODEC_ALIASES: Readonly<Record<string, ParquetCodec>> = { uncompressed: 'none' };

export function avroCodecOf(value: unknown): AvroFileCodec {
  const lower = String(value).trim().toLowerCase();
  return AVRO_FILE_CODECS.find((c) => c === lower) ?? 'null';
}

export function parquetCodecOf(value: unknown): ParquetCodec {
  const lower = String(value).trim().toLowerCase();
  return PARQUET_CODEC_ALIASES[lower] ?? PARQUET_CODECS.find((c) => c === lower) ?? 'snappy';
}

/** The keys of the Avro and Parquet formats, in `group`. Add them with `ConfigDef.withAll`. */
export function containerFormatConfigDef(group: string): ConfigDef {
  return new ConfigDef()
    .define({
      name: AVRO_CODEC_CONFIG,
      type: 'STRING',
      defaultValue: 'null',
      validator: codecValidator(AVRO_FILE_CODECS, ['bzip2', 'xz', 'zstandard']),
      importance: 'LOW',
      group,
      documentation:
        'The compression codec of the blocks of AvroFormat objects: null (none), deflate or ' +
        "snappy. Confluent's bzip2, xz and zstandard are not supported.",
    })
    .define({
      name: PARQUET_CODEC_CONFIG,
      type: 'STRING',
      defaultValue: 'snappy',
      validator: codecValidator(
        [...PARQUET_CODECS, ...Object.keys(PARQUET_CODEC_ALIASES)],
        ['lz4', 'lzo', 'zstd', 'brotli'],
      ),
      importance: 'LOW',
      group,
      documentation:
        'The compression codec of ParquetFormat objects: snappy (.snappy.parquet), gzip ' +
        "(.gz.parquet) or none (.parquet). Confluent's lz4, zstd, brotli and lzo are not " +
        'supported.',
    })
    .define({
      name: SCHEMA_CACHE_SIZE_CONFIG,
      type: 'INT',
      defaultValue: 1000,
      validator: Range.atLeast(1),
      importance: 'LOW',
      group,
      documentation:
        'How many Connect schemas the Avro and Parquet formats keep mapped to Avro schemas.',
    })
    .define({
      name: CONNECT_META_DATA_CONFIG,
      type: 'BOOLEAN',
      defaultValue: true,
      importance: 'LOW',
      group,
      documentation:
        "Whether the Avro schema of AvroFormat and ParquetFormat objects carries Connect's " +
        'metadata (connect.name, connect.version, connect.doc, connect.parameters, ' +
        'connect.default).',
    })
    .define({
      name: ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG,
      type: 'BOOLEAN',
      defaultValue: false,
      importance: 'LOW',
      group,
      documentation:
        'Enhanced Avro schema support of the Avro mapping: Connect enum strings become Avro ' +
        'enums, and package names are kept.',
    });
}
