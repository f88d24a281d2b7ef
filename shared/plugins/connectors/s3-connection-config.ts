/**
 * The S3 connection keys the S3 source and the S3 sink share (`s3.region`, `s3.endpoint`,
 * `s3.path.style.access` and the AWS credentials), their parsed form, and the AWS SDK S3
 * client settings of it. Imports the plugin API only (no SDK: the settings are plain data).
 */
import { ConfigDef, NonEmptyString } from 'serverless-connect/connect';
import {
  type AwsClientSettings,
  type AwsCredentials,
  awsClientSettings,
  awsConnectionOf,
  awsCredentialsConfigDef,
} from './aws-connection-config.js';

export {
  AWS_ACCESS_KEY_ID_CONFIG,
  AWS_SECRET_ACCESS_KEY_CONFIG,
} from './aws-connection-config.js';
export const S3_REGION_CONFIG = 's3.region';
export const S3_ENDPOINT_CONFIG = 's3.endpoint';
export const S3_PATH_STYLE_CONFIG = 's3.path.style.access';

/**
 * The S3 connection keys in `group`, in documentation order: region (default `us-east-1`),
 * endpoint, path-style access, then the AWS credentials. Add them with `ConfigDef.withAll`.
 */
export function s3ConnectionConfigDef(group: string): ConfigDef {
  return new ConfigDef()
    .define({
      name: S3_REGION_CONFIG,
      type: 'STRING',
      defaultValue: 'us-east-1',
      validator: new NonEmptyString(),
      importance: 'MEDIUM',
      group,
      documentation: 'The AWS region of the bucket.',
    })
    .define({
      name: S3_ENDPOINT_CONFIG,
      type: 'STRING',
      defaultValue: null,
      validator: new NonEmptyString(),
      importance: 'LOW',
      group,
      documentation:
        'The endpoint URL of an S3-compatible server (MinIO, s3rver, LocalStack), e.g. ' +
        `http://localhost:9000. Unset: AWS S3 of ${S3_REGION_CONFIG}. Path-style access is used when set.`,
    })
    .define({
      name: S3_PATH_STYLE_CONFIG,
      type: 'BOOLEAN',
      defaultValue: null,
      importance: 'LOW',
      group,
      documentation:
        'Address buckets as https://host/bucket instead of https://bucket.host. Unset: true when ' +
        `${S3_ENDPOINT_CONFIG} is set, false otherwise.`,
    })
    .withAll(awsCredentialsConfigDef(group, 'S3-compatible servers'));
}

/** The parsed S3 connection. */
export interface S3Connection {
  readonly region: string;
  /** `null` for AWS S3. */
  readonly endpoint: string | null;
  readonly pathStyle: boolean;
  /** `null` for the default credential chain. */
  readonly credentials: AwsCredentials | null;
}

/**
 * The S3 connection in parsed `values` (of a ConfigDef holding {@link s3ConnectionConfigDef}'s
 * keys): path-style access defaults to whether an endpoint is set. Throws ConfigError when only
 * one credential key is set.
 */
export function s3ConnectionOf(values: Readonly<Record<string, unknown>>): S3Connection {
  const connection = awsConnectionOf(values, {
    region: S3_REGION_CONFIG,
    endpoint: S3_ENDPOINT_CONFIG,
  });
  const pathStyle = values[S3_PATH_STYLE_CONFIG] as boolean | null | undefined;
  return {
    ...connection,
    region: String(connection.region),
    pathStyle: pathStyle ?? connection.endpoint !== null,
  };
}

/** The AWS SDK S3 client settings of a connection; assignable to `S3ClientConfig`. */
export interface S3ClientSettings extends AwsClientSettings {
  readonly region: string;
  readonly forcePathStyle: boolean;
}

/** The S3 client settings of `connection` (explicit credentials only when configured). */
export function s3ClientSettings(connection: S3Connection): S3ClientSettings {
  return {
    ...awsClientSettings(connection),
    region: connection.region,
    forcePathStyle: connection.pathStyle,
  };
}
