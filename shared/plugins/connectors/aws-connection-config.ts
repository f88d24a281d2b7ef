/**
 * The AWS connection keys every AWS connector shares: explicit credentials
 * (`aws.access.key.id` and `aws.secret.access.key`, both or neither), reading them back with
 * the region and endpoint under each connector's own key names, and the AWS SDK client
 * settings of the result. Imports the plugin API only, so any connector can use it.
 */
import { ConfigDef, ConfigError, type Password } from 'serverless-connect/connect';

export const AWS_ACCESS_KEY_ID_CONFIG = 'aws.access.key.id';
export const AWS_SECRET_ACCESS_KEY_CONFIG = 'aws.secret.access.key';

/** Explicit credentials for an AWS SDK client. */
export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/**
 * The two credential keys (STRING and PASSWORD, both defaulting to `null`, importance LOW) in
 * `group`, to add to a connector's keys with `ConfigDef.withAll`. `servers` names what explicit
 * credentials are for besides tests, in the access key's documentation (e.g.
 * `'S3-compatible servers'`).
 *
 * @example
 * const def = new ConfigDef()
 *   .define({ name: 'dynamodb.region', … })
 *   .withAll(awsCredentialsConfigDef('DynamoDB', 'local servers'));
 */
export function awsCredentialsConfigDef(group: string, servers: string): ConfigDef {
  return new ConfigDef()
    .define({
      name: AWS_ACCESS_KEY_ID_CONFIG,
      type: 'STRING',
      defaultValue: null,
      importance: 'LOW',
      group,
      documentation:
        `An explicit access key id, with ${AWS_SECRET_ACCESS_KEY_CONFIG} (both or neither), for ` +
        `${servers} and tests. Unset: the default AWS credential chain, which in AWS Lambda is ` +
        "the function's execution role (the recommended setup).",
    })
    .define({
      name: AWS_SECRET_ACCESS_KEY_CONFIG,
      type: 'PASSWORD',
      defaultValue: null,
      importance: 'LOW',
      group,
      documentation: `The secret access key that goes with ${AWS_ACCESS_KEY_ID_CONFIG}.`,
    });
}

/**
 * The explicit credentials in parsed `values` (of a ConfigDef holding
 * {@link awsCredentialsConfigDef}'s keys), `undefined` when neither key is set (an empty value
 * counts as unset). Throws ConfigError on the unset key when only one of them is set.
 */
export function awsCredentialsOf(
  values: Readonly<Record<string, unknown>>,
): AwsCredentials | undefined {
  const keyId = (values[AWS_ACCESS_KEY_ID_CONFIG] as string | null | undefined) ?? '';
  const secret = (values[AWS_SECRET_ACCESS_KEY_CONFIG] as Password | null | undefined)?.value();
  const hasKeyId = keyId !== '';
  const hasSecret = secret !== undefined && secret !== '';
  if (hasKeyId !== hasSecret) {
    const missing = hasKeyId ? AWS_SECRET_ACCESS_KEY_CONFIG : AWS_ACCESS_KEY_ID_CONFIG;
    throw new ConfigError(
      `Invalid value for configuration ${missing}: ${AWS_ACCESS_KEY_ID_CONFIG} and ${AWS_SECRET_ACCESS_KEY_CONFIG} must be set together`,
      missing,
    );
  }
  return hasKeyId && secret !== undefined
    ? { accessKeyId: keyId, secretAccessKey: secret }
    : undefined;
}

/** Where and as whom an AWS client connects. */
export interface AwsConnection {
  /** `null` for the SDK's default region. */
  readonly region: string | null;
  /** `null` for the AWS service endpoint of the region. */
  readonly endpoint: string | null;
  /** `null` for the default credential chain. */
  readonly credentials: AwsCredentials | null;
}

/** The connector's own names of its region and endpoint keys (both STRING, may be `null`). */
export interface AwsConnectionKeys {
  readonly region: string;
  readonly endpoint: string;
}

/**
 * The region and endpoint under `keys` and the credentials (see {@link awsCredentialsOf},
 * whose ConfigError this throws) in parsed `values`.
 */
export function awsConnectionOf(
  values: Readonly<Record<string, unknown>>,
  keys: AwsConnectionKeys,
): AwsConnection {
  return {
    region: (values[keys.region] as string | null | undefined) ?? null,
    endpoint: (values[keys.endpoint] as string | null | undefined) ?? null,
    credentials: awsCredentialsOf(values) ?? null,
  };
}

/** The AWS SDK client settings of an {@link AwsConnection}; assignable to any SDK client config. */
export interface AwsClientSettings {
  readonly region?: string;
  readonly endpoint?: string;
  readonly credentials?: AwsCredentials;
}

/**
 * The SDK client settings of `connection`: region and endpoint only when set, explicit
 * credentials (a copy) only when configured, so the SDK's defaults apply otherwise.
 */
export function awsClientSettings(connection: AwsConnection): AwsClientSettings {
  return {
    ...(connection.region === null ? {} : { region: connection.region }),
    ...(connection.endpoint === null ? {} : { endpoint: connection.endpoint }),
    ...(connection.credentials === null ? {} : { credentials: { ...connection.credentials } }),
  };
}
