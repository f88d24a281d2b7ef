/**
 * Configs pasted from Confluent deployments, through the REST API: the class names of
 * Confluent's S3 sink and datagen resolve to the built-in connectors, the stored config keeps
 * the class name as given (as Kafka Connect stores it), and keys of Confluent's connectors we
 * do not support are errors on their own key.
 */
import { describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../../../shared/plugins/registry.js';
import { type CallResult, call, connectorPath, testApi } from './fixtures.js';

const S3_CLASS = 'io.confluent.connect.s3.S3SinkConnector';
const DATAGEN_CLASS = 'io.confluent.kafka.connect.datagen.DatagenConnector';

/** Confluent's S3 sink quick start (`quickstart-s3.properties`), writing JSON instead of Avro. */
const confluentS3Sink = {
  'connector.class': S3_CLASS,
  'tasks.max': '1',
  topics: 's3_topic',
  's3.region': 'us-west-2',
  's3.bucket.name': 'confluent-kafka-connect-s3-testing',
  's3.part.size': '5242880',
  'flush.size': '3',
  'storage.class': 'io.confluent.connect.s3.storage.S3Storage',
  'format.class': 'io.confluent.connect.s3.format.json.JsonFormat',
  'partitioner.class': 'io.confluent.connect.storage.partitioner.DefaultPartitioner',
  'schema.compatibility': 'NONE',
};

/** Confluent's datagen example (`connector_pageviews.config`), with JSON values instead of Avro. */
const confluentDatagen = {
  'connector.class': DATAGEN_CLASS,
  'kafka.topic': 'pageviews',
  quickstart: 'pageviews',
  'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
  'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
  'value.converter.schemas.enable': 'false',
  'max.interval': '100',
  iterations: '10000000',
  'tasks.max': '1',
};

interface ConfigEntry {
  readonly definition: { readonly name: string } | null;
  readonly value: { readonly name: string; readonly errors: readonly string[] } | null;
}

/** The errors of every key that has some, by key. */
function errorsByKey(res: CallResult): Record<string, readonly string[]> {
  const configs: ConfigEntry[] = res.body.configs;
  return Object.fromEntries(
    configs
      .filter((c) => (c.value?.errors.length ?? 0) > 0)
      .map((c) => [c.value?.name, c.value?.errors ?? []]),
  );
}

describe("Confluent's class names", () => {
  it.each([
    [S3_CLASS, 'dev.serverlessconnect.connectors.S3SinkConnector', 'sink'],
    [DATAGEN_CLASS, 'dev.serverlessconnect.connectors.DatagenSourceConnector', 'source'],
    [
      'io.confluent.connect.jdbc.JdbcSinkConnector',
      'dev.serverlessconnect.connectors.PostgresSinkConnector',
      'sink',
    ],
    [
      'io.confluent.connect.jdbc.JdbcSourceConnector',
      'dev.serverlessconnect.connectors.PostgresSourceConnector',
      'source',
    ],
  ])('resolves %s to the built-in %s', (alias, className, type) => {
    // Act
    const descriptor = builtinRegistry().resolve(alias);

    // Assess
    expect(descriptor.className).toBe(className);
    expect(descriptor.type).toBe(type);
  });

  it.each([
    'io.confluent.connect.s3.source.S3SourceConnector',
    'io.confluent.connect.aws.dynamodb.DynamoDbSinkConnector',
    'com.trustpilot.connector.dynamodb.DynamoDBSourceConnector',
  ])('leaves %s unknown (its configs do not mean the same here)', (className) => {
    // Act
    const known = builtinRegistry().has(className);

    // Assess
    expect(known).toBe(false);
  });

  it('lists our class names, not the aliases, in GET /connector-plugins (as Connect lists classes)', async () => {
    // Prepare
    const { router } = testApi();

    // Act
    const res = await call(router, 'GET', '/connector-plugins');
    const config = await call(router, 'GET', `/connector-plugins/${S3_CLASS}/config`);

    // Assess
    const classes: string[] = res.body.map((p: { class: string }) => p.class);
    expect(classes).toContain('dev.serverlessconnect.connectors.S3SinkConnector');
    expect(classes).toContain('dev.serverlessconnect.connectors.DatagenSourceConnector');
    expect(classes).not.toContain(S3_CLASS);
    expect(classes).not.toContain(DATAGEN_CLASS);
    expect(config.status).toBe(200);
    expect(config.body.map((k: { name: string }) => k.name)).toContain('s3.bucket.name');
  });

  it.each([
    [S3_CLASS, confluentS3Sink],
    [DATAGEN_CLASS, confluentDatagen],
  ])("validates Confluent's example config for %s with no errors", async (plugin, config) => {
    // Prepare
    const { router } = testApi();

    // Act
    const res = await call(router, 'PUT', `/connector-plugins/${plugin}/config/validate`, {
      body: { name: 'pasted', ...config },
    });

    // Assess
    expect(res.status).toBe(200);
    expect(errorsByKey(res)).toEqual({});
    expect(res.body.error_count).toBe(0);
    expect(res.body.name).toBe(plugin);
  });

  it.each([
    ['s3-sink', confluentS3Sink, 'sink'],
    ['datagen', confluentDatagen, 'source'],
  ])('creates the %s connector and keeps the class name as given', async (_n, config, type) => {
    // Prepare
    const { router } = testApi();

    // Act
    const created = await call(router, 'PUT', connectorPath('pasted', '/config'), {
      body: config,
    });
    const stored = await call(router, 'GET', connectorPath('pasted', '/config'));
    const info = await call(router, 'GET', connectorPath('pasted'));

    // Assess
    expect(created.status).toBe(201);
    expect(stored.body['connector.class']).toBe(config['connector.class']);
    expect(info.body.type).toBe(type);
  });

  it('shows an unsupported key as an error on that key, and accepts keys of nobody', async () => {
    // Prepare
    const { router } = testApi();

    // Act
    const res = await call(router, 'PUT', '/connector-plugins/S3SinkConnector/config/validate', {
      body: {
        name: 'pasted',
        ...confluentS3Sink,
        'rotate.schedule.interval.ms': '3600000',
        's3.sse.customer.key': 'c2VjcmV0LWtleQ==',
        'my.team.owner': 'data-platform',
      },
    });

    // Assess
    expect(errorsByKey(res)).toEqual({
      'rotate.schedule.interval.ms': [
        "rotate.schedule.interval.ms (a configuration of Confluent's S3 sink) is not supported by this connector (only -1): objects rotate at flush.size offset boundaries and every batch is written when it completes, so no record waits for a time-based rotation",
      ],
      's3.sse.customer.key': [
        "s3.sse.customer.key (a configuration of Confluent's S3 sink) is not supported by this connector (only an empty value): objects get the bucket's default encryption: set SSE-S3 or SSE-KMS on the bucket",
      ],
    });
    expect(res.body.error_count).toBe(2);
    expect(JSON.stringify(res.body)).not.toContain('c2VjcmV0LWtleQ==');
  });

  it("refuses a create with an unsupported key with 400 and Connect's error body", async () => {
    // Prepare
    const { router } = testApi();

    // Act
    const res = await call(router, 'POST', '/connectors', {
      body: { name: 'pasted', config: { ...confluentDatagen, 'schema.filename': '/x.avsc' } },
    });
    const listed = await call(router, 'GET', '/connectors');

    // Assess
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error_code: 400,
      message: [
        'Connector configuration is invalid and contains the following 1 error(s):',
        "schema.filename (a configuration of Confluent's datagen) is not supported by this connector (only an empty value): records come from the built-in quickstarts only: set quickstart to orders, users, pageviews or sequence",
        'You can also find the above list of errors at the endpoint `/connector-plugins/{connectorType}/config/validate`',
      ].join('\n'),
    });
    expect(listed.body).toEqual([]);
  });

  it('refuses an update that adds an unsupported value of a supported key', async () => {
    // Prepare
    const { router } = testApi();
    await call(router, 'PUT', connectorPath('pasted', '/config'), { body: confluentS3Sink });

    // Act
    const res = await call(router, 'PUT', connectorPath('pasted', '/config'), {
      body: {
        ...confluentS3Sink,
        'schema.compatibility': 'BACKWARD',
      },
    });

    // Assess
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('schema.compatibility (a configuration of Confluent');
    expect(res.body.message).toContain(
      'Avro and Parquet objects rotate whenever the value schema changes',
    );
  });
});
