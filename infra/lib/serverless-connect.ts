import { type Duration, Tags } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { Monitoring, type MonitoringOptions } from './alarms.js';
import { DataBucket, type DataBucketProps } from './data-bucket.js';
import { allowDatabaseAccess, type ConnectorDatabase } from './database-access.js';
import { EnumeratorTriggers } from './enumerator-schedule.js';
import { ConnectFunctions, type FunctionsOptions } from './functions.js';
import { acknowledgeIamWildcards } from './iam-wildcards.js';
import { KafkaAccess, type KafkaAccessProps } from './kafka-access.js';
import { ControlPlaneApi, type RestApiOptions } from './rest-api.js';
import { acknowledgeServerlessFindings } from './serverless-nag.js';
import { StateTable, type StateTableProps } from './state-table.js';

// Connectors declared in the app: `new Connector(stack, 'Orders', { connect, name, config })`.
export { Connector, type ConnectorInitialState, type ConnectorProps } from './connector.js';

/** Options of the enumerator's schedule. */
export interface ScheduleOptions {
  /** @default Duration.minutes(1) */
  readonly rate?: Duration;
  /** @default true */
  readonly enabled?: boolean;
}

/** Everything a serverless-connect deployment needs to know; only `kafka` is required. */
export interface ServerlessConnectProps {
  /** The Kafka cluster: brokers, MSK ARN, auth mode, TLS, VPC. */
  readonly kafka: KafkaAccessProps;
  /** @default - IAM authorization, stage `v1`, 50 requests/s (burst 100) */
  readonly api?: RestApiOptions;
  /** @default - AWS-managed encryption, deletion protection on, retained on stack deletion */
  readonly stateTable?: StateTableProps;
  /** @default - a new unversioned, encrypted, TLS-only bucket with access logs, retained */
  readonly dataBucket?: DataBucketProps;
  /**
   * Databases the connectors reach (RDS for PostgreSQL, Aurora PostgreSQL, RDS Proxy): each one's
   * security group admits the functions' security groups on its port. Needs `kafka.vpc` (RDS
   * and Aurora sit in private subnets); with `kafka.vpcEndpoints`, the Secrets Manager endpoint
   * comes too (the connectors read their passwords through `${secretsmanager:...}`).
   *
   * @example [{ securityGroup: SecurityGroup.fromSecurityGroupId(stack, 'OrdersDb', 'sg-0123456789abcdef0') }]
   * @default - none
   */
  readonly databases?: readonly ConnectorDatabase[];
  /** @default - see {@link FunctionsOptions} */
  readonly functions?: FunctionsOptions;
  /** @default - every minute, enabled */
  readonly schedule?: ScheduleOptions;
  /** @default - alarms without notifications, a dashboard, runbook `docs/runbook.md` */
  readonly monitoring?: MonitoringOptions;
  /**
   * Plugin packages (connectors, transformations, predicates, converters, config providers)
   * bundled into every function, each an ES module exporting `plugins` (its plugin
   * descriptors) or a default export `{ plugins }`. An entry is a module path, relative to the
   * CDK app's directory (the working directory of `cdk synth`), or a package name, resolved
   * from node_modules. Each bundle must still fit the 1.5 MB budget; synth fails otherwise.
   *
   * @example ['./plugins/acme-source.ts', '@acme/connect-plugins']
   * @default - none: the built-in plugins only
   */
  readonly plugins?: readonly string[];
  /**
   * Tags on every taggable resource of the construct (`Tags.of(this)`) and on the VPC endpoints
   * it adds to `kafka.vpc`. The default app tags its whole stack instead (context `tags`).
   * @default - none
   */
  readonly tags?: Readonly<Record<string, string>>;
}

/**
 * Kafka Connect without a Connect cluster: the Kafka Connect REST API on API Gateway, the state
 * table, the enumerator (schedule, stream trigger and REST nudges), source tasks dispatched as
 * asynchronous Lambda invocations, sink tasks fed by Kafka event source mappings the enumerator
 * manages, the S3 connectors' bucket, alarms and a dashboard. Least privilege throughout: every
 * permission names this deployment's table, bucket, functions, secret or cluster.
 *
 * @example
 * new ServerlessConnect(stack, 'Connect', {
 *   kafka: {
 *     bootstrapServers: ['b-1.demo.kafka.eu-west-1.amazonaws.com:9098'],
 *     mskClusterArn: 'arn:aws:kafka:eu-west-1:111122223333:cluster/demo/abcd-1',
 *     auth: { mode: 'iam' },
 *   },
 * });
 */
export class ServerlessConnect extends Construct {
  readonly stateTable: StateTable;
  readonly dataBucket: DataBucket;
  readonly kafka: KafkaAccess;
  readonly functions: ConnectFunctions;
  readonly triggers: EnumeratorTriggers;
  readonly api: ControlPlaneApi;
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: ServerlessConnectProps) {
    super(scope, id);
    this.stateTable = new StateTable(this, 'StateTable', props.stateTable);
    this.dataBucket = new DataBucket(this, 'DataBucket', props.dataBucket);
    const databases = props.databases ?? [];
    this.kafka = new KafkaAccess(this, 'Kafka', props.kafka, {
      readsSecrets: databases.length > 0,
    });
    if (databases.length > 0) allowDatabaseAccess(this.kafka.placement, databases);
    this.functions = new ConnectFunctions(this, 'Functions', {
      options: props.functions ?? {},
      ...(props.plugins === undefined ? {} : { plugins: props.plugins }),
      stateTable: this.stateTable,
      dataBucket: this.dataBucket,
      kafka: this.kafka,
    });
    this.triggers = new EnumeratorTriggers(this, 'EnumeratorTriggers', {
      enumerator: this.functions.enumerator.function,
      table: this.stateTable.table,
      ...props.schedule,
      ...(props.dataBucket?.notifySourcePrefixes === undefined
        ? {}
        : {
            objectCreated: {
              bucket: this.dataBucket.bucket,
              prefixes: props.dataBucket.notifySourcePrefixes,
            },
          }),
    });
    this.api = new ControlPlaneApi(this, 'RestApi', {
      ...(props.functions?.tracing === undefined ? {} : { tracing: props.functions.tracing }),
      ...props.api,
      handler: this.functions.api.function,
      authorizerLogs: {
        ...(props.functions?.logRetention === undefined
          ? {}
          : { retention: props.functions.logRetention }),
        ...(props.functions?.logLevel === undefined ? {} : { level: props.functions.logLevel }),
      },
    });
    this.monitoring = new Monitoring(this, 'Monitoring', {
      ...props.monitoring,
      functions: this.functions,
      api: this.api.api,
      sourceTaskDlq: this.functions.sourceTaskDlq,
      // The tools' own API in iam-or-connect-tools (in connect-tools it is `api` itself).
      ...(this.api.toolsApi === undefined || this.api.toolsApi === this.api.api
        ? {}
        : { toolsApi: this.api.toolsApi }),
      ...(this.api.toolsAuth === undefined ? {} : { authorizer: this.api.toolsAuth.function }),
    });
    acknowledgeIamWildcards(this);
    acknowledgeServerlessFindings(this);
    for (const [key, value] of Object.entries(props.tags ?? {})) {
      for (const scope of [this, ...this.kafka.vpcEndpoints]) Tags.of(scope).add(key, value);
    }
  }
}
