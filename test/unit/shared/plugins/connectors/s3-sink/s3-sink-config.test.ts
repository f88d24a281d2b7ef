import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../../../shared/connect/errors.js';
import {
  parseS3SinkConfig,
  S3_SINK_CONFIG_DEF,
  s3SinkClientConfigOf,
  unescapeSeparator,
} from '../../../../../../shared/plugins/connectors/s3-sink/s3-sink-config.js';

const base = { 's3.bucket.name': 'lake', 'flush.size': '100', 'format.class': 'json' };
const time = {
  ...base,
  'partitioner.class': 'io.confluent.connect.storage.partitioner.TimeBasedPartitioner',
  'partition.duration.ms': '3600000',
  'path.format': "'dt'=YYYY-MM-dd",
  locale: 'en_US',
  timezone: 'UTC',
};

function configError(props: Record<string, string>): ConfigError {
  try {
    parseS3SinkConfig(props);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseS3SinkConfig', () => {
  it('applies the documented defaults', () => {
    // Act
    const config = parseS3SinkConfig(base);

    // Assess
    expect(config).toEqual({
      bucket: 'lake',
      region: 'us-east-1',
      endpoint: null,
      pathStyle: false,
      credentials: null,
      partSize: 25 * 1024 * 1024,
      compression: 'none',
      conditionalWrites: true,
      writeMode: 'once',
      stagingDir: '_staging',
      topicsDir: 'topics',
      flushSize: 100,
      format: 'json',
      byteArrayExtension: '.bin',
      byteArraySeparator: new TextEncoder().encode('\n'),
      jsonDecimalFormat: 'BASE64',
      avroCodec: 'null',
      parquetCodec: 'snappy',
      schemaCacheSize: 1000,
      connectMetaData: true,
      enhancedAvroSchemaSupport: false,
      nullValues: 'fail',
      partitioner: { kind: 'default' },
    });
  });

  it('requires the bucket, flush.size and format.class with Kafka messages', () => {
    // Act
    const missing = ['s3.bucket.name', 'flush.size', 'format.class'].map(
      (key) =>
        configError(Object.fromEntries(Object.entries(base).filter(([k]) => k !== key))).message,
    );

    // Assess
    expect(missing).toEqual([
      'Missing required configuration "s3.bucket.name" which has no default value.',
      'Missing required configuration "flush.size" which has no default value.',
      'Missing required configuration "format.class" which has no default value.',
    ]);
  });

  it('accepts Confluent class names, simple names and short aliases for formats and partitioners', () => {
    // Act
    const json = parseS3SinkConfig({
      ...base,
      'format.class': 'io.confluent.connect.s3.format.json.JsonFormat',
    });
    const bytes = parseS3SinkConfig({ ...base, 'format.class': 'ByteArrayFormat' });
    const avro = parseS3SinkConfig({
      ...base,
      'format.class': 'io.confluent.connect.s3.format.avro.AvroFormat',
    });
    const parquet = parseS3SinkConfig({ ...base, 'format.class': 'ParquetFormat' });
    const short = parseS3SinkConfig({ ...base, 'format.class': 'parquet' });
    const field = parseS3SinkConfig({
      ...base,
      'partitioner.class': 'FieldPartitioner',
      'partition.field.name': 'region, country',
    });

    // Assess
    expect([json, bytes, avro, parquet, short].map((c) => c.format)).toEqual([
      'json',
      'bytearray',
      'avro',
      'parquet',
      'parquet',
    ]);
    expect(field.partitioner).toEqual({ kind: 'field', fields: ['region', 'country'] });
  });

  it('refuses unsupported formats naming the supported ones', () => {
    // Act
    const csv = configError({
      ...base,
      'format.class': 'io.confluent.connect.s3.format.csv.CsvFormat',
    });

    // Assess
    expect(csv.key).toBe('format.class');
    expect(csv.message).toBe(
      'Invalid value io.confluent.connect.s3.format.csv.CsvFormat for configuration format.class: CsvFormat is not supported by this S3 sink; supported formats: io.confluent.connect.s3.format.json.JsonFormat (JsonFormat, json), io.confluent.connect.s3.format.bytearray.ByteArrayFormat (ByteArrayFormat, bytearray), io.confluent.connect.s3.format.avro.AvroFormat (AvroFormat, avro), io.confluent.connect.s3.format.parquet.ParquetFormat (ParquetFormat, parquet)',
    );
  });

  it('reads the Avro and Parquet codecs and refuses the ones it cannot write on their key', () => {
    // Act
    const avro = parseS3SinkConfig({ ...base, 'format.class': 'avro', 'avro.codec': 'Snappy' });
    const parquet = parseS3SinkConfig({
      ...base,
      'format.class': 'parquet',
      'parquet.codec': 'uncompressed',
    });
    const bzip2 = configError({ ...base, 'format.class': 'avro', 'avro.codec': 'bzip2' });
    const lz4 = configError({ ...base, 'format.class': 'parquet', 'parquet.codec': 'lz4' });

    // Assess
    expect([avro.avroCodec, parquet.parquetCodec]).toEqual(['snappy', 'none']);
    expect([bzip2.key, lz4.key]).toEqual(['avro.codec', 'parquet.codec']);
    expect(bzip2.message).toBe(
      'Invalid value bzip2 for configuration avro.codec: bzip2 is not supported by this S3 sink; supported: null, deflate, snappy',
    );
    expect(lz4.message).toContain(
      'lz4 is not supported by this S3 sink; supported: none, snappy, gzip',
    );
  });

  it('refuses s3.write.mode=progressive for Avro and Parquet, whose objects are written once', () => {
    // Act
    const error = configError({
      ...base,
      'format.class': 'parquet',
      's3.write.mode': 'progressive',
    });

    // Assess
    expect(error.key).toBe('s3.write.mode');
    expect(error.message).toBe(
      'Invalid value progressive for configuration s3.write.mode: ParquetFormat objects are written once, complete: use once',
    );
  });

  it('parses the time-based partitioner, with a Java locale and the extractor ignoring case', () => {
    // Act
    const config = parseS3SinkConfig({ ...time, 'timestamp.extractor': 'recordfield' });

    // Assess
    expect(config.partitioner).toEqual({
      kind: 'time',
      durationMs: 3_600_000,
      pathFormat: "'dt'=YYYY-MM-dd",
      locale: 'en_US',
      timezone: 'UTC',
      extractor: 'RecordField',
      timestampField: 'timestamp',
    });
  });

  it('gives the hourly and daily shortcuts their path format and duration', () => {
    // Act
    const hourly = parseS3SinkConfig({ ...time, 'partitioner.class': 'HourlyPartitioner' });
    const daily = parseS3SinkConfig({ ...time, 'partitioner.class': 'daily' });

    // Assess
    expect(hourly.partitioner).toMatchObject({
      durationMs: 3_600_000,
      pathFormat: "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH",
    });
    expect(daily.partitioner).toMatchObject({
      durationMs: 86_400_000,
      pathFormat: "'year'=YYYY/'month'=MM/'day'=dd",
    });
  });

  it('rejects incomplete time-based settings with the key and message of Confluent', () => {
    // Act
    const errors = [
      configError({ ...time, 'partition.duration.ms': '-1' }),
      configError({ ...time, 'path.format': '' }),
      configError({ ...time, locale: '' }),
      configError({ ...time, timezone: '' }),
      configError({ ...time, timezone: 'Mars/Olympus' }),
      configError({ ...time, 'path.format': "'year'=YYYY/q" }),
    ];

    // Assess
    expect(errors.map((e) => e.key)).toEqual([
      'partition.duration.ms',
      'path.format',
      'locale',
      'timezone',
      'timezone',
      'path.format',
    ]);
    expect(errors[0]?.message).toBe(
      'Invalid value -1 for configuration partition.duration.ms: Partition duration needs to be a positive.',
    );
    expect(errors[3]?.message).toBe(
      'Invalid value  for configuration timezone: Timezone cannot be empty.',
    );
    expect(errors[5]?.message).toContain('Illegal pattern component: q');
  });

  it('requires field names for the field partitioner', () => {
    // Act
    const error = configError({ ...base, 'partitioner.class': 'field' });

    // Assess
    expect(error.key).toBe('partition.field.name');
  });

  it('keeps the part size at or above the 5 MiB S3 minimum', () => {
    // Act
    const error = configError({ ...base, 's3.part.size': '1024' });

    // Assess
    expect(error.message).toBe(
      'Invalid value 1024 for configuration s3.part.size: Value must be at least 5242880',
    );
  });

  it('reads gzip, the separator escapes, the extension and the null behaviour', () => {
    // Act
    const config = parseS3SinkConfig({
      ...base,
      'format.class': 'bytearray',
      's3.compression.type': 'GZIP',
      'format.bytearray.separator': '\\r\\n',
      'format.bytearray.extension': '.txt',
      'behavior.on.null.values': 'ignore',
      'topics.dir': '/exports/kafka/',
    });

    // Assess
    expect(config).toMatchObject({
      compression: 'gzip',
      byteArraySeparator: new TextEncoder().encode('\r\n'),
      byteArrayExtension: '.txt',
      nullValues: 'ignore',
      topicsDir: 'exports/kafka',
    });
  });

  it('needs the access key id and the secret together', () => {
    // Act
    const error = configError({ ...base, 'aws.access.key.id': 'AKIA' });

    // Assess
    expect(error.key).toBe('aws.secret.access.key');
  });

  it('documents every key', () => {
    // Act
    const keys = [...S3_SINK_CONFIG_DEF.configKeys().values()];

    // Assess
    expect(keys.filter((k) => k.documentation.length < 20).map((k) => k.name)).toEqual([]);
  });
});

describe('unescapeSeparator', () => {
  it('replaces Java escapes and refuses unknown ones', () => {
    // Act
    const text = unescapeSeparator('a\\tb\\\\c\\u0001\\0');

    // Assess
    expect(text).toBe('a\tb\\c\u0001\0');
    expect(() => unescapeSeparator('\\q')).toThrow(ConfigError);
  });
});

describe('s3SinkClientConfigOf', () => {
  it('uses path-style addressing with an endpoint and explicit credentials when given', () => {
    // Act
    const client = s3SinkClientConfigOf(
      parseS3SinkConfig({
        ...base,
        's3.endpoint': 'http://127.0.0.1:4569',
        'aws.access.key.id': 'id',
        'aws.secret.access.key': 'secret',
      }),
    );

    // Assess
    expect(client).toEqual({
      region: 'us-east-1',
      forcePathStyle: true,
      endpoint: 'http://127.0.0.1:4569',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
    });
  });
});
