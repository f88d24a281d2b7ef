import { readFileSync } from 'node:fs';
import { App, CfnOutput, Duration, Stack, type StackProps, Tags, Validations } from 'aws-cdk-lib';
import {
  type ISecurityGroup,
  type ISubnet,
  type IVpc,
  SecurityGroup,
  type SubnetSelection,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import { type AppConfig, type AppConnectTools, readAppConfig } from './app-config.js';
import type { ConnectToolsAuthOptions } from './connect-tools-auth.js';
import type { ConnectorDatabase } from './database-access.js';
import type { KafkaAccessProps, KafkaAuth } from './kafka-access.js';
import { ServerlessConnect } from './serverless-connect.js';

export interface ServerlessConnectStackProps extends StackProps {
  readonly config: AppConfig;
}

function retention(days: number): RetentionDays {
  const allowed = Object.values(RetentionDays).filter((v): v is number => typeof v === 'number');
  if (!allowed.includes(days)) {
    throw new Error(`Context logRetentionDays must be one of ${allowed.join(', ')} (got ${days})`);
  }
  return days as RetentionDays;
}

/**
 * The default app's stack: one {@link ServerlessConnect} configured from CDK context, an
 * optional alarm e-mail topic, and outputs for the REST API URL, the state table, the data bucket
 * and the dead letter queue.
 */
export class ServerlessConnectStack extends Stack {
  readonly connect: ServerlessConnect;

  constructor(scope: Construct, id: string, props: ServerlessConnectStackProps) {
    super(scope, id, {
      description: 'serverless-connect: Kafka Connect as AWS Lambda functions',
      ...props,
    });
    const { config } = props;
    // The stack's tags go on the stack and on every taggable resource in it.
    for (const [key, value] of Object.entries(config.tags)) Tags.of(this).add(key, value);
    const alarmTopic = config.alarmEmail === undefined ? undefined : this.#alarmTopic(config);
    this.connect = new ServerlessConnect(this, 'Connect', {
      kafka: this.#kafka(config),
      api: {
        auth: config.apiAuth,
        publicOpenApi: config.publicOpenApi,
        ...(config.connectTools === undefined
          ? {}
          : { connectTools: connectToolsOptions(config.connectTools) }),
      },
      stateTable: { deletionProtection: config.tableDeletionProtection },
      dataBucket: { versioned: config.dataBucketVersioned },
      functions: {
        logLevel: config.logLevel,
        logRetention: retention(config.logRetentionDays),
        logLevelRefreshSeconds: config.logLevelRefreshSeconds,
        sourceIdleBackoffMax: Duration.seconds(config.sourceIdleBackoffMaxSeconds),
        perPartitionMetrics: config.perPartitionMetrics,
        costPrices: config.costPrices,
        ...(config.glueRegistries.length === 0
          ? {}
          : {
              glueSchemaRegistry: {
                registries: config.glueRegistries,
                autoRegister: config.glueAutoRegister,
              },
            }),
        enumeratorReservedConcurrency: config.enumeratorReservedConcurrency,
        ...(config.transactionalIdPrefix === undefined
          ? {}
          : { transactionalIdPrefix: config.transactionalIdPrefix }),
        configProviders: {
          ...(config.configProvidersEnvAllowlistPattern === undefined
            ? {}
            : { env: { allowlistPattern: config.configProvidersEnvAllowlistPattern } }),
          ...(config.configProvidersFileAllowedPaths === undefined
            ? {}
            : { file: { allowedPaths: config.configProvidersFileAllowedPaths } }),
        },
      },
      monitoring: {
        ...(alarmTopic === undefined ? {} : { alarmTopic }),
        replicationSlotLagThresholdBytes: config.replicationSlotLagAlarmBytes,
      },
      ...(config.databases.length === 0 ? {} : { databases: this.#databases(config) }),
      ...(config.plugins.length === 0 ? {} : { plugins: config.plugins }),
    });
    const { api, stateTable, dataBucket, functions } = this.connect;
    new CfnOutput(this, 'RestApiUrl', {
      value: api.api.url,
      description: 'Kafka Connect REST API',
    });
    new CfnOutput(this, 'StateTableName', { value: stateTable.table.tableName });
    new CfnOutput(this, 'DataBucketName', { value: dataBucket.bucket.bucketName });
    new CfnOutput(this, 'SourceTaskDlqUrl', { value: functions.sourceTaskDlq.queueUrl });
    if (api.apiKey !== undefined) {
      new CfnOutput(this, 'ApiKeyId', { value: api.apiKey.keyId });
    }
    if (api.toolsApi !== undefined && api.toolsApi !== api.api) {
      new CfnOutput(this, 'ToolsApiUrl', {
        value: api.toolsApi.url,
        description: 'Kafka Connect REST API for Connect tools (Basic/Bearer)',
      });
    }
    if (api.toolsAuth !== undefined) {
      new CfnOutput(this, 'ConnectToolsSecretArn', {
        value: api.toolsAuth.secret.secretArn,
        description: 'Connect tools credentials (JSON: principal name → secret)',
      });
    }
  }

  #kafka(config: AppConfig): KafkaAccessProps {
    const auth: KafkaAuth =
      config.kafkaAuth === 'scram'
        ? {
            mode: 'scram',
            secretArn: config.kafkaSecretArn ?? '',
            mechanism: config.kafkaScramMechanism,
            ...(config.kafkaSecretKeyArn === undefined
              ? {}
              : { secretKeyArn: config.kafkaSecretKeyArn }),
          }
        : { mode: config.kafkaAuth };
    const vpc: IVpc | undefined =
      config.vpcId === undefined ? undefined : Vpc.fromLookup(this, 'Vpc', { vpcId: config.vpcId });
    const securityGroups: ISecurityGroup[] = config.securityGroupIds.map((sg, i) =>
      SecurityGroup.fromSecurityGroupId(this, `SecurityGroup${i}`, sg),
    );
    const vpcSubnets =
      vpc === undefined || config.subnetIds.length === 0
        ? undefined
        : this.#subnets(vpc, config.subnetIds, config.vpcId ?? '');
    return {
      bootstrapServers: config.kafkaBootstrapServers,
      auth,
      ...(config.mskClusterArn === undefined ? {} : { mskClusterArn: config.mskClusterArn }),
      ...(config.kafkaTls === undefined ? {} : { tls: config.kafkaTls }),
      ...(config.kafkaCaCertificateFile === undefined
        ? {}
        : { caCertificatePem: readFileSync(config.kafkaCaCertificateFile, 'utf8') }),
      ...(vpc === undefined
        ? {}
        : {
            vpc,
            vpcEndpoints: config.vpcEndpoints,
            ...(vpcSubnets === undefined ? {} : { vpcSubnets }),
            ...(securityGroups.length === 0 ? {} : { securityGroups }),
          }),
    };
  }

  /** The databases' security groups, imported by id (each gets an ingress rule). */
  #databases(config: AppConfig): ConnectorDatabase[] {
    return config.databases.map(({ securityGroupId, port }, i) => ({
      securityGroup: SecurityGroup.fromSecurityGroupId(
        this,
        `DatabaseSecurityGroup${i}`,
        securityGroupId,
      ),
      port,
    }));
  }

  /**
   * The looked-up VPC's subnets with these ids, with their route tables (the gateway endpoints
   * are routed through them). Before the CLI has looked the VPC up (its first pass gets a
   * placeholder VPC), the placeholder's default subnets stand in.
   */
  #subnets(vpc: IVpc, ids: string[], vpcId: string): SubnetSelection | undefined {
    if (vpc.vpcId !== vpcId) return undefined;
    const known = new Map<string, ISubnet>(
      [...vpc.privateSubnets, ...vpc.isolatedSubnets, ...vpc.publicSubnets].map((s) => [
        s.subnetId,
        s,
      ]),
    );
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length > 0) {
      throw new Error(
        `Context subnetIds: ${missing.join(', ')} not in VPC ${vpcId} (its subnets: ${[...known.keys()].join(', ')})`,
      );
    }
    return { subnets: ids.map((id) => known.get(id) as ISubnet) };
  }

  #alarmTopic(config: AppConfig): Topic {
    const topic = new Topic(this, 'AlarmTopic', {
      displayName: 'serverless-connect alarms',
      enforceSSL: true,
    });
    topic.addSubscription(new EmailSubscription(config.alarmEmail ?? ''));
    Validations.of(topic).acknowledge({
      id: 'Serverless-SNSRedrivePolicy',
      reason:
        'An alarm e-mail that cannot be delivered leaves the alarm in ALARM on the console and the dashboard; a queue for lost e-mails would need an alarm of its own, notified through this same topic.',
    });
    Validations.of(topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry no data beyond the alarm; encrypting them would need a customer-managed key whose policy admits CloudWatch (the AWS-managed SNS key cannot).',
    });
    return topic;
  }
}

function connectToolsOptions(tools: AppConnectTools): ConnectToolsAuthOptions {
  const cache = Duration.seconds(tools.cacheSeconds);
  return {
    credentials: tools.credentials,
    ...(tools.secretArn === undefined ? {} : { secretArn: tools.secretArn }),
    ...(tools.secretKeyArn === undefined ? {} : { secretKeyArn: tools.secretKeyArn }),
    secretCacheTtl: cache,
    resultsCacheTtl: cache,
  };
}

export interface CreateAppOptions {
  /** Context values (as `-c key=value` would give them), merged over cdk.json's. */
  readonly context?: Record<string, unknown>;
}

/**
 * The default app (infra/bin/app.ts): the stack from context, in the CLI's default account and
 * region when it knows them, with the cdk-nag AwsSolutions and Serverless checks unless context
 * `nag` is false.
 */
export function createApp(options: CreateAppOptions = {}): {
  app: App;
  stack: ServerlessConnectStack;
  config: AppConfig;
} {
  const app = new App(options.context === undefined ? {} : { context: options.context });
  const config = readAppConfig((key) => app.node.tryGetContext(key));
  const account = process.env.CDK_DEFAULT_ACCOUNT;
  const region = process.env.CDK_DEFAULT_REGION;
  const stack = new ServerlessConnectStack(app, config.stackName, {
    config,
    ...(account === undefined && region === undefined
      ? {}
      : {
          env: {
            ...(account === undefined ? {} : { account }),
            ...(region === undefined ? {} : { region }),
          },
        }),
  });
  if (config.nag) {
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  }
  return { app, stack, config };
}
