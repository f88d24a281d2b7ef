import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { FunctionName } from './bundling.js';
import { ConnectFunction } from './connect-function.js';
import {
  deploymentGlueRegistryUses,
  type GlueSchemaRegistryOptions,
  grantGlueRegistries,
} from './connector-glue.js';
import { type CostPrices, costPricesEnvironment } from './cost-prices.js';
import type { DataBucket } from './data-bucket.js';
import type { KafkaAccess } from './kafka-access.js';
import { metricsNamespace } from './metrics-namespace.js';
import type { StateTable } from './state-table.js';

/** Memory (MB) and timeout of one function. */
export interface FunctionSize {
  readonly memorySize?: number;
  readonly timeout?: Duration;
}

/**
 * The worker's config provider settings, Kafka Connect's `config.providers.<name>.param.*`, the
 * same for all four functions (the api validates placeholders, the others resolve them).
 */
export interface ConfigProvidersOptions {
  readonly env?: {
    /**
     * `config.providers.env.param.allowlist.pattern` (`CONFIG_PROVIDERS_ENV_PARAM_ALLOWLIST_PATTERN`):
     * the environment variables `${env:NAME}` may read, a regex the whole name must match. Lambda's
     * reserved variables (`AWS_*`, `_*`, `LAMBDA_*`, `TZ`: the role's credentials, the runtime's
     * own) are refused whatever it says.
     * @example 'CONNECT_SECRET_.*'
     * @default - no variable
     */
    readonly allowlistPattern?: string;
  };
  readonly file?: {
    /**
     * `config.providers.file.param.allowed.paths` (`CONFIG_PROVIDERS_FILE_PARAM_ALLOWED_PATHS`):
     * the absolute directories whose files `${file:...}` may read (`..` and symbolic links are
     * resolved first; `/proc` never). Each must exist in every function, e.g. a layer's folder.
     * @example ['/opt/connect-secrets']
     * @default - no file
     */
    readonly allowedPaths?: readonly string[];
  };
}

/** The functions' environment for `options`; throws naming the prop on a bad value. */
function configProviderEnvironment(options: ConfigProvidersOptions): Record<string, string> {
  const pattern = options.env?.allowlistPattern;
  if (pattern !== undefined) {
    try {
      new RegExp(`^(?:${pattern})$`);
    } catch {
      throw new Error(
        `ConnectFunctions: configProviders.env.allowlistPattern is not a regular expression: ${pattern}`,
      );
    }
  }
  const paths = options.file?.allowedPaths;
  const bad = paths?.find((path) => !path.startsWith('/') || path.includes(','));
  if (bad !== undefined) {
    throw new Error(
      `ConnectFunctions: configProviders.file.allowedPaths takes absolute directories without commas (got ${bad})`,
    );
  }
  return {
    ...(pattern === undefined ? {} : { CONFIG_PROVIDERS_ENV_PARAM_ALLOWLIST_PATTERN: pattern }),
    ...(paths === undefined ? {} : { CONFIG_PROVIDERS_FILE_PARAM_ALLOWED_PATHS: paths.join(',') }),
  };
}

/** The enumerator's idle back-off bound, when the options set one. */
function idleBackoffEnvironment(max: Duration | undefined): Record<string, string> {
  if (max === undefined) return {};
  const seconds = max.toSeconds();
  if (!Number.isInteger(seconds) || seconds < 0) {
    throw new Error(
      `ConnectFunctions: sourceIdleBackoffMax must be a whole number of seconds, at least 0 (got ${seconds})`,
    );
  }
  return { SOURCE_IDLE_BACKOFF_MAX_SECONDS: String(seconds) };
}

/** The functions' metrics namespace, metric dimensions, log level refresh and prices. */
function observabilityEnvironment(
  scope: Construct,
  options: Pick<FunctionsOptions, 'logLevelRefreshSeconds' | 'perPartitionMetrics' | 'costPrices'>,
): Record<string, string> {
  const refresh = options.logLevelRefreshSeconds;
  if (refresh !== undefined && !(Number.isInteger(refresh) && refresh >= 0)) {
    throw new Error(
      `ConnectFunctions: logLevelRefreshSeconds must be a whole number of seconds, at least 0 (got ${refresh})`,
    );
  }
  return {
    METRICS_NAMESPACE: metricsNamespace(scope),
    ...(options.perPartitionMetrics === true ? { METRICS_PER_PARTITION: 'true' } : {}),
    ...(refresh === undefined ? {} : { LOG_LEVEL_REFRESH_SECONDS: String(refresh) }),
    ...costPricesEnvironment(options.costPrices),
  };
}

/** Options shared by the four functions. */
export interface FunctionsOptions {
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** X-Ray active tracing on every function. @default false */
  readonly tracing?: boolean;
  /** `LOG_LEVEL` of the functions. @default 'info' */
  readonly logLevel?: 'error' | 'warn' | 'info' | 'debug';
  /**
   * How often (seconds) a function re-reads the levels set through `/admin/loggers`: at its
   * container's first invocation, then at the start of an invocation once this long has passed
   * (`LOG_LEVEL_REFRESH_SECONDS`). A level change reaches every function within about this long.
   * @default 30
   */
  readonly logLevelRefreshSeconds?: number;
  /**
   * Publish the task metrics per partition (sinks: `{Connector, Topic, Partition}`) and per task
   * (sources: `{Connector, Task}`) besides `{Connector}` (`METRICS_PER_PARTITION`). CloudWatch
   * bills each metric of each dimension set: with a hundred partitions, a hundred times as many.
   * @default false
   */
  readonly perPartitionMetrics?: boolean;
  /**
   * Prices the metering estimates costs with (`GET /connectors/{c}/cost`, the `EstimatedCost`
   * metric), over the us-east-1 list prices for arm64 (`COST_PRICES`; docs/deploy.md).
   * @default - us-east-1 list prices
   */
  readonly costPrices?: CostPrices;
  /** Kafka Connect's `exactly.once.source.support` (`EXACTLY_ONCE_SOURCE`). @default true */
  readonly exactlyOnceSource?: boolean;
  /**
   * The idle back-off's bound (`SOURCE_IDLE_BACKOFF_MAX_SECONDS`, whole seconds): a source task
   * whose invocations deliver nothing is dispatched less and less often (1, 2, 4, 8… schedule
   * periods apart), adding at most this much to the time new records wait for it. Zero turns it
   * off: every idle task is dispatched by every scheduled run. docs/deploy.md, "Idle sources".
   * @default Duration.minutes(10)
   */
  readonly sourceIdleBackoffMax?: Duration;
  /**
   * Prefix of the source tasks' transactional ids. Give each deployment that
   * shares a Kafka cluster its own.
   * @default 'serverless-connect'
   */
  readonly transactionalIdPrefix?: string;
  /** The offsets topic of source connectors that set no `offsets.storage.topic`. @default 'connect-offsets' */
  readonly offsetsTopic?: string;
  /** `kafka_cluster_id` reported by `GET /`. @default - 'unknown' */
  readonly kafkaClusterId?: string;
  /**
   * What `${env:...}` and `${file:...}` placeholders in connector configs may read. Secrets
   * belong in `${secretsmanager:...}` or `${ssm:...}`.
   * @default - no environment variable and no file
   */
  readonly configProviders?: ConfigProvidersOptions;
  /**
   * Reserved concurrency of the enumerator; 0 or a negative number reserves none.
   * @default 2
   */
  readonly enumeratorReservedConcurrency?: number;
  /**
   * The Glue Schema Registry registries every source and sink task may use, for connectors
   * created through the REST API with Glue's converters (a `Connector` construct grants its own
   * from its config): the same statements (`connector-glue.ts`). docs/deploy.md, "Glue Schema
   * Registry".
   * @default - none
   */
  readonly glueSchemaRegistry?: GlueSchemaRegistryOptions;
  /** @default 512 MB, 29 seconds (API Gateway's integration timeout) */
  readonly api?: FunctionSize;
  /** @default 512 MB, 2 minutes */
  readonly enumerator?: FunctionSize;
  /** @default 1024 MB, 15 minutes (a task runs until its deadline, then is dispatched again) */
  readonly sourceTask?: FunctionSize;
  /** @default 1024 MB, 5 minutes (at most 14 minutes behind a Kafka event source mapping) */
  readonly sinkTask?: FunctionSize;
}

export interface FunctionsProps {
  readonly options: FunctionsOptions;
  /** Plugin packages bundled into every function. @default - none */
  readonly plugins?: readonly string[];
  readonly stateTable: StateTable;
  readonly dataBucket: DataBucket;
  readonly kafka: KafkaAccess;
}

/** Each function's memory and timeout unless the options set them (bench/cost.ts prices with this memory). */
export const DEFAULT_SIZES: Record<FunctionName, { memorySize: number; timeout: Duration }> = {
  api: { memorySize: 512, timeout: Duration.seconds(29) },
  enumerator: { memorySize: 512, timeout: Duration.minutes(2) },
  'source-task': { memorySize: 1024, timeout: Duration.minutes(15) },
  'sink-task': { memorySize: 1024, timeout: Duration.minutes(5) },
  // The Connector construct's custom resource: at most two api calls of up to 29 s each.
  'connector-resource': { memorySize: 256, timeout: Duration.minutes(2) },
  // The Connect tools' authorizer (infra/lib/connect-tools-auth.ts): one secret read per minute.
  authorizer: { memorySize: 256, timeout: Duration.seconds(10) },
};

/** Sink functions behind a Kafka event source mapping may run at most 14 minutes. */
const KAFKA_ESM_MAX_TIMEOUT = Duration.minutes(14);

/**
 * The four functions (api, enumerator, source task, sink task) with their environment and the
 * permissions each one needs, scoped to this deployment: the state table, the data bucket, the
 * source task function, the sink task function's aliases and event source mappings, the Kafka
 * secret or cluster. Also the source tasks' failure queue.
 */
export class ConnectFunctions extends Construct {
  readonly api: ConnectFunction;
  readonly enumerator: ConnectFunction;
  readonly sourceTask: ConnectFunction;
  readonly sinkTask: ConnectFunction;
  /** Source-task dispatches Lambda could not run (function error, timeout, or too old). */
  readonly sourceTaskDlq: Queue;

  constructor(scope: Construct, id: string, props: FunctionsProps) {
    super(scope, id);
    const { options, stateTable, dataBucket, kafka } = props;
    const prefix = options.transactionalIdPrefix ?? 'serverless-connect';
    const common = {
      logRetention: options.logRetention ?? RetentionDays.ONE_MONTH,
      tracing: options.tracing ?? false,
      // Every function gets the plugins: the api lists and validates them, the enumerator and
      // the task functions run them.
      ...(props.plugins === undefined ? {} : { plugins: props.plugins }),
      ...(kafka.placement === undefined ? {} : { placement: kafka.placement }),
      ...(kafka.caLayer === undefined ? {} : { layers: [kafka.caLayer] }),
    };
    const environment: Record<string, string> = {
      STATE_TABLE: stateTable.table.tableName,
      LOG_LEVEL: options.logLevel ?? 'info',
      ...observabilityEnvironment(this, options),
      EXACTLY_ONCE_SOURCE: options.exactlyOnceSource === false ? 'disabled' : 'enabled',
      TRANSACTIONAL_ID_PREFIX: prefix,
      OFFSETS_TOPIC: options.offsetsTopic ?? 'connect-offsets',
      KAFKAJS_NO_PARTITIONER_WARNING: '1',
      ...configProviderEnvironment(options.configProviders ?? {}),
      ...kafka.clientEnvironment(),
    };
    const size = (name: FunctionName, given: FunctionSize | undefined) => ({
      memorySize: given?.memorySize ?? DEFAULT_SIZES[name].memorySize,
      timeout: given?.timeout ?? DEFAULT_SIZES[name].timeout,
    });

    this.sourceTaskDlq = new Queue(this, 'SourceTaskDlq', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.sourceTaskDlq).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself a dead letter queue: the on-failure destination of the source task function’s asynchronous invocations.',
    });

    this.sourceTask = new ConnectFunction(this, 'SourceTask', {
      name: 'source-task',
      description:
        'serverless-connect: one bounded run of a source task (dispatched by the enumerator)',
      ...size('source-task', options.sourceTask),
      ...common,
      environment,
      // The enumerator re-dispatches every task whose lease is free at its next run (every
      // minute), so Lambda's own retries would only race it; a failed or stale dispatch goes to
      // the queue for inspection instead.
      retryAttempts: 0,
      maxEventAge: Duration.minutes(15),
      onFailure: new SqsDestination(this.sourceTaskDlq),
      // No reserved concurrency: one live invocation per task is enforced by the task's lease
      // (conditional writes fenced by epoch), not by a concurrency limit.
    });

    const sinkSize = size('sink-task', options.sinkTask);
    if (sinkSize.timeout.toSeconds() > KAFKA_ESM_MAX_TIMEOUT.toSeconds()) {
      throw new Error('ConnectFunctions: the sink task timeout may be at most 14 minutes');
    }
    this.sinkTask = new ConnectFunction(this, 'SinkTask', {
      name: 'sink-task',
      description: 'serverless-connect: one batch of a sink connector (Kafka event source mapping)',
      ...sinkSize,
      ...common,
      environment,
      // No reserved concurrency: the mapping keeps one batch in flight per partition, and the
      // sink offsets are fenced by conditional writes.
    });

    const reserved = options.enumeratorReservedConcurrency ?? 2;
    this.enumerator = new ConnectFunction(this, 'Enumerator', {
      name: 'enumerator',
      description:
        'serverless-connect: reconciles connectors, dispatches source tasks, manages sink mappings',
      ...size('enumerator', options.enumerator),
      ...common,
      environment: {
        ...environment,
        ...idleBackoffEnvironment(options.sourceIdleBackoffMax),
        SOURCE_TASK_FUNCTION: this.sourceTask.function.functionName,
        SINK_TASK_FUNCTION: this.sinkTask.function.functionName,
        ...kafka.mappingEnvironment(),
      },
      // Runs are idempotent and converge, so concurrency buys nothing but duplicate work: every
      // extra concurrent run repeats the same reads, fencing rounds and dispatches. Two lets a
      // nudge or stream run overlap a slow scheduled run; throttled asynchronous invocations wait
      // in Lambda's queue, and the next tick reconciles anything dropped.
      ...(reserved > 0 ? { reservedConcurrentExecutions: reserved } : {}),
      // A failed run is repeated by the next tick (every minute); an old nudge is worthless.
      retryAttempts: 0,
      maxEventAge: Duration.minutes(5),
    });

    this.api = new ConnectFunction(this, 'Api', {
      name: 'api',
      description: 'serverless-connect: the Kafka Connect REST API',
      ...size('api', options.api),
      ...common,
      environment: {
        ...environment,
        ENUMERATOR_FUNCTION: this.enumerator.function.functionName,
        ...(options.kafkaClusterId === undefined
          ? {}
          : { KAFKA_CLUSTER_ID: options.kafkaClusterId }),
      },
    });

    for (const fn of this.all()) {
      stateTable.grantStateAccess(fn.role);
      kafka.grantClient(fn.role, prefix);
    }
    dataBucket.grantSinkWrites(this.sinkTask.role);
    dataBucket.grantSourceReads(this.sourceTask.role);
    kafka.grantEventSourcePoller(this.sinkTask.role);
    this.#grantInvoke(this.api, this.enumerator.function, 'InvokeEnumerator');
    this.#grantInvoke(this.enumerator, this.sourceTask.function, 'InvokeSourceTasks');
    this.#grantSinkMappingManagement();
    if (options.glueSchemaRegistry !== undefined) {
      const uses = deploymentGlueRegistryUses(this, options.glueSchemaRegistry);
      for (const fn of [this.sourceTask, this.sinkTask]) grantGlueRegistries(fn.role, uses);
    }
  }

  /** The four functions: api, enumerator, source task, sink task. */
  all(): ConnectFunction[] {
    return [this.api, this.enumerator, this.sourceTask, this.sinkTask];
  }

  /** Invoke on the unqualified function only (no versions, no aliases). */
  #grantInvoke(caller: ConnectFunction, target: IFunction, sid: string): void {
    caller.role.addToPrincipalPolicy(
      new PolicyStatement({
        sid,
        actions: ['lambda:InvokeFunction'],
        resources: [target.functionArn],
      }),
    );
  }

  /**
   * The enumerator creates, at run time, one alias of the sink function per sink connector
   * (`c-...`) and the Kafka event source mappings that invoke it. Everything is limited to the
   * sink function and its aliases; where AWS authorizes against the mapping (whose id is not
   * known in advance), to this account's and region's mappings, and where it authorizes against
   * "*", by the `lambda:FunctionArn` condition when AWS supports it.
   */
  #grantSinkMappingManagement(): void {
    const stack = Stack.of(this);
    const sinkArn = this.sinkTask.function.functionArn;
    const sinkAndAliases = [sinkArn, `${sinkArn}:*`];
    const mappings = `arn:${stack.partition}:lambda:${stack.region}:${stack.account}:event-source-mapping:*`;
    const onSink = { ArnLike: { 'lambda:FunctionArn': sinkAndAliases } };
    const statements = [
      new PolicyStatement({
        sid: 'SinkAliases',
        actions: [
          'lambda:CreateAlias',
          'lambda:GetAlias',
          'lambda:UpdateAlias',
          'lambda:DeleteAlias',
          'lambda:ListAliases',
        ],
        resources: sinkAndAliases,
      }),
      new PolicyStatement({
        sid: 'SinkMappingsCreate',
        actions: ['lambda:CreateEventSourceMapping'],
        // AWS requires "*": CreateEventSourceMapping has no resource type (the mapping does not
        // exist yet); the condition limits it to mappings that invoke the sink function.
        resources: ['*'],
        conditions: onSink,
      }),
      new PolicyStatement({
        sid: 'SinkMappingsChange',
        actions: ['lambda:UpdateEventSourceMapping', 'lambda:DeleteEventSourceMapping'],
        resources: [mappings],
        conditions: onSink,
      }),
      new PolicyStatement({
        sid: 'SinkMappingsReadAndTag',
        actions: ['lambda:GetEventSourceMapping', 'lambda:ListTags', 'lambda:TagResource'],
        // The enumerator tags each mapping with its connector on creation and reads the tag back.
        resources: [mappings],
      }),
      new PolicyStatement({
        sid: 'SinkMappingsList',
        actions: ['lambda:ListEventSourceMappings'],
        // AWS requires "*": ListEventSourceMappings supports no resource-level permissions
        // (the enumerator always filters by the sink function's name).
        resources: ['*'],
      }),
    ];
    for (const statement of statements) this.enumerator.role.addToPrincipalPolicy(statement);
  }
}
