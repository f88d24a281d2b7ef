import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../../../shared/connect/errors.js';
import {
  decodePrefixes,
  encodePrefixes,
  parseS3SourceConfig,
  parseS3SourceTaskConfig,
  S3_SOURCE_CONFIG_DEF,
  s3ClientConfigOf,
  s3SourceTaskConfigs,
} from '../../../../../../shared/plugins/connectors/s3-source/s3-source-config.js';

const base = { 's3.bucket.name': 'logs', topic: 'lines' };

function configError(props: Record<string, string>): ConfigError {
  try {
    parseS3SourceConfig(props);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseS3SourceConfig', () => {
  it('applies the documented defaults', () => {
    // Act
    const config = parseS3SourceConfig(base);

    // Assess
    expect(config).toEqual({
      bucket: 'logs',
      prefix: '',
      region: 'us-east-1',
      endpoint: null,
      pathStyle: false,
      credentials: null,
      topic: 'lines',
      format: 'text',
      compression: 'auto',
      batchMaxRows: 500,
      pollIntervalMs: 10_000,
    });
  });

  it('parses every key, case-insensitively for format and compression', () => {
    // Act
    const config = parseS3SourceConfig({
      ...base,
      's3.prefix': 'app/',
      's3.region': 'eu-west-1',
      format: 'JSONL',
      'file.compression': 'Gzip',
      'batch.max.rows': '10',
      's3.poll.interval.ms': '250',
    });

    // Assess
    expect(config).toMatchObject({
      prefix: 'app/',
      region: 'eu-west-1',
      format: 'jsonl',
      compression: 'gzip',
      batchMaxRows: 10,
      pollIntervalMs: 250,
    });
  });

  it('uses path-style access when an endpoint is set, unless told otherwise', () => {
    // Act
    const withEndpoint = parseS3SourceConfig({ ...base, 's3.endpoint': 'http://127.0.0.1:9000' });
    const explicit = parseS3SourceConfig({
      ...base,
      's3.endpoint': 'http://127.0.0.1:9000',
      's3.path.style.access': 'false',
    });
    const awsPathStyle = parseS3SourceConfig({ ...base, 's3.path.style.access': 'true' });

    // Assess
    expect(withEndpoint.pathStyle).toBe(true);
    expect(explicit.pathStyle).toBe(false);
    expect(awsPathStyle.pathStyle).toBe(true);
  });

  it('fails with Kafka wording when a required key is missing', () => {
    // Act
    const noBucket = configError({ topic: 'lines' });
    const noTopic = configError({ 's3.bucket.name': 'logs' });

    // Assess
    expect(noBucket.message).toBe(
      'Missing required configuration "s3.bucket.name" which has no default value.',
    );
    expect(noBucket.key).toBe('s3.bucket.name');
    expect(noTopic.key).toBe('topic');
  });

  it('rejects an unknown format, compression or a batch size below 1', () => {
    // Act
    const format = configError({ ...base, format: 'csv' });
    const compression = configError({ ...base, 'file.compression': 'zstd' });
    const batch = configError({ ...base, 'batch.max.rows': '0' });

    // Assess
    expect(format.message).toContain('Invalid value csv for configuration format');
    expect(compression.key).toBe('file.compression');
    expect(batch.message).toContain('Value must be at least 1');
  });

  it('requires the access key id and the secret together', () => {
    // Act
    const onlyId = configError({ ...base, 'aws.access.key.id': 'AKIA' });
    const onlySecret = configError({ ...base, 'aws.secret.access.key': 's3cret' });
    const both = parseS3SourceConfig({
      ...base,
      'aws.access.key.id': 'AKIA',
      'aws.secret.access.key': 's3cret',
    });

    // Assess
    expect(onlyId.key).toBe('aws.secret.access.key');
    expect(onlySecret.key).toBe('aws.access.key.id');
    expect(both.credentials).toEqual({ accessKeyId: 'AKIA', secretAccessKey: 's3cret' });
  });

  it('hides the secret in validation results', () => {
    // Act
    const values = S3_SOURCE_CONFIG_DEF.validate({ ...base, 'aws.secret.access.key': 's3cret' });

    // Assess
    const secret = values.find((v) => v.name === 'aws.secret.access.key');
    expect(String(secret?.value)).toBe('[hidden]');
    expect(JSON.stringify(values)).not.toContain('s3cret');
  });
});

describe('s3ClientConfigOf', () => {
  it('builds an SDK config with endpoint, path style and explicit credentials', () => {
    // Prepare
    const config = parseS3SourceConfig({
      ...base,
      's3.endpoint': 'http://127.0.0.1:4569',
      'aws.access.key.id': 'S3RVER',
      'aws.secret.access.key': 'S3RVER',
    });

    // Act
    const sdk = s3ClientConfigOf(config);

    // Assess
    expect(sdk).toEqual({
      region: 'us-east-1',
      forcePathStyle: true,
      endpoint: 'http://127.0.0.1:4569',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
  });

  it('leaves credentials and endpoint to the SDK defaults on AWS', () => {
    // Act
    const sdk = s3ClientConfigOf(parseS3SourceConfig(base));

    // Assess
    expect(sdk).toEqual({ region: 'us-east-1', forcePathStyle: false });
  });
});

describe('encodePrefixes', () => {
  it('round-trips any list of prefixes through the task config (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 6 }),
        (prefixes) => {
          // Act
          const encoded = encodePrefixes(prefixes);

          // Assess
          expect(decodePrefixes(encoded)).toEqual(prefixes);
          expect(encoded.trim()).toBe(encoded);
        },
      ),
    );
  });

  it('keeps ordinary prefixes readable', () => {
    // Assess
    expect(encodePrefixes(['logs/a/', 'logs/b c/', 'x,y%'])).toBe('logs/a/,logs/b%20c/,x%2Cy%25');
  });
});

describe('parseS3SourceTaskConfig', () => {
  it('reads the whole prefix when the task keys are unset', () => {
    // Act
    const task = parseS3SourceTaskConfig({ ...base, 's3.prefix': 'app/' });

    // Assess
    expect(task.prefixes).toEqual(['app/']);
    expect(task.rootObjects).toBe(false);
  });

  it('decodes the assigned prefixes, the empty prefix included', () => {
    // Act
    const split = parseS3SourceTaskConfig({
      ...base,
      'task.prefixes': 'app/a/,app/b%2Cc/',
      'task.root.objects': 'true',
    });
    const whole = parseS3SourceTaskConfig({ ...base, 'task.prefixes': '' });

    // Assess
    expect(split.prefixes).toEqual(['app/a/', 'app/b,c/']);
    expect(split.rootObjects).toBe(true);
    expect(whole.prefixes).toEqual(['']);
  });

  it('rejects a malformed prefix list', () => {
    // Act
    const parse = () => parseS3SourceTaskConfig({ ...base, 'task.prefixes': 'a/%ZZ' });

    // Assess
    expect(parse).toThrow(ConfigError);
  });
});

describe('s3SourceTaskConfigs', () => {
  const config = parseS3SourceConfig({ ...base, 's3.prefix': 'app/' });

  it('deals the directories round-robin and gives the root objects to the first task', () => {
    // Act
    const tasks = s3SourceTaskConfigs(base, config, ['app/c/', 'app/a/', 'app/b/', 'app/d/'], 3);

    // Assess
    expect(tasks.map((t) => [t['task.prefixes'], t['task.root.objects']])).toEqual([
      ['app/a/,app/d/', 'true'],
      ['app/b/', 'false'],
      ['app/c/', 'false'],
    ]);
    expect(tasks[1]).toMatchObject(base);
  });

  it('creates no more tasks than directories', () => {
    // Act
    const tasks = s3SourceTaskConfigs(base, config, ['app/a/', 'app/b/'], 8);

    // Assess
    expect(tasks).toHaveLength(2);
  });

  it('gives the whole prefix to one task when there are no directories', () => {
    // Act
    const tasks = s3SourceTaskConfigs(base, config, [], 4);

    // Assess
    expect(tasks).toEqual([{ ...base, 'task.prefixes': 'app/', 'task.root.objects': 'false' }]);
    expect(parseS3SourceTaskConfig(tasks[0] ?? {}).prefixes).toEqual(['app/']);
  });

  it('assigns every directory to exactly one task (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.string({ minLength: 1 }).map((s) => `app/${s}/`),
          { maxLength: 30 },
        ),
        fc.integer({ min: 1, max: 10 }),
        (directories, maxTasks) => {
          // Act
          const tasks = s3SourceTaskConfigs(base, config, directories, maxTasks);

          // Assess
          const assigned = tasks.flatMap((t) => parseS3SourceTaskConfig(t).prefixes);
          const expected = directories.length === 0 ? ['app/'] : directories;
          expect([...assigned].sort()).toEqual([...expected].sort());
          expect(tasks.length).toBeLessThanOrEqual(Math.max(1, maxTasks));
        },
      ),
    );
  });
});
