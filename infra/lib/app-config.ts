import type { ApiAuthMode } from './rest-api.js';

/**
 * The default app's settings, read from CDK context (`cdk.json` → `context`, or `-c key=value` on
 * the command line). infra/README.md documents every key.
 */
export interface AppConfig {
  readonly stackName: string;
  readonly kafkaBootstrapServers: string[];
  readonly mskClusterArn: string | undefined;
  readonly kafkaAuth: 'none' | 'scram' | 'iam';
  readonly kafkaSecretArn: string | undefined;
  readonly kafkaSecretKeyArn: string | undefined;
  readonly kafkaScramMechanism: 'SCRAM-SHA-512' | 'SCRAM-SHA-256';
  /** undefined: the construct's default (TLS for MSK or authenticated clusters). */
  readonly kafkaTls: boolean | undefined;
  /** A PEM file with the private CA of a self-managed cluster's brokers, read at synth. */
  readonly kafkaCaCertificateFile: string | undefined;
  readonly vpcId: string | undefined;
  readonly subnetIds: string[];
  readonly securityGroupIds: string[];
  readonly vpcEndpoints: boolean;
  readonly apiAuth: ApiAuthMode;
  readonly publicOpenApi: boolean;
  readonly tableDeletionProtection: boolean;
  readonly dataBucketVersioned: boolean;
  readonly transactionalIdPrefix: string | undefined;
  readonly logLevel: 'error' | 'warn' | 'info' | 'debug';
  readonly logRetentionDays: number;
  /** How often the functions re-read the `/admin/loggers` levels (seconds). */
  readonly logLevelRefreshSeconds: number;
  /** Task metrics also per partition (sinks) and per task (sources). */
  readonly perPartitionMetrics: boolean;
  readonly enumeratorReservedConcurrency: number;
  readonly alarmEmail: string | undefined;
  /** `config.providers.env.param.allowlist.pattern` of the functions; undefined: none. */
  readonly configProvidersEnvAllowlistPattern: string | undefined;
  /** `config.providers.file.param.allowed.paths` of the functions; undefined: none. */
  readonly configProvidersFileAllowedPaths: string[] | undefined;
  /** Plugin module paths (relative to the app's directory) or package names. */
  readonly plugins: string[];
  /** Run the cdk-nag AwsSolutions checks on synth. */
  readonly nag: boolean;
}

/** Reads one context value (`app.node.tryGetContext`). */
export type ContextReader = (key: string) => unknown;

function text(get: ContextReader, key: string): string | undefined {
  const value = get(key);
  if (value === undefined || value === null) return undefined;
  const s = String(value).trim();
  return s.length === 0 ? undefined : s;
}

function list(get: ContextReader, key: string): string[] {
  const value = get(key);
  const items = Array.isArray(value) ? value.map(String) : (text(get, key) ?? '').split(',');
  return items.map((s) => s.trim()).filter((s) => s.length > 0);
}

function flag(get: ContextReader, key: string, fallback: boolean): boolean {
  const value = text(get, key);
  if (value === undefined) return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new Error(`Context ${key} must be true or false (got ${value})`);
}

function integer(get: ContextReader, key: string, fallback: number): number {
  const value = text(get, key);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new Error(`Context ${key} must be an integer (got ${value})`);
  return n;
}

function oneOf<T extends string>(
  get: ContextReader,
  key: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const value = text(get, key) ?? fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new Error(`Context ${key} must be one of ${allowed.join(', ')} (got ${value})`);
  }
  return value as T;
}

/** Parses and checks the context; throws with the offending key on a bad value. */
export function readAppConfig(get: ContextReader): AppConfig {
  const kafkaBootstrapServers = list(get, 'kafkaBootstrapServers');
  if (kafkaBootstrapServers.length === 0) {
    throw new Error('Context kafkaBootstrapServers is required (host:port,host:port)');
  }
  const kafkaAuth = oneOf(get, 'kafkaAuth', ['none', 'scram', 'iam'] as const, 'none');
  const kafkaSecretArn = text(get, 'kafkaSecretArn');
  if (kafkaAuth === 'scram' && kafkaSecretArn === undefined) {
    throw new Error('Context kafkaSecretArn is required when kafkaAuth is scram');
  }
  const tls = text(get, 'kafkaTls');
  return {
    stackName: text(get, 'stackName') ?? 'ServerlessConnect',
    kafkaBootstrapServers,
    mskClusterArn: text(get, 'mskClusterArn'),
    kafkaAuth,
    kafkaSecretArn,
    kafkaSecretKeyArn: text(get, 'kafkaSecretKeyArn'),
    kafkaScramMechanism: oneOf(
      get,
      'kafkaScramMechanism',
      ['SCRAM-SHA-512', 'SCRAM-SHA-256'] as const,
      'SCRAM-SHA-512',
    ),
    kafkaTls: tls === undefined ? undefined : flag(get, 'kafkaTls', false),
    kafkaCaCertificateFile: text(get, 'kafkaCaCertificateFile'),
    vpcId: text(get, 'vpcId'),
    subnetIds: list(get, 'subnetIds'),
    securityGroupIds: list(get, 'securityGroupIds'),
    vpcEndpoints: flag(get, 'vpcEndpoints', false),
    apiAuth: oneOf(get, 'apiAuth', ['iam', 'api-key', 'iam-and-api-key'] as const, 'iam'),
    publicOpenApi: flag(get, 'publicOpenApi', false),
    tableDeletionProtection: flag(get, 'tableDeletionProtection', true),
    dataBucketVersioned: flag(get, 'dataBucketVersioned', true),
    transactionalIdPrefix: text(get, 'transactionalIdPrefix'),
    logLevel: oneOf(get, 'logLevel', ['error', 'warn', 'info', 'debug'] as const, 'info'),
    logRetentionDays: integer(get, 'logRetentionDays', 30),
    logLevelRefreshSeconds: integer(get, 'logLevelRefreshSeconds', 30),
    perPartitionMetrics: flag(get, 'perPartitionMetrics', false),
    enumeratorReservedConcurrency: integer(get, 'enumeratorReservedConcurrency', 2),
    alarmEmail: text(get, 'alarmEmail'),
    configProvidersEnvAllowlistPattern: text(get, 'configProvidersEnvAllowlistPattern'),
    configProvidersFileAllowedPaths:
      get('configProvidersFileAllowedPaths') === undefined
        ? undefined
        : list(get, 'configProvidersFileAllowedPaths'),
    plugins: list(get, 'plugins'),
    nag: flag(get, 'nag', true),
  };
}
