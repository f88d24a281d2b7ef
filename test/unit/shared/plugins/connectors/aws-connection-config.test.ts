import { describe, expect, it } from 'vitest';
import { ConfigDef } from '../../../../../shared/connect/config-def.js';
import { ConfigError } from '../../../../../shared/connect/errors.js';
import {
  awsClientSettings,
  awsConnectionOf,
  awsCredentialsConfigDef,
  awsCredentialsOf,
} from '../../../../../shared/plugins/connectors/aws-connection-config.js';

const KEYS = { region: 'x.region', endpoint: 'x.endpoint' };

function defWithConnection(): ConfigDef {
  return new ConfigDef()
    .define({
      name: KEYS.region,
      type: 'STRING',
      defaultValue: null,
      importance: 'MEDIUM',
      group: 'X',
      documentation: 'The region.',
    })
    .define({
      name: KEYS.endpoint,
      type: 'STRING',
      defaultValue: null,
      importance: 'LOW',
      group: 'X',
      documentation: 'The endpoint.',
    })
    .withAll(awsCredentialsConfigDef('X', 'X-compatible servers'));
}

function credentialsError(props: Record<string, string>): ConfigError {
  const values = defWithConnection().parse(props);
  try {
    awsCredentialsOf(values);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('awsCredentialsConfigDef', () => {
  it('defines the two optional credential keys in the given group, the secret hidden', () => {
    // Act
    const keys = [...awsCredentialsConfigDef('S3', 'S3-compatible servers').configKeys().values()];

    // Assess
    expect(
      keys.map((k) => [k.name, k.type, k.defaultValue, k.importance, k.group, k.documentation]),
    ).toEqual([
      [
        'aws.access.key.id',
        'STRING',
        null,
        'LOW',
        'S3',
        'An explicit access key id, with aws.secret.access.key (both or neither), for ' +
          'S3-compatible servers and tests. Unset: the default AWS credential chain, which in AWS ' +
          "Lambda is the function's execution role (the recommended setup).",
      ],
      [
        'aws.secret.access.key',
        'PASSWORD',
        null,
        'LOW',
        'S3',
        'The secret access key that goes with aws.access.key.id.',
      ],
    ]);
  });
});

describe('awsCredentialsOf', () => {
  it('returns the credentials when both keys are set', () => {
    // Prepare
    const values = defWithConnection().parse({
      'aws.access.key.id': 'AKIA',
      'aws.secret.access.key': 's3cret',
    });

    // Act
    const credentials = awsCredentialsOf(values);

    // Assess
    expect(credentials).toEqual({ accessKeyId: 'AKIA', secretAccessKey: 's3cret' });
  });

  it('returns undefined when neither key is set or both are empty', () => {
    // Prepare
    const unset = defWithConnection().parse({});
    const empty = defWithConnection().parse({
      'aws.access.key.id': '',
      'aws.secret.access.key': '',
    });

    // Act
    const results = [awsCredentialsOf(unset), awsCredentialsOf(empty)];

    // Assess
    expect(results).toEqual([undefined, undefined]);
  });

  it.each([
    [{ 'aws.access.key.id': 'AKIA' }, 'aws.secret.access.key'],
    [{ 'aws.access.key.id': 'AKIA', 'aws.secret.access.key': '' }, 'aws.secret.access.key'],
    [{ 'aws.secret.access.key': 's3cret' }, 'aws.access.key.id'],
  ])('rejects %o on the unset key %s', (props, key) => {
    // Act
    const error = credentialsError(props);

    // Assess
    expect(error.key).toBe(key);
    expect(error.message).toBe(
      `Invalid value for configuration ${key}: aws.access.key.id and aws.secret.access.key must be set together`,
    );
  });
});

describe('awsConnectionOf', () => {
  it("reads the region and endpoint under the connector's key names, with the credentials", () => {
    // Prepare
    const values = defWithConnection().parse({
      'x.region': 'eu-west-1',
      'x.endpoint': 'http://localhost:4566',
      'aws.access.key.id': 'id',
      'aws.secret.access.key': 'secret',
    });

    // Act
    const connection = awsConnectionOf(values, KEYS);

    // Assess
    expect(connection).toEqual({
      region: 'eu-west-1',
      endpoint: 'http://localhost:4566',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
    });
  });

  it('gives null for every unset part', () => {
    // Act
    const connection = awsConnectionOf(defWithConnection().parse({}), KEYS);

    // Assess
    expect(connection).toEqual({ region: null, endpoint: null, credentials: null });
  });
});

describe('awsClientSettings', () => {
  it('passes region, endpoint and a copy of the credentials when set', () => {
    // Prepare
    const credentials = { accessKeyId: 'id', secretAccessKey: 'secret' };

    // Act
    const settings = awsClientSettings({
      region: 'eu-west-1',
      endpoint: 'http://localhost:8000',
      credentials,
    });

    // Assess
    expect(settings).toEqual({
      region: 'eu-west-1',
      endpoint: 'http://localhost:8000',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
    });
    expect(settings.credentials).not.toBe(credentials);
  });

  it("leaves everything unset to the SDK's defaults", () => {
    // Act
    const settings = awsClientSettings({ region: null, endpoint: null, credentials: null });

    // Assess
    expect(settings).toEqual({});
    expect(Object.keys(settings)).toEqual([]);
  });
});
