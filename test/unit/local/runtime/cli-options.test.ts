import { describe, expect, it } from 'vitest';
import { parseCliOptions } from '../../../../local/runtime/cli-options.js';

describe('parseCliOptions', () => {
  it('reads the flags and the environment of npm start', () => {
    // Prepare
    const argv = [
      '--memory',
      '--port',
      '9000',
      '--enumerator-interval',
      '2.5',
      '--task-budget',
      '30',
    ];
    const env = { KAFKA_BROKERS: 'a:9092, b:9092', LOG_LEVEL: 'DEBUG', S3_PORT: '0' };
    // Act
    const options = parseCliOptions(argv, env);
    // Assess
    expect(options).toMatchObject({
      memory: true,
      port: 9000,
      s3Port: 0,
      brokers: ['a:9092', 'b:9092'],
      logLevel: 'debug',
      enumeratorIntervalMs: 2_500,
      sourceBudgetMs: 30_000,
      exactlyOnceSource: true,
      dataDir: '.data',
    });
  });

  it('reads the plugin modules from --plugins, else CONNECT_PLUGINS; none by default', () => {
    // Prepare
    const env = { CONNECT_PLUGINS: 'from-env.js' };
    // Act
    const flag = parseCliOptions(['--plugins', ' ./a.ts, @acme/b ,'], env);
    const fromEnv = parseCliOptions([], env);
    const none = parseCliOptions([], {});
    // Assess
    expect(flag).toMatchObject({ plugins: ['./a.ts', '@acme/b'] });
    expect(fromEnv).toMatchObject({ plugins: ['from-env.js'] });
    expect(none).toMatchObject({ plugins: [] });
  });

  it('reads --dynamodb-endpoint (dynalite then runs elsewhere); none by default', () => {
    // Act
    const given = parseCliOptions(['--dynamodb-endpoint', 'http://127.0.0.1:8000'], {});
    const none = parseCliOptions([], {});
    // Assess
    expect(given).toMatchObject({ dynamoEndpoint: 'http://127.0.0.1:8000' });
    expect(none).not.toHaveProperty('dynamoEndpoint');
    expect(() => parseCliOptions(['--dynamodb-endpoint', 'localhost'], {})).toThrow(
      /--dynamodb-endpoint takes a URL/,
    );
  });

  it('answers help, and refuses unknown flags and bad values', () => {
    // Act + Assess
    expect(parseCliOptions(['--help'], {})).toBe('help');
    expect(() => parseCliOptions(['--nope'], {})).toThrow();
    expect(() => parseCliOptions(['--port', 'x'], {})).toThrow(/--port/);
    expect(() => parseCliOptions([], { LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(() => parseCliOptions([], { EXACTLY_ONCE_SOURCE: 'maybe' })).toThrow(
      /EXACTLY_ONCE_SOURCE/,
    );
  });
});
