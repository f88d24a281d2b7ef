import { LambdaClient, type SourceAccessConfiguration } from '@aws-sdk/client-lambda';
import middy from '@middy/core';
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

/** Where the sink mappings read from: MSK when KAFKA_CLUSTER_ARN is set, else the brokers. */
export function clusterSource(
  env: NodeJS.ProcessEnv,
  brokers: readonly string[],
): KafkaClusterSource {
  const arn = env.KAFKA_CLUSTER_ARN?.trim();
  if (arn) return { kind: 'msk', clusterArn: arn };
  const access = env.SINK_MAPPING_ACCESS_CONFIGURATIONS?.trim();
  let accessConfigurations: SourceAccessConfiguration[] | undefined;
  if (access) {
    try {
      accessConfigurations = JSON.parse(access) as SourceAccessConfiguration[];
    } catch {
      throw new ConfigError(
        'SINK_MAPPING_ACCESS_CONFIGURATIONS must be a JSON array of Lambda source access configurations',
        'SINK_MAPPING_ACCESS_CONFIGURATIONS',
      );
    }
  }
  return {
    kind: 'self-managed',
    bootstrapServers: brokers,
    ...(accessConfigurations === undefined ? {} : { accessConfigurations }),
  };
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
      cluster: clusterSource(process.env, env.kafkaBrokers),
      aliasOf: sinkFunctionAlias,
    }),
    discovery: new PartitionDiscovery(),
    ...(source.configProviders === undefined ? {} : { configProviders: source.configProviders }),
    settings: {
      ...DEFAULT_ENUMERATOR_SETTINGS,
      workerId: process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'enumerator',
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
