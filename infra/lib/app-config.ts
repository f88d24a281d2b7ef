import { DEFAULT_REPLICATION_SLOT_LAG_THRESHOLD_BYTES } from './alarms.js';
import type { CostPrices } from './cost-prices.js';
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
  /** The connectors' databases (context `databaseSecurityGroupIds`); empty: none. */
  readonly databases: AppDatabase[];
  readonly apiAuth: ApiAuthMode;
  /** `api.connectTools` (apiAuth `connect-tools` or `iam-or-connect-tools` only). */
  readonly connectTools: AppConnectTools | undefined;
  readonly publicOpenApi: boolean;
  readonly tableDeletionProtection: boolean;
  readonly dataBucketVersioned: boolean;
  readonly transactionalIdPrefix: string | undefined;
  readonly logLevel: 'error' | 'warn' | 'info' | 'debug';
  readonly logRetentionDays: number;
  /** How often the functions re-read the `/admin/loggers` levels (seconds). */
  readonly logLevelRefreshSeconds: number;
  /** The idle back-off's bound in seconds (context `sourceIdleBackoffMaxSeconds`); 0: off. */
  readonly sourceIdleBackoffMaxSeconds: number;
  /** Task metrics also per partition (sinks) and per task (sources). */
  readonly perPartitionMetrics: boolean;
  /** Overrides of the metering's prices (context `costPrices`, a JSON object); empty: none. */
  readonly costPrices: CostPrices;
  /** The Glue registries every task may use (context `glueRegistries`); empty: none. */
  readonly glueRegistries: string[];
  /** Whether they may register schemas there (context `glueAutoRegister`). */
  readonly glueAutoRegister: boolean;
  readonly enumeratorReservedConcurrency: number;
  readonly alarmEmail: string | undefined;
  /** The `ReplicationSlotLag` alarm's threshold, in bytes. */
  readonly replicationSlotLagAlarmBytes: number;
  /** `config.providers.env.param.allowlist.pattern` of the functions; undefined: none. */
  readonly configProvidersEnvAllowlistPattern: string | undefined;
  /** `config.providers.file.param.allowed.paths` of the functions; undefined: none. */
  readonly configProvidersFileAllowedPaths: string[] | undefined;
  /** Plugin module paths (relative to the app's directory) or package names. */
  readonly plugins: string[];
  /** Run the cdk-nag AwsSolutions and Serverless checks on synth. */
  readonly nag: boolean;
  /** Tags on the stack and every resource in it; empty: none. */
  readonly tags: Record<string, string>;
}

/** A database the connectors reach: its security group admits the functions on `port`. */
export interface AppDatabase {
  readonly securityGroupId: string;
  readonly port: number;
}

/** The Connect tools' settings of the default app (context keys `connectTools*`). */
export interface AppConnectTools {
  readonly credentials: 'basic' | 'bearer' | 'both';
  readonly secretArn: string | undefined;
  readonly secretKeyArn: string | undefined;
  /** The authorizer's secret cache and API Gateway's result cache, in seconds. */
  readonly cacheSeconds: number;
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

const CONNECT_TOOLS_KEYS = [
  'connectToolsCredentials',
  'connectToolsSecretArn',
  'connectToolsSecretKeyArn',
  'connectToolsCacheSeconds',
] as const;

/** The `connectTools*` keys, which only the tools modes take. */
function connectTools(get: ContextReader, apiAuth: ApiAuthMode): AppConnectTools | undefined {
  if (apiAuth !== 'connect-tools' && apiAuth !== 'iam-or-connect-tools') {
    const given = CONNECT_TOOLS_KEYS.find((key) => text(get, key) !== undefined);
    if (given !== undefined) {
      throw new Error(
        `Context ${given} needs apiAuth connect-tools or iam-or-connect-tools (got ${apiAuth})`,
      );
    }
    return undefined;
  }
  const secretArn = text(get, 'connectToolsSecretArn');
  const secretKeyArn = text(get, 'connectToolsSecretKeyArn');
  if (secretKeyArn !== undefined && secretArn === undefined) {
    throw new Error(
      'Context connectToolsSecretKeyArn is the key of connectToolsSecretArn: give both',
    );
  }
  const cacheSeconds = integer(get, 'connectToolsCacheSeconds', 60);
  if (cacheSeconds < 0 || cacheSeconds > 3600) {
    throw new Error(
      `Context connectToolsCacheSeconds must be between 0 and 3600 (got ${cacheSeconds})`,
    );
  }
  return {
    credentials: oneOf(
      get,
      'connectToolsCredentials',
      ['basic', 'bearer', 'both'] as const,
      'both',
    ),
    secretArn,
    secretKeyArn,
    cacheSeconds,
  };
}

const DATABASE_GROUP = /^(sg-[0-9a-f]+)(?::(\d+))?$/;

/**
 * Context `databaseSecurityGroupIds`: `sg-id` or `sg-id:port` (default 5432), comma-separated
 * or a JSON array.
 */
function databases(get: ContextReader): AppDatabase[] {
  return list(get, 'databaseSecurityGroupIds').map((entry) => {
    const match = DATABASE_GROUP.exec(entry);
    const port = Number(match?.[2] ?? '5432');
    if (match === null || port < 1 || port > 65_535) {
      throw new Error(
        `Context databaseSecurityGroupIds: expected sg-<id> or sg-<id>:<port 1-65535>, got ${entry}`,
      );
    }
    return { securityGroupId: match[1] ?? '', port };
  });
}

/**
 * Context `tags`: `key=value,key=value` (command line), or an object of strings (cdk.json, or
 * its JSON text on the command line). Keys and values as CloudFormation takes them.
 */
/** Context `costPrices`: a JSON object (or object) of prices, checked by the functions construct. */
function costPrices(get: ContextReader): CostPrices {
  const value = get('costPrices');
  if (value === undefined || value === null || value === '') return {};
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error('Context costPrices must be a JSON object of prices');
  }
  return parsed as CostPrices;
}

function tags(get: ContextReader): Record<string, string> {
  const value = get('tags');
  if (value === undefined || value === null || value === '') return {};
  let entries: [string, unknown][];
  if (typeof value === 'object' && !Array.isArray(value)) {
    entries = Object.entries(value);
  } else if (typeof value === 'string' && value.trim().startsWith('{')) {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new Error('Context tags must be key=value pairs or a JSON object');
    }
    entries = Object.entries(parsed);
  } else {
    entries = list(get, 'tags').map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`Context tags: expected key=value, got ${pair}`);
      return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
    });
  }
  for (const [key, v] of entries) {
    if (typeof v !== 'string')
      throw new Error(`Context tags: the value of ${key} must be a string`);
    if (key.length === 0 || key.length > 128 || key.toLowerCase().startsWith('aws:')) {
      throw new Error(`Context tags: ${key} is not a tag key (1-128 characters, not aws:...)`);
    }
    if (v.length > 256) throw new Error(`Context tags: the value of ${key} is over 256 characters`);
  }
  return Object.fromEntries(entries) as Record<string, string>;
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
  const apiAuth = oneOf(
    get,
    'apiAuth',
    ['iam', 'api-key', 'iam-and-api-key', 'connect-tools', 'iam-or-connect-tools'] as const,
    'iam',
  );
  const vpcId = text(get, 'vpcId');
  if (vpcId === undefined) {
    // Subnets, groups and endpoints belong to a VPC the app looks up (route tables, CIDR).
    for (const key of ['subnetIds', 'securityGroupIds', 'vpcEndpoints']) {
      if (text(get, key) !== undefined && !(key === 'vpcEndpoints' && !flag(get, key, false))) {
        throw new Error(`Context ${key} needs vpcId (the VPC the functions run in)`);
      }
    }
    if (list(get, 'databaseSecurityGroupIds').length > 0) {
      throw new Error(
        'Context databaseSecurityGroupIds needs vpcId: RDS and Aurora databases sit in private ' +
          'subnets, which only functions in the VPC reach (vpcId, and subnetIds for subnets ' +
          'routed to the database)',
      );
    }
  }
  const replicationSlotLagAlarmBytes = integer(
    get,
    'replicationSlotLagAlarmBytes',
    DEFAULT_REPLICATION_SLOT_LAG_THRESHOLD_BYTES,
  );
  if (replicationSlotLagAlarmBytes < 1) {
    throw new Error(
      `Context replicationSlotLagAlarmBytes must be at least 1 (got ${replicationSlotLagAlarmBytes})`,
    );
  }
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
    vpcId,
    subnetIds: list(get, 'subnetIds'),
    securityGroupIds: list(get, 'securityGroupIds'),
    vpcEndpoints: flag(get, 'vpcEndpoints', false),
    databases: databases(get),
    apiAuth,
    connectTools: connectTools(get, apiAuth),
    publicOpenApi: flag(get, 'publicOpenApi', false),
    tableDeletionProtection: flag(get, 'tableDeletionProtection', true),
    dataBucketVersioned: flag(get, 'dataBucketVersioned', false),
    transactionalIdPrefix: text(get, 'transactionalIdPrefix'),
    logLevel: oneOf(get, 'logLevel', ['error', 'warn', 'info', 'debug'] as const, 'info'),
    logRetentionDays: integer(get, 'logRetentionDays', 30),
    logLevelRefreshSeconds: integer(get, 'logLevelRefreshSeconds', 30),
    sourceIdleBackoffMaxSeconds: integer(get, 'sourceIdleBackoffMaxSeconds', 600),
    perPartitionMetrics: flag(get, 'perPartitionMetrics', false),
    costPrices: costPrices(get),
    glueRegistries: list(get, 'glueRegistries'),
    glueAutoRegister: flag(get, 'glueAutoRegister', false),
    enumeratorReservedConcurrency: integer(get, 'enumeratorReservedConcurrency', 2),
    alarmEmail: text(get, 'alarmEmail'),
    replicationSlotLagAlarmBytes,
    configProvidersEnvAllowlistPattern: text(get, 'configProvidersEnvAllowlistPattern'),
    configProvidersFileAllowedPaths:
      get('configProvidersFileAllowedPaths') === undefined
        ? undefined
        : list(get, 'configProvidersFileAllowedPaths'),
    plugins: list(get, 'plugins'),
    nag: flag(get, 'nag', true),
    tags: tags(get),
  };
}
