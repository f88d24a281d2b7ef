import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALARM_RUNBOOK_SECTIONS, CONNECT_TOOLS_ALARMS } from '../../../infra/lib/alarms.js';
import { BUNDLE_BUDGET_BYTES, ESM_REQUIRE_BANNER, REPO_ROOT } from '../../../infra/lib/bundling.js';
import { createApp } from '../../../infra/lib/serverless-connect-stack.js';
import { STATE_TABLE } from '../../../shared/adapters/dynamodb/table-schema.js';
import { PROBE_CLASS_NAME } from '../../fixtures/plugins/cdk-probe-plugin.js';
import {
  bundleSources,
  cdkJsonContext,
  functionBundles,
  nagViolations,
  resourcesOf,
} from './synth.js';

/**
 * The default app (infra/bin/app.ts) with cdk.json's context and an alarm e-mail, synthesized
 * once with the real bundling (local esbuild, no Docker, no AWS credentials).
 */
let app: App;
let template: Template;
let assemblyDir: string;

const logicalIdOf = (prefix: string, type: string): string => {
  const id = Object.keys(resourcesOf(template, type)).find((k) => k.startsWith(prefix));
  if (id === undefined) throw new Error(`no ${type} named ${prefix}*`);
  return id;
};
const fnId = (name: string) =>
  logicalIdOf(`ConnectFunctions${name}Function`, 'AWS::Lambda::Function');
const fnProps = (name: string) =>
  resourcesOf(template, 'AWS::Lambda::Function')[fnId(name)]?.Properties ?? {};

beforeAll(() => {
  const created = createApp({
    context: { ...cdkJsonContext(), alarmEmail: 'ops@example.com', nag: 'false' },
  });
  app = created.app;
  const assembly = app.synth();
  assemblyDir = assembly.directory;
  template = Template.fromJSON(assembly.getStackArtifact(created.stack.artifactId).template);
}, 60_000);

describe('default app', () => {
  it('bundles every function with the local esbuild into one ESM file within the 1.5 MB budget', () => {
    // Act
    const bundles = Object.values(functionBundles(template, assemblyDir));
    // Assess
    expect(bundles).toHaveLength(4);
    for (const bundle of bundles) {
      expect(existsSync(`${bundle}.map`)).toBe(true);
      expect(statSync(bundle).size).toBeLessThanOrEqual(BUNDLE_BUDGET_BYTES);
      expect(readFileSync(bundle, 'utf8').startsWith(ESM_REQUIRE_BANNER)).toBe(true);
    }
  });

  it('bundles the functions from the repository and no plugin package without the plugins key', () => {
    for (const bundle of Object.values(functionBundles(template, assemblyDir))) {
      expect(readFileSync(bundle, 'utf8')).not.toContain(PROBE_CLASS_NAME);
      expect(bundleSources(bundle).some((s) => s.startsWith(join(REPO_ROOT, 'functions')))).toBe(
        true,
      );
    }
  });

  it('runs every function on nodejs24.x, ARM64, with the exported handler and source maps', () => {
    for (const name of ['Api', 'Enumerator', 'SourceTask', 'SinkTask']) {
      expect(fnProps(name)).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Environment: { Variables: { NODE_OPTIONS: '--enable-source-maps' } },
      });
    }
  });

  it('gives each function its own log group with a 30-day retention', () => {
    for (const name of ['Api', 'Enumerator', 'SourceTask', 'SinkTask']) {
      const group = logicalIdOf(`ConnectFunctions${name}Logs`, 'AWS::Logs::LogGroup');
      expect(fnProps(name).LoggingConfig).toEqual({ LogGroup: { Ref: group } });
      expect(resourcesOf(template, 'AWS::Logs::LogGroup')[group]?.Properties).toEqual({
        RetentionInDays: 30,
      });
    }
  });

  it('wires the enumerator to the source and sink functions and the api to the enumerator', () => {
    expect(fnProps('Enumerator').Environment).toMatchObject({
      Variables: {
        SOURCE_TASK_FUNCTION: { Ref: fnId('SourceTask') },
        SINK_TASK_FUNCTION: { Ref: fnId('SinkTask') },
        STATE_TABLE: { Ref: logicalIdOf('ConnectStateTable', 'AWS::DynamoDB::GlobalTable') },
        KAFKA_BROKERS: 'localhost:9092',
        KAFKA_SSL: 'false',
      },
    });
    expect(fnProps('Api').Environment).toMatchObject({
      Variables: { ENUMERATOR_FUNCTION: { Ref: fnId('Enumerator') } },
    });
  });

  it('reserves concurrency 2 for the enumerator and none for the task functions', () => {
    expect(fnProps('Enumerator').ReservedConcurrentExecutions).toBe(2);
    for (const name of ['Api', 'SourceTask', 'SinkTask']) {
      expect(fnProps(name).ReservedConcurrentExecutions).toBeUndefined();
    }
  });

  it('builds the state table from the schema: on demand, PITR, stream, TTL, encrypted, protected, retained', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: STATE_TABLE.partitionKey.name, KeyType: 'HASH' },
          { AttributeName: STATE_TABLE.sortKey.name, KeyType: 'RANGE' },
        ],
        StreamSpecification: { StreamViewType: STATE_TABLE.stream.viewType },
        TimeToLiveSpecification: { AttributeName: STATE_TABLE.timeToLiveAttribute, Enabled: true },
        SSESpecification: { SSEEnabled: true },
        GlobalSecondaryIndexes: [
          Match.objectLike({
            IndexName: STATE_TABLE.connectorIndex.name,
            Projection: { ProjectionType: 'KEYS_ONLY' },
          }),
        ],
        Replicas: [
          Match.objectLike({
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: {
              PointInTimeRecoveryEnabled: true,
              RecoveryPeriodInDays: 35,
            },
          }),
        ],
      }),
    });
  });

  it('keeps the data bucket private, TLS-only, encrypted, unversioned, logged and retained', () => {
    const bucket = logicalIdOf('ConnectDataBucket', 'AWS::S3::Bucket');
    template.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [
            { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
          ],
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        VersioningConfiguration: Match.absent(),
        LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'data-bucket/' }),
      }),
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucket },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  it('requires SigV4 (AWS_IAM) on every REST API method, with a greedy proxy and /openapi.json', () => {
    const methods = Object.values(resourcesOf(template, 'AWS::ApiGateway::Method'));
    expect(methods.length).toBe(3);
    for (const method of methods) {
      expect(method.Properties).toMatchObject({
        AuthorizationType: 'AWS_IAM',
        Integration: { Type: 'AWS_PROXY' },
      });
    }
    template.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: '{proxy+}' });
    template.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: 'openapi.json' });
    template.resourceCountIs('AWS::ApiGateway::UsagePlan', 0);
  });

  it('logs REST API access as JSON and throttles the stage', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'v1',
      AccessLogSetting: {
        DestinationArn: {
          'Fn::GetAtt': [logicalIdOf('ConnectRestApiAccessLogs', 'AWS::Logs::LogGroup'), 'Arn'],
        },
        Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"'),
      },
      MethodSettings: [
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          LoggingLevel: 'ERROR',
          ThrottlingRateLimit: 50,
          ThrottlingBurstLimit: 100,
        }),
      ],
    });
  });

  it('runs the enumerator every minute and on CONNECTOR and RESTART changes of the table stream', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({ Arn: { 'Fn::GetAtt': [fnId('Enumerator'), 'Arn'] }, Input: '{}' }),
      ],
    });
    const esm = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping'));
    expect(esm).toHaveLength(1);
    expect(esm[0]?.Properties).toMatchObject({
      FunctionName: { Ref: fnId('Enumerator') },
      StartingPosition: 'LATEST',
      EventSourceArn: {
        'Fn::GetAtt': [logicalIdOf('ConnectStateTable', 'AWS::DynamoDB::GlobalTable'), 'StreamArn'],
      },
    });
    const criteria = (esm[0]?.Properties.FilterCriteria ?? { Filters: [] }) as {
      Filters: { Pattern: string }[];
    };
    const pattern = JSON.parse(criteria.Filters[0]?.Pattern ?? '{}');
    expect(pattern).toEqual({
      dynamodb: { Keys: { pk: { S: [{ prefix: 'C#' }] }, sk: { S: ['CONNECTOR', 'RESTART'] } } },
    });
  });

  it('sends failed source-task dispatches, without retries, to an encrypted TLS-only queue', () => {
    const dlq = logicalIdOf('ConnectFunctionsSourceTaskDlq', 'AWS::SQS::Queue');
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: fnId('SourceTask') },
      MaximumRetryAttempts: 0,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [dlq, 'Arn'] } } },
    });
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: dlq }],
      PolicyDocument: {
        Statement: [
          Match.objectLike({
            Effect: 'Deny',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ],
      },
    });
  });

  it('outputs the REST API URL, the table, the bucket and the queue', () => {
    const outputs = Object.keys(template.findOutputs('*'));
    expect(outputs).toEqual(
      expect.arrayContaining([
        'RestApiUrl',
        'StateTableName',
        'DataBucketName',
        'SourceTaskDlqUrl',
      ]),
    );
  });

  // The first cdk-nag run loads every rule: allow for a busy machine.
  it('passes the cdk-nag AwsSolutions checks with no unacknowledged finding', () => {
    expect(nagViolations(app)).toEqual([]);
  }, 30_000);
});

/** GitHub's anchors of the runbook's `##` headings. */
function runbookAnchors(): Set<string> {
  const text = readFileSync(join(REPO_ROOT, 'docs', 'runbook.md'), 'utf8');
  const headings = [...text.matchAll(/^## (.+)$/gm)].map((m) => m[1] ?? '');
  return new Set(
    headings.map((h) =>
      h
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, '')
        .replace(/ /g, '-'),
    ),
  );
}

const alarms = () => Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'));

describe('default app monitoring', () => {
  it('links every alarm to an existing section of docs/runbook.md', () => {
    // Prepare
    const anchors = runbookAnchors();
    // Act
    const links = alarms().map((a) =>
      /Runbook: docs\/runbook\.md#([a-z0-9-]+)$/.exec(a.Properties.AlarmDescription as string),
    );
    // Assess
    // The default app authorizes with IAM: the Connect tools' alarms are not there.
    expect(links).toHaveLength(
      Object.keys(ALARM_RUNBOOK_SECTIONS).length - CONNECT_TOOLS_ALARMS.length,
    );
    for (const link of links) expect(anchors).toContain(link?.[1]);
    expect(new Set(links.map((l) => l?.[1])).size).toBe(links.length);
  });

  it('alarms on errors and throttles of each of the four functions', () => {
    const byMetric = (name: string) =>
      alarms().filter(
        (a) => a.Properties.MetricName === name && a.Properties.Namespace === 'AWS/Lambda',
      );
    expect(byMetric('Errors')).toHaveLength(4);
    expect(byMetric('Throttles')).toHaveLength(4);
  });

  it('alarms on the dead letter queue, the sink offset lag and reconcile failures', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 1,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'OffsetLag',
      Statistic: 'Maximum',
      Threshold: 100_000,
      EvaluationPeriods: 3,
      Dimensions: [
        {
          Name: 'FunctionName',
          Value: { Ref: Match.stringLikeRegexp('^ConnectFunctionsSinkTask') },
        },
      ],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'ServerlessConnect/ServerlessConnect',
      MetricName: 'ConnectorReconcileFailures',
    });
  });

  it('counts enumerator runs that left a connector failed with a log metric filter', () => {
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ ($.message = "enumerator run") && ($.failed[0] = "*") }',
      MetricTransformations: [
        {
          MetricNamespace: 'ServerlessConnect/ServerlessConnect',
          MetricName: 'ConnectorReconcileFailures',
          MetricValue: '1',
          DefaultValue: 0,
        },
      ],
    });
  });

  it('notifies the alarm e-mail topic on alarm and on recovery', () => {
    for (const alarm of alarms()) {
      expect(alarm.Properties.AlarmActions).toEqual([
        { Ref: expect.stringMatching(/^AlarmTopic/) },
      ]);
      expect(alarm.Properties.OKActions).toEqual([{ Ref: expect.stringMatching(/^AlarmTopic/) }]);
    }
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });

  it('builds one dashboard', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });
});
