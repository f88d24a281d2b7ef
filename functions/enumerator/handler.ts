import { LambdaClient, type SourceAccessConfiguration } from '@aws-sdk/client-lambda';
import middy from '@middy/core';
import type { KafkaAuthSettings } from '../../shared/adapters/kafkajs/auth.js';
import { LambdaSourceTaskInvoker } from '../../shared/adapters/lambda/invoke.js';
import {
  type KafkaClusterSource,
  LambdaSinkMappings,
} from '../../shared/adapters/lambda/sink-mappings.js';
import { ConfigError } from '../../shared/connect/errors.js';
import { systemClock } from '../../shared/ports/clock.js';
import {
  type ConnectorReport,
  DEFAULT_ENUMERATOR_SETTINGS,
  Enumerator,
  PartitionDiscovery,
} from '../../shared/runtime/enumerator/enumerator.js';
import { sinkFunctionAlias } from '../../shared/runtime/sink/function-alias.js';
import { composition } from '../_compose.js';
import { createdObjectsOf, s3SourcesReading } from './s3-trigger.js';

/**
 * What starts an enumerator run: the one-minute schedule (EventBridge), a nudge from the REST
 * API (`{"connector": name}`), or the state table's stream (the connectors whose items
 * changed). Anything else reconciles every connector. (S3 object-created notifications are
 * handled before this: see s3-trigger.ts.)
 */
export function connectorsToReconcile(event: unknown): string[] | 'all' {
  const e = (event ?? {}) as Record<string, unknown>;
  if (typeof e.connector === 'string' && e.connector.length > 0) return [e.connector];
  if (Array.isArray(e.Records)) {
    const names = new Set<string>();
    for (const record of e.Records as Record<string, unknown>[]) {
      const dynamodb = (record.dynamodb ?? {}) as { Keys?: { pk?: { S?: string } } };
      const pk = dynamodb.Keys?.pk?.S;
      if (pk?.startsWith('C#')) names.add(pk.slice(2));
    }
    return [...names].sort();
  }
  return 'all';
}

function required(name: string): string {
  const value = process.env[name]?.trim();
  if (!value) throw new ConfigError(`Missing required environment variable ${name}`, name);
  return value;
}

/** Source access configuration types that say how a mapping authenticates. */
const AUTH_TYPES = new Set([
  'BASIC_AUTH',
  'SASL_SCRAM_256_AUTH',
  'SASL_SCRAM_512_AUTH',
  'CLIENT_CERTIFICATE_TLS_AUTH',
]);

function explicitAccessConfigurations(
  env: NodeJS.ProcessEnv,
): SourceAccessConfiguration[] | undefined {
  const access = env.SINK_MAPPING_ACCESS_CONFIGURATIONS?.trim();
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
  env: NodeJS.ProcessEnv,
  auth: KafkaAuthSettings,
): SourceAccessConfiguration[] | undefined {
  const explicit = explicitAccessConfigurations(env);
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
  env: NodeJS.ProcessEnv,
  brokers: readonly string[],
  auth: KafkaAuthSettings,
): KafkaClusterSource {
  const arn = env.KAFKA_CLUSTER_ARN?.trim();
  if (!arn && auth.mode === 'iam') {
    throw new ConfigError(
      'KAFKA_AUTH=iam needs KAFKA_CLUSTER_ARN: sink mappings of a self-managed cluster cannot use MSK IAM',
      'KAFKA_CLUSTER_ARN',
    );
  }
  const configs = accessConfigurations(env, auth);
  const access = configs === undefined ? {} : { accessConfigurations: configs };
  if (arn) return { kind: 'msk', clusterArn: arn, ...access };
  return { kind: 'self-managed', bootstrapServers: brokers, ...access };
}

let enumerator: Enumerator | undefined;

function build(): Enumerator {
  const { env, store, admin, kafka, plugins, logger, source } = composition();
  const lambda = new LambdaClient({ region: env.region });
  return new Enumerator({
    store,
    admin,
    plugins,
    logger,
    kafka,
    clock: systemClock,
    invoker: new LambdaSourceTaskInvoker(lambda, required('SOURCE_TASK_FUNCTION')),
    mappings: new LambdaSinkMappings(lambda, {
      functionName: required('SINK_TASK_FUNCTION'),
      cluster: clusterSource(process.env, env.kafkaBrokers, env.kafkaAuth),
      aliasOf: sinkFunctionAlias,
    }),
    discovery: new PartitionDiscovery(),
    ...(source.configProviders === undefined ? {} : { configProviders: source.configProviders }),
    settings: {
      ...DEFAULT_ENUMERATOR_SETTINGS,
      workerId: process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'enumerator',
      // The source tasks' names: the enumerator fences their producers and settles their offsets.
      transactionalIdPrefix: env.transactionalIdPrefix,
      offsetsTopic: env.offsetsTopic,
    },
  });
}

/** One enumerator run. Failures of single connectors are in the reports, not thrown. */
export async function enumerate(event: unknown): Promise<{ reports: ConnectorReport[] }> {
  enumerator ??= build();
  // An S3 object-created notification dispatches the S3 sources reading that object at once.
  const objects = createdObjectsOf(event);
  const target =
    objects === undefined
      ? connectorsToReconcile(event)
      : await s3SourcesReading(composition().store.configs, objects);
  const reports =
    target === 'all'
      ? await enumerator.reconcileAll()
      : await Promise.all(target.map((name) => (enumerator as Enumerator).reconcile(name)));
  composition().logger.info('enumerator run', {
    connectors: reports.length,
    dispatched: reports.reduce((n, r) => n + r.dispatched.length, 0),
    failed: reports.filter((r) => r.error !== undefined).map((r) => r.connector),
  });
  return { reports };
}

export const handler = middy(enumerate);
