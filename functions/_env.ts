import { isAbsolute } from 'node:path';
import type { ConfigProviderSettings } from '../shared/adapters/config-providers/defaults.js';
import {
  compileAllowlist,
  LAMBDA_RESERVED_VARIABLES,
} from '../shared/adapters/config-providers/env-provider.js';
import type { KafkaAuthSettings, ScramMechanism } from '../shared/adapters/kafkajs/auth.js';
import { ConfigError } from '../shared/connect/errors.js';
import { type PriceTable, priceTableOf } from '../shared/runtime/metering/prices.js';
import { DEFAULT_IDLE_BACKOFF } from '../shared/runtime/task/idle-backoff.js';

/** The environment every function reads, typed. Set by the CDK app, or by the local runtime. */
export interface FunctionEnv {
  /** DynamoDB table holding configs, offsets and status. */
  readonly stateTable: string;
  /** `host:port,host:port`. */
  readonly kafkaBrokers: string[];
  /**
   * TLS to the brokers (`KAFKA_SSL`, `true` or `false`). Default: on with SASL (`KAFKA_AUTH` scram
   * or iam), off without; MSK IAM requires it.
   */
  readonly kafkaSsl: boolean;
  /** How the Kafka clients authenticate: `KAFKA_AUTH`, `KAFKA_SASL_MECHANISM`, `KAFKA_SASL_SECRET_ARN`. */
  readonly kafkaAuth: KafkaAuthSettings;
  readonly transactionalIdPrefix: string;
  readonly offsetsTopic: string;
  /** A DynamoDB endpoint override (local runtime: dynalite). */
  readonly dynamoEndpoint: string | undefined;
  readonly region: string;
  readonly logLevel: 'error' | 'warn' | 'info' | 'debug';
  /**
   * `LOG_LEVEL_REFRESH_SECONDS` (default 30): a function re-reads the `/admin/loggers` levels at
   * its first invocation, then at the start of an invocation when this long has passed.
   */
  readonly logLevelRefreshMs: number;
  /** `METRICS_NAMESPACE`: the CloudWatch namespace of the EMF metrics (`ServerlessConnect/<stack>`). */
  readonly metricsNamespace: string;
  /**
   * `METRICS_PER_PARTITION` (`true` | `false`, default false): besides `{Connector}`, publish the
   * task metrics per partition (sinks: `{Connector, Topic, Partition}`) and per task (sources:
   * `{Connector, Task}`). CloudWatch bills each metric of each dimension set.
   */
  readonly metricsPerPartition: boolean;
  /** Kafka Connect's `exactly.once.source.support`: `enabled` (default) or `disabled`. */
  readonly exactlyOnceSource: boolean;
  /**
   * `SOURCE_IDLE_BACKOFF_MAX_SECONDS` (whole seconds, default 600, 0 = off): the most the idle
   * back-off may add to an idle source task's dispatch latency (shared/runtime/task/idle-backoff.ts).
   */
  readonly sourceIdleBackoffMaxMs: number;
  /** The enumerator function the REST API nudges after each write; unset: no nudges. */
  readonly enumeratorFunction: string | undefined;
  /** Kafka Connect's active topic tracking settings (KIP-558); see {@link readTopicTracking}. */
  readonly topicTracking: TopicTrackingSettings;
  /** `SOURCE_TASK_FUNCTION`: the function the enumerator invokes per source task (enumerator only). */
  readonly sourceTaskFunction: string | undefined;
  /** `SINK_TASK_FUNCTION`: the function the sink mappings invoke (enumerator only). */
  readonly sinkTaskFunction: string | undefined;
  /** `KAFKA_CLUSTER_ARN`: an MSK cluster the sink mappings read; unset, the brokers are self-managed. */
  readonly kafkaClusterArn: string | undefined;
  /** `SINK_MAPPING_ACCESS_CONFIGURATIONS`: JSON source access configurations of the mappings. */
  readonly sinkMappingAccessConfigurations: string | undefined;
  /** `KAFKA_CLUSTER_ID`: `kafka_cluster_id` of `GET /` (`unknown` when unset). */
  readonly kafkaClusterId: string;
  /** `BUILD_COMMIT`: `commit` of `GET /` (`unknown` when unset). */
  readonly buildCommit: string;
  /** `AWS_LAMBDA_FUNCTION_NAME`, the worker id of the function's writes. */
  readonly functionName: string;
  /** The `env` and `file` config providers' limits; see {@link readConfigProviderSettings}. */
  readonly configProviders: ConfigProviderSettings;
  /**
   * `COST_PRICES`: a JSON object overriding prices of the metering's price table (the cost
   * endpoint, the `EstimatedCost` metric); unset: us-east-1 list prices, arm64
   * (`DEFAULT_PRICES`, docs/deploy.md).
   */
  readonly prices: PriceTable;
}

/**
 * The variables holding Kafka Connect's worker settings `config.providers.env.param.allowlist.pattern`
 * and `config.providers.file.param.allowed.paths` (upper case, `_` for `.`), read by the
 * functions and by `npm start`.
 */
export const CONFIG_PROVIDER_VARIABLES = {
  envAllowlistPattern: 'CONFIG_PROVIDERS_ENV_PARAM_ALLOWLIST_PATTERN',
  fileAllowedPaths: 'CONFIG_PROVIDERS_FILE_PARAM_ALLOWED_PATHS',
} as const;

/**
 * In Lambda, unless the operator sets them: no environment variable and no file may be read
 * through a placeholder (the functions' environment holds the deployment's own settings and the
 * role's credentials; secrets belong in `${secretsmanager:...}` or `${ssm:...}`), and Lambda's
 * reserved variables (`AWS_*`, `_*`, `LAMBDA_*`, `TZ`) never, whatever the allowlist says.
 */
export const LAMBDA_CONFIG_PROVIDER_DEFAULTS: ConfigProviderSettings = {
  envAllowlistPattern: '',
  fileAllowedPaths: [],
  reservedVariables: LAMBDA_RESERVED_VARIABLES,
};

/** Kafka Connect's worker settings `topic.tracking.enable` and `topic.tracking.allow.reset`. */
export interface TopicTrackingSettings {
  /**
   * `TOPIC_TRACKING_ENABLE` (`true` | `false`, default true): false, tasks record no topics and
   * `GET`/`PUT /connectors/{c}/topics…` answer 403.
   */
  readonly enabled: boolean;
  /** `TOPIC_TRACKING_ALLOW_RESET` (`true` | `false`, default true): false, the reset answers 403. */
  readonly allowReset: boolean;
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new ConfigError(`Missing required environment variable ${name}`, name);
  return value;
}

function optional(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return env[name]?.trim() || undefined;
}

const AUTH_MODES = ['none', 'scram', 'iam'] as const;
const SCRAM_MECHANISMS: readonly ScramMechanism[] = ['scram-sha-512', 'scram-sha-256'];
/** A Secrets Manager secret ARN (Lambda's SASL_SCRAM source access configurations need the ARN). */
const SECRET_ARN = /^arn:[^:]+:secretsmanager:[^:]*:\d*:secret:.+$/;

/**
 * `KAFKA_AUTH` (none | scram | iam, default none) with its `KAFKA_SASL_MECHANISM` and
 * `KAFKA_SASL_SECRET_ARN`. A variable that does not apply to the mode is refused rather than
 * ignored: it means the deployment is not what its author thinks.
 */
export function readKafkaAuth(env: NodeJS.ProcessEnv): KafkaAuthSettings {
  const mode = (optional(env, 'KAFKA_AUTH') ?? 'none').toLowerCase();
  const mechanism = optional(env, 'KAFKA_SASL_MECHANISM')?.toLowerCase();
  const secretArn = optional(env, 'KAFKA_SASL_SECRET_ARN');
  if (!(AUTH_MODES as readonly string[]).includes(mode)) {
    throw new ConfigError(
      `KAFKA_AUTH must be one of ${AUTH_MODES.join(', ')} (got ${mode})`,
      'KAFKA_AUTH',
    );
  }
  if (mode !== 'scram' && secretArn !== undefined) {
    throw new ConfigError(
      `KAFKA_SASL_SECRET_ARN is only used with KAFKA_AUTH=scram (KAFKA_AUTH is ${mode})`,
      'KAFKA_SASL_SECRET_ARN',
    );
  }
  if (mode === 'none') {
    if (mechanism !== undefined) {
      throw new ConfigError(
        `KAFKA_SASL_MECHANISM is set (${mechanism}) but KAFKA_AUTH is none; set KAFKA_AUTH to scram or iam`,
        'KAFKA_SASL_MECHANISM',
      );
    }
    return { mode: 'none' };
  }
  if (mode === 'iam') {
    if (mechanism !== undefined && mechanism !== 'oauthbearer') {
      throw new ConfigError(
        `KAFKA_SASL_MECHANISM must be oauthbearer with KAFKA_AUTH=iam (got ${mechanism})`,
        'KAFKA_SASL_MECHANISM',
      );
    }
    return { mode: 'iam' };
  }
  const scram = (mechanism ?? 'scram-sha-512') as ScramMechanism;
  if (!SCRAM_MECHANISMS.includes(scram)) {
    throw new ConfigError(
      `KAFKA_SASL_MECHANISM must be one of ${SCRAM_MECHANISMS.join(', ')} with KAFKA_AUTH=scram (got ${mechanism})`,
      'KAFKA_SASL_MECHANISM',
    );
  }
  if (secretArn === undefined) {
    throw new ConfigError(
      'KAFKA_AUTH=scram needs KAFKA_SASL_SECRET_ARN, the ARN of a Secrets Manager secret holding {"username", "password"}',
      'KAFKA_SASL_SECRET_ARN',
    );
  }
  if (!SECRET_ARN.test(secretArn)) {
    throw new ConfigError(
      `KAFKA_SASL_SECRET_ARN must be the ARN of a Secrets Manager secret (got ${secretArn})`,
      'KAFKA_SASL_SECRET_ARN',
    );
  }
  return { mode: 'scram', mechanism: scram, secretArn };
}

/** A `true` | `false` variable (any case); `fallback` when unset or empty. */
function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const value = optional(env, name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (value !== 'true' && value !== 'false') {
    throw new ConfigError(`${name} must be true or false (got ${value})`, name);
  }
  return value === 'true';
}

/**
 * `TOPIC_TRACKING_ENABLE` and `TOPIC_TRACKING_ALLOW_RESET`, Connect's `topic.tracking.enable`
 * and `topic.tracking.allow.reset` (both default true). Read by the functions and by `npm start`.
 */
export function readTopicTracking(env: NodeJS.ProcessEnv): TopicTrackingSettings {
  return {
    enabled: flag(env, 'TOPIC_TRACKING_ENABLE', true),
    allowReset: flag(env, 'TOPIC_TRACKING_ALLOW_RESET', true),
  };
}

/**
 * `CONFIG_PROVIDERS_ENV_PARAM_ALLOWLIST_PATTERN` (a regex the whole variable name must match)
 * and `CONFIG_PROVIDERS_FILE_PARAM_ALLOWED_PATHS` (absolute directories, comma-separated) over
 * `defaults`. A variable that is set wins even when empty (an empty pattern or list allows
 * nothing). Throws {@link ConfigError} naming the variable on a bad regex or a relative path.
 */
export function readConfigProviderSettings(
  env: NodeJS.ProcessEnv,
  defaults: ConfigProviderSettings,
): ConfigProviderSettings {
  const { envAllowlistPattern: patternVar, fileAllowedPaths: pathsVar } = CONFIG_PROVIDER_VARIABLES;
  const pattern = env[patternVar];
  if (pattern !== undefined) {
    try {
      compileAllowlist(pattern);
    } catch (error) {
      const message = `${patternVar} must be a regular expression (got ${pattern})`;
      throw new ConfigError(message, patternVar, { cause: error });
    }
  }
  const given = env[pathsVar];
  const paths = given
    ?.split(',')
    .map((path) => path.trim())
    .filter((path) => path.length > 0);
  const relative = paths?.find((path) => !isAbsolute(path));
  if (relative !== undefined) {
    throw new ConfigError(
      `${pathsVar} takes absolute directories, comma-separated (got ${relative})`,
      pathsVar,
    );
  }
  return {
    ...defaults,
    envAllowlistPattern: pattern ?? defaults.envAllowlistPattern,
    fileAllowedPaths: paths ?? defaults.fileAllowedPaths,
  };
}

/** A variable holding a whole number of seconds, at least 0, in ms; `fallbackMs` when unset. */
export function wholeSecondsMs(env: NodeJS.ProcessEnv, name: string, fallbackMs: number): number {
  const value = optional(env, name);
  if (value === undefined) return fallbackMs;
  if (!/^\d+$/.test(value)) {
    throw new ConfigError(`${name} must be a whole number of seconds (got ${value})`, name);
  }
  return Number(value) * 1_000;
}

/** `LOG_LEVEL_REFRESH_SECONDS`: a whole number of seconds, at least 0 (default 30). */
function readLogLevelRefreshMs(env: NodeJS.ProcessEnv): number {
  return wholeSecondsMs(env, 'LOG_LEVEL_REFRESH_SECONDS', 30_000);
}

/** `KAFKA_SSL`: true or false; unset, on exactly when the clients authenticate. */
function readKafkaSsl(env: NodeJS.ProcessEnv, auth: KafkaAuthSettings): boolean {
  const value = optional(env, 'KAFKA_SSL')?.toLowerCase();
  if (value !== undefined && value !== 'true' && value !== 'false') {
    throw new ConfigError(`KAFKA_SSL must be true or false (got ${value})`, 'KAFKA_SSL');
  }
  const ssl = value === undefined ? auth.mode !== 'none' : value === 'true';
  if (auth.mode === 'iam' && !ssl) {
    throw new ConfigError(
      'KAFKA_SSL cannot be false with KAFKA_AUTH=iam: MSK IAM access control requires TLS',
      'KAFKA_SSL',
    );
  }
  return ssl;
}

export function readEnv(env: NodeJS.ProcessEnv = process.env): FunctionEnv {
  const level = (env.LOG_LEVEL ?? 'info').toLowerCase();
  if (!['error', 'warn', 'info', 'debug'].includes(level)) {
    throw new ConfigError(
      `LOG_LEVEL must be one of error, warn, info, debug (got ${level})`,
      'LOG_LEVEL',
    );
  }
  const eos = (env.EXACTLY_ONCE_SOURCE ?? 'enabled').toLowerCase();
  if (eos !== 'enabled' && eos !== 'disabled') {
    throw new ConfigError(
      `EXACTLY_ONCE_SOURCE must be enabled or disabled (got ${eos})`,
      'EXACTLY_ONCE_SOURCE',
    );
  }
  const kafkaAuth = readKafkaAuth(env);
  return {
    exactlyOnceSource: eos === 'enabled',
    sourceIdleBackoffMaxMs: wholeSecondsMs(
      env,
      'SOURCE_IDLE_BACKOFF_MAX_SECONDS',
      DEFAULT_IDLE_BACKOFF.maxMs,
    ),
    stateTable: required(env, 'STATE_TABLE'),
    kafkaBrokers: required(env, 'KAFKA_BROKERS')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
    kafkaSsl: readKafkaSsl(env, kafkaAuth),
    kafkaAuth,
    transactionalIdPrefix: env.TRANSACTIONAL_ID_PREFIX?.trim() || 'serverless-connect',
    offsetsTopic: env.OFFSETS_TOPIC?.trim() || 'connect-offsets',
    dynamoEndpoint: env.DYNAMODB_ENDPOINT?.trim() || undefined,
    region: env.AWS_REGION?.trim() || 'us-east-1',
    logLevel: level as FunctionEnv['logLevel'],
    logLevelRefreshMs: readLogLevelRefreshMs(env),
    metricsNamespace: optional(env, 'METRICS_NAMESPACE') ?? 'ServerlessConnect',
    metricsPerPartition: flag(env, 'METRICS_PER_PARTITION', false),
    prices: priceTableOf(env.COST_PRICES, 'COST_PRICES'),
    enumeratorFunction: optional(env, 'ENUMERATOR_FUNCTION'),
    topicTracking: readTopicTracking(env),
    sourceTaskFunction: optional(env, 'SOURCE_TASK_FUNCTION'),
    sinkTaskFunction: optional(env, 'SINK_TASK_FUNCTION'),
    kafkaClusterArn: optional(env, 'KAFKA_CLUSTER_ARN'),
    sinkMappingAccessConfigurations: optional(env, 'SINK_MAPPING_ACCESS_CONFIGURATIONS'),
    kafkaClusterId: optional(env, 'KAFKA_CLUSTER_ID') ?? 'unknown',
    buildCommit: optional(env, 'BUILD_COMMIT') ?? 'unknown',
    functionName: optional(env, 'AWS_LAMBDA_FUNCTION_NAME') ?? 'serverless-connect',
    configProviders: readConfigProviderSettings(env, LAMBDA_CONFIG_PROVIDER_DEFAULTS),
  };
}

/** The environment of the `connector-resource` function (the CDK `Connector` custom resource). */
export interface ConnectorResourceEnv {
  /** `API_FUNCTION`: the api function every connector request goes through (required when one is sent). */
  readonly apiFunction: string | undefined;
  readonly region: string;
  readonly logLevel: FunctionEnv['logLevel'];
}

export function readConnectorResourceEnv(
  env: NodeJS.ProcessEnv = process.env,
): ConnectorResourceEnv {
  const level = (env.LOG_LEVEL ?? 'info').toLowerCase();
  return {
    apiFunction: optional(env, 'API_FUNCTION'),
    region: env.AWS_REGION?.trim() || 'us-east-1',
    logLevel: (['error', 'warn', 'info', 'debug'].includes(level)
      ? level
      : 'info') as FunctionEnv['logLevel'],
  };
}

/** The Connect tools authorizer's environment (functions/authorizer). */
export interface AuthorizerEnv {
  /** `CREDENTIALS_SECRET_ARN`: the credentials secret (JSON, principal name → secret). */
  readonly credentialsSecretArn: string;
  /** `CREDENTIALS_SCHEMES`: `basic`, `bearer` or `both` (default). */
  readonly credentialSchemes: 'basic' | 'bearer' | 'both';
  /** `CREDENTIALS_CACHE_TTL_SECONDS`: how long a read secret is used (default 60). */
  readonly cacheTtlSeconds: number;
  readonly logLevel: 'error' | 'warn' | 'info' | 'debug';
}

export function readAuthorizerEnv(env: NodeJS.ProcessEnv = process.env): AuthorizerEnv {
  const schemes = optional(env, 'CREDENTIALS_SCHEMES') ?? 'both';
  if (schemes !== 'basic' && schemes !== 'bearer' && schemes !== 'both') {
    throw new ConfigError(
      `CREDENTIALS_SCHEMES must be basic, bearer or both (got ${schemes})`,
      'CREDENTIALS_SCHEMES',
    );
  }
  const ttl = Number(optional(env, 'CREDENTIALS_CACHE_TTL_SECONDS') ?? '60');
  if (!Number.isInteger(ttl) || ttl < 0) {
    throw new ConfigError(
      'CREDENTIALS_CACHE_TTL_SECONDS must be a whole number of seconds, 0 or more',
      'CREDENTIALS_CACHE_TTL_SECONDS',
    );
  }
  const level = (optional(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
  return {
    credentialsSecretArn: required(env, 'CREDENTIALS_SECRET_ARN'),
    credentialSchemes: schemes,
    cacheTtlSeconds: ttl,
    logLevel: ['error', 'warn', 'debug'].includes(level)
      ? (level as AuthorizerEnv['logLevel'])
      : 'info',
  };
}
