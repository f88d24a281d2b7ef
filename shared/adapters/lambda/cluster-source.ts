/**
 * Where the sink connectors' event source mappings read from and how they authenticate, from
 * the deployment's settings (the enumerator function's environment).
 */
import type { SourceAccessConfiguration } from '@aws-sdk/client-lambda';
import { ConfigError } from '../../connect/errors.js';
import type { KafkaClusterSource } from './sink-mappings.js';

/** The deployment's Kafka authentication, as far as the mappings care. */
export type MappingAuth =
  | { readonly mode: 'none' | 'iam' }
  | {
      readonly mode: 'scram';
      readonly mechanism: 'scram-sha-256' | 'scram-sha-512';
      readonly secretArn: string;
    };

/** The raw settings, as the environment gives them. */
export interface ClusterSettings {
  /** `KAFKA_CLUSTER_ARN`: an MSK cluster; absent, the brokers are a self-managed cluster. */
  readonly clusterArn?: string | undefined;
  /**
   * `SINK_MAPPING_ACCESS_CONFIGURATIONS`: a JSON array of Lambda source access configurations
   * (`{"Type", "URI"}`: VPC subnets and security groups, a CA certificate, an auth secret).
   */
  readonly accessConfigurations?: string | undefined;
}

/** Source access configuration types that say how a mapping authenticates. */
const AUTH_TYPES = new Set([
  'BASIC_AUTH',
  'SASL_SCRAM_256_AUTH',
  'SASL_SCRAM_512_AUTH',
  'CLIENT_CERTIFICATE_TLS_AUTH',
]);

function explicitAccessConfigurations(
  json: string | undefined,
): SourceAccessConfiguration[] | undefined {
  const access = json?.trim();
  if (!access) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(access);
  } catch {
    parsed = undefined;
  }
  const valid =
    Array.isArray(parsed) &&
    parsed.every(
      (c: unknown) =>
        typeof c === 'object' &&
        c !== null &&
        typeof (c as SourceAccessConfiguration).Type === 'string' &&
        typeof (c as SourceAccessConfiguration).URI === 'string',
    );
  if (!valid) {
    throw new ConfigError(
      'SINK_MAPPING_ACCESS_CONFIGURATIONS must be a JSON array of Lambda source access configurations ({"Type", "URI"})',
      'SINK_MAPPING_ACCESS_CONFIGURATIONS',
    );
  }
  return parsed as SourceAccessConfiguration[];
}

/**
 * The mappings' access configurations: SINK_MAPPING_ACCESS_CONFIGURATIONS as given, plus, with
 * SASL/SCRAM, the secret (`SASL_SCRAM_512_AUTH` or `_256_`) unless they name an authentication
 * already. MSK IAM needs none: the mapping authenticates with the function's execution role.
 */
function accessConfigurations(
  json: string | undefined,
  auth: MappingAuth,
): SourceAccessConfiguration[] | undefined {
  const explicit = explicitAccessConfigurations(json);
  if (auth.mode !== 'scram' || explicit?.some((c) => AUTH_TYPES.has(c.Type ?? ''))) {
    return explicit;
  }
  const type = auth.mechanism === 'scram-sha-256' ? 'SASL_SCRAM_256_AUTH' : 'SASL_SCRAM_512_AUTH';
  return [{ Type: type, URI: auth.secretArn }, ...(explicit ?? [])];
}

/**
 * Where the sink mappings read from and how they authenticate: MSK when KAFKA_CLUSTER_ARN is set,
 * else the brokers (self-managed). See {@link accessConfigurations}.
 *
 * @throws ConfigError for MSK IAM without KAFKA_CLUSTER_ARN (self-managed mappings cannot use
 * IAM), or a malformed SINK_MAPPING_ACCESS_CONFIGURATIONS.
 */
export function clusterSource(
  settings: ClusterSettings,
  brokers: readonly string[],
  auth: MappingAuth,
): KafkaClusterSource {
  const arn = settings.clusterArn?.trim();
  if (!arn && auth.mode === 'iam') {
    throw new ConfigError(
      'KAFKA_AUTH=iam needs KAFKA_CLUSTER_ARN: sink mappings of a self-managed cluster cannot use MSK IAM',
      'KAFKA_CLUSTER_ARN',
    );
  }
  const configs = accessConfigurations(settings.accessConfigurations, auth);
  const access = configs === undefined ? {} : { accessConfigurations: configs };
  if (arn) return { kind: 'msk', clusterArn: arn, ...access };
  return { kind: 'self-managed', bootstrapServers: brokers, ...access };
}
