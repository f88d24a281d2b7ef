/**
 * The S3 sink connector's config keys (Confluent's S3 sink names and defaults where they
 * exist), as one {@link ConfigDef} serving the runtime and `…/config/validate`.
 */
import {
  CaseInsensitiveValidString,
  ConfigDef,
  invalidValue,
  LambdaValidator,
  NonEmptyString,
  Range,
} from 'serverless-connect/connect';
import { s3ConnectionConfigDef } from '../s3-connection-config.js';
import {
  containerFormatConfigDef,
  describeNamed,
  formatValidator,
  type Named,
  resolveNamed,
} from './format-config-def.js';

// The S3 connection keys (region, endpoint, path style, credentials), shared by both S3 connectors.
export * from '../s3-connection-config.js';
// The format keys (format.class, the Avro and Parquet keys).
export * from './format-config-def.js';

/** The version of the S3 sink connector and task. */
export const S3_SINK_VERSION = '0.1.0';

export const S3_BUCKET_CONFIG = 's3.bucket.name';
export const S3_PART_SIZE_CONFIG = 's3.part.size';
export const S3_COMPRESSION_TYPE_CONFIG = 's3.compression.type';
export const S3_CONDITIONAL_WRITES_CONFIG = 's3.conditional.writes';
export const S3_WRITE_MODE_CONFIG = 's3.write.mode';
export const S3_STAGING_DIR_CONFIG = 's3.staging.dir';
export const TOPICS_DIR_CONFIG = 'topics.dir';
export const FLUSH_SIZE_CONFIG = 'flush.size';
export const FORMAT_CLASS_CONFIG = 'format.class';
export const FORMAT_BYTEARRAY_EXTENSION_CONFIG = 'format.bytearray.extension';
export const FORMAT_BYTEARRAY_SEPARATOR_CONFIG = 'format.bytearray.separator';
export const JSON_DECIMAL_FORMAT_CONFIG = 'json.decimal.format';
export const BEHAVIOR_ON_NULL_VALUES_CONFIG = 'behavior.on.null.values';
export const PARTITIONER_CLASS_CONFIG = 'partitioner.class';
export const PARTITION_FIELD_NAME_CONFIG = 'partition.field.name';
export const PARTITION_DURATION_MS_CONFIG = 'partition.duration.ms';
export const PATH_FORMAT_CONFIG = 'path.format';
export const LOCALE_CONFIG = 'locale';
export const TIMEZONE_CONFIG = 'timezone';
export const TIMESTAMP_EXTRACTOR_CONFIG = 'timestamp.extractor';
export const TIMESTAMP_FIELD_CONFIG = 'timestamp.field';

/** The smallest and the default `s3.part.size` (Confluent's). */
export const S3_PART_SIZE_MIN = 5 * 1024 * 1024;
export const S3_PART_SIZE_DEFAULT = 25 * 1024 * 1024;

/** A supported partitioner. */
export type PartitionerKind = 'default' | 'field' | 'time' | 'hourly' | 'daily';

export const PARTITIONER_CLASSES: readonly Named<PartitionerKind>[] = [
  ['default', 'DefaultPartitioner'],
  ['field', 'FieldPartitioner'],
  ['time', 'TimeBasedPartitioner'],
  ['hourly', 'HourlyPartitioner'],
  ['daily', 'DailyPartitioner'],
].map(([value, simple]) => ({
  value: value as PartitionerKind,
  className: `io.confluent.connect.storage.partitioner.${simple}`,
  aliases: [simple as string, value as string],
}));

const partitionerValidator = LambdaValidator.with(
  (name, value) => {
    if (typeof value === 'string' && resolveNamed(PARTITIONER_CLASSES, value) !== null) return;
    throw invalidValue(
      name,
      value,
      `not a supported partitioner; supported partitioners: ${describeNamed(PARTITIONER_CLASSES)}`,
    );
  },
  () => describeNamed(PARTITIONER_CLASSES),
);

const nullValuesOptions = CaseInsensitiveValidString.in('fail', 'ignore');

/** `fail` or `ignore`; Confluent's `write` is refused as not supported. */
const nullValuesValidator = LambdaValidator.with(
  (name, value) => {
    if (typeof value === 'string' && value.trim().toLowerCase() === 'write') {
      throw invalidValue(
        name,
        value,
        'write is not supported by this S3 sink (records with a null value are never written); use fail or ignore',
      );
    }
    nullValuesOptions.ensureValid(name, value);
  },
  () => nullValuesOptions.toString(),
);

const S3_GROUP = 'S3';
const STORAGE_GROUP = 'Storage';
const FORMAT_GROUP = 'Format';
const PARTITIONER_GROUP = 'Partitioner';

/** The connector's keys, in documentation order. */
export const S3_SINK_CONFIG_DEF: ConfigDef = new ConfigDef()
  .define({
    name: S3_BUCKET_CONFIG,
    type: 'STRING',
    validator: new NonEmptyString(),
    importance: 'HIGH',
    group: S3_GROUP,
    documentation: 'The S3 bucket to write objects to.',
  })
  .withAll(s3ConnectionConfigDef(S3_GROUP))
  .define({
    name: S3_PART_SIZE_CONFIG,
    type: 'INT',
    defaultValue: S3_PART_SIZE_DEFAULT,
    validator: Range.between(S3_PART_SIZE_MIN, 2_147_483_647),
    importance: 'HIGH',
    group: S3_GROUP,
    documentation:
      'The part size of S3 multipart uploads, in bytes. An object whose (compressed) content ' +
      'exceeds it is streamed in parts of this size; smaller objects take one PutObject. ' +
      'Memory per object being written is about one part.',
  })
  .define({
    name: S3_COMPRESSION_TYPE_CONFIG,
    type: 'STRING',
    defaultValue: 'none',
    validator: CaseInsensitiveValidString.in('none', 'gzip'),
    importance: 'LOW',
    group: S3_GROUP,
    documentation:
      "Compression type for objects written to S3: none or gzip (adds '.gz' to the file " +
      'extension). Each write re-compresses the whole object, so an object is always a single ' +
      'gzip member.',
  })
  .define({
    name: S3_CONDITIONAL_WRITES_CONFIG,
    type: 'BOOLEAN',
    defaultValue: true,
    importance: 'LOW',
    group: S3_GROUP,
    documentation:
      'Write objects with If-None-Match (new objects) and If-Match (the ETag read before ' +
      'appending), so that two invocations racing on one object cannot lose records: the ' +
      'loser fails retriably and its batch is redelivered. A key the task has not seen exist ' +
      'is then created without reading it first, trusting If-None-Match to refuse it when it ' +
      'exists: disable for S3-compatible servers that reject or ignore these headers (AWS S3 ' +
      'honours both); every write then reads the object first.',
  })
  .define({
    name: S3_WRITE_MODE_CONFIG,
    type: 'STRING',
    defaultValue: 'once',
    validator: CaseInsensitiveValidString.in('once', 'progressive'),
    importance: 'MEDIUM',
    group: S3_GROUP,
    documentation:
      'once: each object key is written once, complete, when its offset range is (as with ' +
      "Confluent's connector, S3 Object Created fires once per object); the records of the " +
      'range being filled wait in a staging object under s3.staging.dir, appended to at every ' +
      'batch. progressive: the object itself is rewritten at every batch while its range fills ' +
      '(records visible a batch after they arrive, but one key sees several writes).',
  })
  .define({
    name: S3_STAGING_DIR_CONFIG,
    type: 'STRING',
    defaultValue: '_staging',
    validator: new NonEmptyString(),
    importance: 'LOW',
    group: S3_GROUP,
    documentation:
      'With s3.write.mode=once, where records wait until their object is complete: ' +
      '<s3.staging.dir>/<topic>+<kafkaPartition>/<object key>. Keep it outside topics.dir and ' +
      "starting with '_' or '.', so that tools reading topics.dir (Hive, Athena, Glue, S3 " +
      'event notifications filtered on topics.dir) never see staged records.',
  })
  .define({
    name: TOPICS_DIR_CONFIG,
    type: 'STRING',
    defaultValue: 'topics',
    importance: 'HIGH',
    group: STORAGE_GROUP,
    documentation:
      'Top level directory to store the data ingested from Kafka. Objects are named ' +
      '<topics.dir>/<topic>/<encodedPartition>/<topic>+<kafkaPartition>+<startOffset>.<ext>.',
  })
  .define({
    name: FLUSH_SIZE_CONFIG,
    type: 'INT',
    validator: Range.atLeast(1),
    importance: 'HIGH',
    group: STORAGE_GROUP,
    documentation:
      "Number of offsets per object. Unlike Confluent's connector, objects are aligned on " +
      'offsets: the object of offset o starts at floor(o / flush.size) * flush.size, so an ' +
      'object holds at most flush.size records (fewer when offsets have gaps, records are ' +
      'spread over several encoded partitions, or null values are ignored), and every replay ' +
      'writes the same objects. Every batch is written when it completes (there is no time-based ' +
      'rotation: rotate.interval.ms and rotate.schedule.interval.ms are not supported).',
  })
  .define({
    name: FORMAT_CLASS_CONFIG,
    type: 'CLASS',
    validator: formatValidator,
    importance: 'HIGH',
    group: FORMAT_GROUP,
    documentation:
      'The format of the objects: io.confluent.connect.s3.format.json.JsonFormat (alias ' +
      'json; one JSON value per line, .json), io.confluent.connect.s3.format.bytearray.' +
      'ByteArrayFormat (alias bytearray; raw value bytes, each followed by ' +
      'format.bytearray.separator), io.confluent.connect.s3.format.avro.AvroFormat (alias ' +
      'avro; Avro object container files, .avro) or io.confluent.connect.s3.format.parquet.' +
      'ParquetFormat (alias parquet; .snappy.parquet, .gz.parquet or .parquet by parquet.codec). ' +
      'Avro and Parquet objects hold the records of one value schema, and need ' +
      's3.write.mode=once.',
  })
  .withAll(containerFormatConfigDef(FORMAT_GROUP))
  .define({
    name: FORMAT_BYTEARRAY_EXTENSION_CONFIG,
    type: 'STRING',
    defaultValue: '.bin',
    importance: 'LOW',
    group: FORMAT_GROUP,
    documentation: "Output file extension for ByteArrayFormat. Defaults to '.bin'",
  })
  .define({
    name: FORMAT_BYTEARRAY_SEPARATOR_CONFIG,
    type: 'STRING',
    defaultValue: null,
    importance: 'LOW',
    group: FORMAT_GROUP,
    documentation:
      "String inserted after each record for ByteArrayFormat. Defaults to a newline ('\\n') " +
      "and may contain escape sequences like '\\n', '\\r', '\\t', '\\\\' or '\\u0000'. An input " +
      'record that contains the separator will look like multiple records in the output object.',
  })
  .define({
    name: JSON_DECIMAL_FORMAT_CONFIG,
    type: 'STRING',
    defaultValue: 'BASE64',
    validator: CaseInsensitiveValidString.in('BASE64', 'NUMERIC'),
    importance: 'LOW',
    group: FORMAT_GROUP,
    documentation:
      'How JsonFormat writes Decimal values: BASE64 (the unscaled bytes, base64-encoded) or ' +
      'NUMERIC (a JSON number).',
  })
  .define({
    name: BEHAVIOR_ON_NULL_VALUES_CONFIG,
    type: 'STRING',
    defaultValue: 'fail',
    validator: nullValuesValidator,
    importance: 'LOW',
    group: FORMAT_GROUP,
    documentation:
      'How to handle records with a null value (Kafka tombstones): fail (a data error, reported ' +
      'to the errant record reporter when errors are tolerated) or ignore (skipped). ' +
      "Confluent's write is not supported.",
  })
  .define({
    name: PARTITIONER_CLASS_CONFIG,
    type: 'CLASS',
    defaultValue: 'io.confluent.connect.storage.partitioner.DefaultPartitioner',
    validator: partitionerValidator,
    importance: 'HIGH',
    group: PARTITIONER_GROUP,
    documentation:
      'The partitioner, which sets the directories below <topics.dir>/<topic>/: ' +
      'DefaultPartitioner (partition=<kafkaPartition>), FieldPartitioner (<field>=<value> for ' +
      'each of partition.field.name), TimeBasedPartitioner (path.format of the record time ' +
      'floored to partition.duration.ms), HourlyPartitioner and DailyPartitioner (the same with ' +
      "path.format 'year'=YYYY/'month'=MM/'day'=dd[/'hour'=HH] and a duration of one hour or " +
      'day). Full Confluent class names, simple names and lower-case short names are accepted.',
  })
  .define({
    name: PARTITION_FIELD_NAME_CONFIG,
    type: 'LIST',
    defaultValue: '',
    importance: 'MEDIUM',
    group: PARTITIONER_GROUP,
    documentation:
      'The names of the partitioning fields when FieldPartitioner is used (dots reach into ' +
      'nested structs and maps). Values must be integers, strings or booleans.',
  })
  .define({
    name: PARTITION_DURATION_MS_CONFIG,
    type: 'LONG',
    defaultValue: -1,
    importance: 'MEDIUM',
    group: PARTITIONER_GROUP,
    documentation:
      'The duration of a partition in milliseconds, used by TimeBasedPartitioner. The default ' +
      'value -1 means that we are not using TimeBasedPartitioner.',
  })
  .define({
    name: PATH_FORMAT_CONFIG,
    type: 'STRING',
    defaultValue: '',
    importance: 'MEDIUM',
    group: PARTITIONER_GROUP,
    documentation:
      'This configuration is used to set the format of the data directories when partitioning ' +
      'with TimeBasedPartitioner, as a Joda-Time DateTimeFormat pattern. For example, ' +
      "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH gives directories like " +
      'year=2015/month=12/day=07/hour=15.',
  })
  .define({
    name: LOCALE_CONFIG,
    type: 'STRING',
    defaultValue: '',
    importance: 'MEDIUM',
    group: PARTITIONER_GROUP,
    documentation:
      'The locale to use when partitioning with a time-based partitioner (month and day names). ' +
      'For example, en-US or en_US for US English, fr-FR for French (in France).',
  })
  .define({
    name: TIMEZONE_CONFIG,
    type: 'STRING',
    defaultValue: '',
    importance: 'MEDIUM',
    group: PARTITIONER_GROUP,
    documentation:
      'The timezone to use when partitioning with a time-based partitioner: an IANA id such as ' +
      'America/Los_Angeles or Europe/Paris, UTC, or an offset such as -07:00 or +08:00.',
  })
  .define({
    name: TIMESTAMP_EXTRACTOR_CONFIG,
    type: 'STRING',
    defaultValue: 'Wallclock',
    validator: CaseInsensitiveValidString.in('Wallclock', 'Record', 'RecordField'),
    importance: 'MEDIUM',
    group: PARTITIONER_GROUP,
    documentation:
      'The extractor that gets the timestamp of records for time-based partitioners: Record ' +
      '(the Kafka record timestamp), RecordField (the field timestamp.field of the value) or ' +
      'Wallclock (the time of writing). Exactly-once object contents hold only with Record and ' +
      'RecordField: with Wallclock a replayed record may land in another directory.',
  })
  .define({
    name: TIMESTAMP_FIELD_CONFIG,
    type: 'STRING',
    defaultValue: 'timestamp',
    importance: 'MEDIUM',
    group: PARTITIONER_GROUP,
    documentation:
      'The record field used as timestamp by the RecordField extractor (dots reach into nested ' +
      'fields): epoch milliseconds, a Timestamp, or an ISO-8601 string.',
  });
