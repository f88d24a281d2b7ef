import { ConfigError } from '../shared/connect/errors.js';

/** The environment every function reads, typed. Set by the CDK app, or by the local runtime. */
export interface FunctionEnv {
  /** DynamoDB table holding configs, offsets and status. */
  readonly stateTable: string;
  /** `host:port,host:port`. */
  readonly kafkaBrokers: string[];
  /** TLS to the brokers (MSK and most managed clusters). */
  readonly kafkaSsl: boolean;
  readonly transactionalIdPrefix: string;
  readonly offsetsTopic: string;
  /** A DynamoDB endpoint override (local runtime: dynalite). */
  readonly dynamoEndpoint: string | undefined;
  readonly region: string;
  readonly logLevel: 'error' | 'warn' | 'info' | 'debug';
  /** Kafka Connect's `exactly.once.source.support`: `enabled` (default) or `disabled`. */
  readonly exactlyOnceSource: boolean;
  /** The enumerator function the REST API nudges after each write; unset: no nudges. */
  readonly enumeratorFunction: string | undefined;
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new ConfigError(`Missing required environment variable ${name}`, name);
  return value;
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
  return {
    exactlyOnceSource: eos === 'enabled',
    stateTable: required(env, 'STATE_TABLE'),
    kafkaBrokers: required(env, 'KAFKA_BROKERS')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
    kafkaSsl: (env.KAFKA_SSL ?? 'false').toLowerCase() === 'true',
    transactionalIdPrefix: env.TRANSACTIONAL_ID_PREFIX?.trim() || 'serverless-connect',
    offsetsTopic: env.OFFSETS_TOPIC?.trim() || 'connect-offsets',
    dynamoEndpoint: env.DYNAMODB_ENDPOINT?.trim() || undefined,
    region: env.AWS_REGION?.trim() || 'us-east-1',
    logLevel: level as FunctionEnv['logLevel'],
    enumeratorFunction: env.ENUMERATOR_FUNCTION?.trim() || undefined,
  };
}
