import { describe, expect, it } from 'vitest';
import { readEnv } from '../../../functions/_env.js';
import { ConfigError } from '../../../shared/connect/errors.js';

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:AmazonMSK_connect-AbCdEf';
const base = { STATE_TABLE: 'state', KAFKA_BROKERS: 'b-1:9092, b-2:9092' };

/** The ConfigError `readEnv` throws for `env`, or a failure when it throws none. */
function configErrorOf(env: NodeJS.ProcessEnv): ConfigError {
  try {
    readEnv(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('readEnv accepted the environment');
}

describe('readEnv', () => {
  it('defaults to no authentication and plaintext', () => {
    const env = readEnv(base);

    expect(env.kafkaAuth).toEqual({ mode: 'none' });
    expect(env.kafkaSsl).toBe(false);
    expect(env.kafkaBrokers).toEqual(['b-1:9092', 'b-2:9092']);
  });

  it('reads SASL/SCRAM with SCRAM-SHA-512 by default and turns TLS on', () => {
    const env = readEnv({ ...base, KAFKA_AUTH: 'scram', KAFKA_SASL_SECRET_ARN: SECRET_ARN });

    expect(env.kafkaAuth).toEqual({
      mode: 'scram',
      mechanism: 'scram-sha-512',
      secretArn: SECRET_ARN,
    });
    expect(env.kafkaSsl).toBe(true);
  });

  it('reads SCRAM-SHA-256 and keeps plaintext when KAFKA_SSL says so (self-managed SASL_PLAINTEXT)', () => {
    const env = readEnv({
      ...base,
      KAFKA_AUTH: 'SCRAM',
      KAFKA_SASL_MECHANISM: 'SCRAM-SHA-256',
      KAFKA_SASL_SECRET_ARN: SECRET_ARN,
      KAFKA_SSL: 'false',
    });

    expect(env.kafkaAuth).toEqual({
      mode: 'scram',
      mechanism: 'scram-sha-256',
      secretArn: SECRET_ARN,
    });
    expect(env.kafkaSsl).toBe(false);
  });

  it('reads MSK IAM as the CDK app sets it, with TLS', () => {
    const env = readEnv({
      ...base,
      KAFKA_AUTH: 'iam',
      KAFKA_SASL_MECHANISM: 'oauthbearer',
      KAFKA_SSL: 'true',
    });

    expect(env.kafkaAuth).toEqual({ mode: 'iam' });
    expect(env.kafkaSsl).toBe(true);
  });

  it('turns TLS on for MSK IAM when KAFKA_SSL is unset', () => {
    expect(readEnv({ ...base, KAFKA_AUTH: 'iam' }).kafkaSsl).toBe(true);
  });

  it.each([
    [
      { KAFKA_AUTH: 'kerberos' },
      'KAFKA_AUTH',
      /KAFKA_AUTH must be one of none, scram, iam \(got kerberos\)/,
    ],
    [
      { KAFKA_AUTH: 'scram' },
      'KAFKA_SASL_SECRET_ARN',
      /KAFKA_AUTH=scram needs KAFKA_SASL_SECRET_ARN/,
    ],
    [
      { KAFKA_AUTH: 'scram', KAFKA_SASL_SECRET_ARN: 'AmazonMSK_connect' },
      'KAFKA_SASL_SECRET_ARN',
      /must be the ARN of a Secrets Manager secret/,
    ],
    [
      { KAFKA_AUTH: 'scram', KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_SECRET_ARN: SECRET_ARN },
      'KAFKA_SASL_MECHANISM',
      /must be one of scram-sha-512, scram-sha-256 with KAFKA_AUTH=scram \(got plain\)/,
    ],
    [
      { KAFKA_AUTH: 'iam', KAFKA_SASL_MECHANISM: 'scram-sha-512' },
      'KAFKA_SASL_MECHANISM',
      /must be oauthbearer with KAFKA_AUTH=iam/,
    ],
    [{ KAFKA_AUTH: 'iam', KAFKA_SSL: 'false' }, 'KAFKA_SSL', /MSK IAM access control requires TLS/],
    [
      { KAFKA_AUTH: 'iam', KAFKA_SASL_SECRET_ARN: SECRET_ARN },
      'KAFKA_SASL_SECRET_ARN',
      /only used with KAFKA_AUTH=scram/,
    ],
    [
      { KAFKA_SASL_MECHANISM: 'scram-sha-512' },
      'KAFKA_SASL_MECHANISM',
      /KAFKA_AUTH is none; set KAFKA_AUTH to scram or iam/,
    ],
    [{ KAFKA_SSL: 'yes' }, 'KAFKA_SSL', /KAFKA_SSL must be true or false \(got yes\)/],
  ])('refuses %o, naming %s', (vars, key, message) => {
    const error = configErrorOf({ ...base, ...vars });

    expect(error.key).toBe(key);
    expect(error.message).toMatch(message);
    expect(error.retriable).toBe(false);
  });
});

describe('readEnv idle back-off', () => {
  it('bounds the idle back-off at 10 minutes unless SOURCE_IDLE_BACKOFF_MAX_SECONDS says otherwise', () => {
    expect(readEnv(base).sourceIdleBackoffMaxMs).toBe(600_000);
    expect(readEnv({ ...base, SOURCE_IDLE_BACKOFF_MAX_SECONDS: '0' }).sourceIdleBackoffMaxMs).toBe(
      0,
    );
    expect(() => readEnv({ ...base, SOURCE_IDLE_BACKOFF_MAX_SECONDS: '1.5' })).toThrow(
      /SOURCE_IDLE_BACKOFF_MAX_SECONDS must be a whole number of seconds/,
    );
  });
});

describe('readEnv metrics and log level settings', () => {
  it('defaults to the bare namespace, per-connector metrics and a 30 s log level refresh', () => {
    expect(readEnv(base)).toMatchObject({
      metricsNamespace: 'ServerlessConnect',
      metricsPerPartition: false,
      logLevelRefreshMs: 30_000,
    });
  });

  it('reads the namespace, per-partition metrics and the refresh the stack sets', () => {
    const env = readEnv({
      ...base,
      METRICS_NAMESPACE: 'ServerlessConnect/prod',
      METRICS_PER_PARTITION: 'true',
      LOG_LEVEL_REFRESH_SECONDS: '0',
    });

    expect(env).toMatchObject({
      metricsNamespace: 'ServerlessConnect/prod',
      metricsPerPartition: true,
      logLevelRefreshMs: 0,
    });
  });

  it('refuses a refresh that is not a whole number of seconds', () => {
    expect(configErrorOf({ ...base, LOG_LEVEL_REFRESH_SECONDS: '2.5' }).message).toBe(
      'LOG_LEVEL_REFRESH_SECONDS must be a whole number of seconds (got 2.5)',
    );
  });
});
