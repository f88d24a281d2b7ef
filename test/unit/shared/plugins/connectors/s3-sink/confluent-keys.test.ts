import { describe, expect, it } from 'vitest';
import { PluginRegistry } from '../../../../../../shared/connect/plugin.js';
import { CONFLUENT_S3_SINK } from '../../../../../../shared/plugins/connectors/s3-sink/confluent-keys.js';
import { s3SinkDescriptor } from '../../../../../../shared/plugins/connectors/s3-sink/descriptor.js';
import { S3SinkConnector } from '../../../../../../shared/plugins/connectors/s3-sink/s3-sink-connector.js';
import { configErrors, keysMissingFromReadme } from '../peer-fixtures.js';
import { FakeClock } from './fakes.js';

/** Confluent's hourly example (time-based partitioning), writing JSON. */
const confluentHourly = {
  topics: 'orders',
  's3.region': 'us-west-2',
  's3.bucket.name': 'lake',
  's3.part.size': '5242880',
  'flush.size': '1000',
  'storage.class': 'io.confluent.connect.s3.storage.S3Storage',
  'format.class': 'io.confluent.connect.s3.format.json.JsonFormat',
  'partitioner.class': 'io.confluent.connect.storage.partitioner.TimeBasedPartitioner',
  'path.format': "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH",
  'partition.duration.ms': '3600000',
  locale: 'en-US',
  timezone: 'UTC',
  'timestamp.extractor': 'Record',
  'schema.compatibility': 'NONE',
  'rotate.interval.ms': '-1',
  's3.credentials.provider.class': 'com.amazonaws.auth.DefaultAWSCredentialsProviderChain',
  'behavior.on.null.values': 'ignore',
  'store.kafka.keys': 'false',
  // tuning keys of Confluent's own clients: accepted, no effect
  'retry.backoff.ms': '5000',
  's3.part.retries': '3',
  'schema.cache.size': '1000',
};

function errorsOf(props: Record<string, string>): [string, string[]][] {
  return configErrors(new S3SinkConnector({ clock: new FakeClock() }).validate(props));
}

describe("the S3 sink under Confluent's class name", () => {
  it('resolves io.confluent.connect.s3.S3SinkConnector', () => {
    // Prepare
    const registry = new PluginRegistry().register(s3SinkDescriptor);

    // Act
    const descriptor = registry.resolve('io.confluent.connect.s3.S3SinkConnector', 'sink');

    // Assess
    expect(descriptor).toBe(s3SinkDescriptor);
  });

  it("validates Confluent's time-based example with no errors", () => {
    // Act
    const errors = errorsOf(confluentHourly);

    // Assess
    expect(errors).toEqual([]);
  });

  it.each(CONFLUENT_S3_SINK.unsupportedKeys.map((k) => [k.name]))(
    'reports %s, set to a value it does not accept, on that key',
    (name) => {
      // Act
      const errors = errorsOf({ ...confluentHourly, [name]: 'on-purpose' });

      // Assess
      expect(errors).toHaveLength(1);
      const [key, messages] = errors[0] ?? [];
      expect(key).toBe(name);
      expect(messages).toHaveLength(1);
      expect(messages?.[0]).toMatch(
        new RegExp(
          `^${name.replaceAll('.', '\\.')} \\(a configuration of Confluent's S3 sink\\) is not supported by this connector`,
        ),
      );
    },
  );

  it.each([
    ['format.class', 'io.confluent.connect.s3.format.csv.CsvFormat', 'CsvFormat is not supported'],
    ['avro.codec', 'bzip2', 'bzip2 is not supported by this S3 sink'],
    ['parquet.codec', 'zstd', 'zstd is not supported by this S3 sink'],
    ['behavior.on.null.values', 'write', 'write is not supported by this S3 sink'],
    ['partitioner.class', 'com.example.MyPartitioner', 'not a supported partitioner'],
  ])('reports %s=%s as not supported on that key', (name, value, message) => {
    // Act
    const errors = errorsOf({ ...confluentHourly, [name]: value });

    // Assess
    expect(errors.map(([key]) => key)).toEqual([name]);
    expect(errors[0]?.[1][0]).toContain(`Invalid value ${value} for configuration ${name}: `);
    expect(errors[0]?.[1][0]).toContain(message);
  });

  it('accepts keys that are nobody’s, as Kafka Connect does', () => {
    // Act
    const errors = errorsOf({ ...confluentHourly, 'owner.team': 'data', 'x.y': '1' });

    // Assess
    expect(errors).toEqual([]);
  });

  it('lists every unsupported key in the compatibility table of its README', () => {
    // Act
    const missing = keysMissingFromReadme(CONFLUENT_S3_SINK, 's3-sink');

    // Assess
    expect(missing).toEqual([]);
  });
});
