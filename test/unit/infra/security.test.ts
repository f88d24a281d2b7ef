import { Duration, Validations } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../infra/lib/serverless-connect-stack.js';
import {
  asArray,
  cdkJsonContext,
  iamStatements,
  nagViolations,
  resourcesOf,
  type Synthesized,
  statementOf,
  synthConstruct,
} from './synth.js';
import { SECRET_ARN, SECRET_KEY_ARN, VARIANTS, WEB_ACL_ARN } from './variants.js';

/**
 * Statements allowed a bare "*" resource, each because AWS supports no resource-level permission
 * for its actions (commented where the statement is written).
 */
const STAR_ALLOWED = new Set([
  'SinkMappingsCreate', // lambda:CreateEventSourceMapping, with a lambda:FunctionArn condition
  'SinkMappingsList', // lambda:ListEventSourceMappings
  'NetworkInterfacesDescribe', // ec2:Describe*
  'XRayWrite', // xray:PutTraceSegments, PutTelemetryRecords
]);
/** Statements allowed a wildcard inside an ARN (names chosen at run time), all scoped. */
const PATTERN_ALLOWED = new Set([
  'DataBucketSinkObjects',
  'DataBucketSourceObjects',
  'SinkAliases',
  'SinkMappingsChange',
  'SinkMappingsReadAndTag',
  'NetworkInterfacesManage',
  'MskIamTopics',
  'MskIamGroups',
  'MskIamTransactionalIds',
]);

const synthesized: Record<string, Synthesized> = {};

beforeAll(() => {
  for (const [name, props] of Object.entries(VARIANTS)) synthesized[name] = synthConstruct(props);
}, 60_000);

const refs = (value: unknown): string => JSON.stringify(value);

describe('IAM policies', () => {
  it.each(Object.keys(VARIANTS))('allow "*" resources only where AWS requires it (%s)', (name) => {
    // Prepare
    const statements = iamStatements(synthesized[name]?.template ?? fail(name));
    // Act
    const offending = statements.filter(({ statement }) => {
      if (statement.Effect !== 'Allow') return false;
      const resources = asArray(statement.Resource);
      const star = resources.some((r) => r === '*');
      const pattern = resources.some((r) => typeof r !== 'string' && refs(r).includes('*'));
      const sid = statement.Sid ?? '';
      return (star && !STAR_ALLOWED.has(sid)) || (pattern && !PATTERN_ALLOWED.has(sid));
    });
    // Assess
    expect(offending).toEqual([]);
  });

  it.each(Object.keys(VARIANTS))('never grant a wildcard action (%s)', (name) => {
    const actions = iamStatements(synthesized[name]?.template ?? fail(name)).flatMap(
      ({ statement }) => asArray(statement.Action),
    );
    expect(actions.filter((a) => a.includes('*'))).toEqual([]);
  });

  it('limits table, bucket, invoke and sink-management actions to this deployment', () => {
    // Prepare
    const statements = iamStatements(
      synthesized['self-managed cluster without auth']?.template ?? fail('default'),
    ).map((s) => s.statement);
    const onActions = (prefix: string) =>
      statements.filter((s) => asArray(s.Action).some((a) => a.startsWith(prefix)));
    // Act
    const dynamo = onActions('dynamodb:').map((s) => refs(s.Resource));
    const s3 = onActions('s3:').map((s) => refs(s.Resource));
    const invoke = onActions('lambda:InvokeFunction').map((s) => s.Resource);
    const sinkManagement = onActions('lambda:').filter((s) => s.Sid?.startsWith('Sink'));
    // Assess
    for (const r of dynamo) expect(r).toMatch(/ConnectStateTable[0-9A-F]{8}/);
    for (const r of s3) expect(r).toMatch(/ConnectDataBucket[0-9A-F]{8}/);
    expect(invoke).toEqual(
      expect.arrayContaining([
        { 'Fn::GetAtt': [expect.stringMatching(/^ConnectFunctionsEnumeratorFunction/), 'Arn'] },
        { 'Fn::GetAtt': [expect.stringMatching(/^ConnectFunctionsSourceTaskFunction/), 'Arn'] },
      ]),
    );
    expect(invoke).toHaveLength(2);
    expect(sinkManagement.map((s) => s.Sid)).toHaveLength(5);
    // ListEventSourceMappings is the one that AWS cannot scope (see STAR_ALLOWED).
    for (const s of sinkManagement.filter((s) => s.Sid !== 'SinkMappingsList')) {
      const scope = refs(s.Resource) + refs(s.Condition ?? {});
      expect(scope).toMatch(/ConnectFunctionsSinkTaskFunction|event-source-mapping:\*/);
    }
    expect(
      statementOf(
        synthesized['self-managed cluster without auth']?.template ?? fail('d'),
        'ConnectFunctionsEnumerator',
        'SinkMappingsCreate',
      ).Condition,
    ).toEqual({
      ArnLike: {
        'lambda:FunctionArn': [
          { 'Fn::GetAtt': [expect.stringMatching(/^ConnectFunctionsSinkTaskFunction/), 'Arn'] },
          {
            'Fn::Join': [
              '',
              [
                {
                  'Fn::GetAtt': [expect.stringMatching(/^ConnectFunctionsSinkTaskFunction/), 'Arn'],
                },
                ':*',
              ],
            ],
          },
        ],
      },
    });
  });

  it('gives each function role logs on its own log group only', () => {
    const template = synthesized['self-managed cluster without auth']?.template ?? fail('d');
    for (const fn of ['Api', 'Enumerator', 'SourceTask', 'SinkTask']) {
      const statement = statementOf(template, `ConnectFunctions${fn}Role`, 'OwnLogGroup');
      expect(statement.Resource).toEqual({
        'Fn::GetAtt': [expect.stringMatching(new RegExp(`^ConnectFunctions${fn}Logs`)), 'Arn'],
      });
    }
  });

  it('grants the SCRAM secret, and its key through Secrets Manager only, to every function', () => {
    const template =
      synthesized['self-managed SCRAM in a VPC with endpoints and a table key']?.template ??
      fail('scram');
    for (const fn of ['Api', 'Enumerator', 'SourceTask', 'SinkTask']) {
      const secret = statementOf(template, `ConnectFunctions${fn}Role`, 'KafkaScramSecret');
      expect(secret).toMatchObject({
        Action: 'secretsmanager:GetSecretValue',
        Resource: SECRET_ARN,
      });
      const key = statementOf(template, `ConnectFunctions${fn}Role`, 'KafkaScramSecretKey');
      expect(key).toMatchObject({
        Action: 'kms:Decrypt',
        Resource: SECRET_KEY_ARN,
        Condition: { StringEquals: { 'kms:ViaService': 'secretsmanager.eu-west-1.amazonaws.com' } },
      });
    }
  });
});

describe('cdk-nag AwsSolutions and Serverless', () => {
  // The first cdk-nag run loads every rule: allow for a busy machine.
  it.each(Object.keys(VARIANTS))(
    'reports no unacknowledged finding (%s)',
    (name) => {
      expect(nagViolations(synthesized[name]?.app ?? fail(name))).toEqual([]);
    },
    30_000,
  );

  it('justifies every acknowledgment with a reason', () => {
    // Prepare
    const reasons: string[] = [];
    for (const { app } of Object.values(synthesized)) {
      for (const construct of app.node.findAll()) {
        for (const entry of construct.node.metadata) {
          if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
          reasons.push(...Object.values(entry.data as Record<string, string>));
        }
      }
    }
    // Assess
    expect(reasons.length).toBeGreaterThan(10);
    for (const reason of reasons) expect(reason.length).toBeGreaterThanOrEqual(60);
  });

  it('fails the default app synthesis on an unjustified wildcard', () => {
    // Prepare
    const context = { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] };
    const clean = createApp({ context });
    const dirty = createApp({ context });
    dirty.stack.connect.functions.api.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:GetObject'], resources: ['*'] }),
    );
    // Act
    const synthClean = () => clean.app.synth();
    const synthDirty = () => dirty.app.synth();
    // Assess
    expect(synthClean).not.toThrow();
    expect(synthDirty).toThrow(/[Vv]alidation/);
  }, 30_000);

  it('fails the default app synthesis on an unacknowledged Serverless finding', () => {
    // Prepare: a second schedule of the api function, its target without a dead letter queue.
    const context = { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] };
    const dirty = createApp({ context });
    new Rule(dirty.stack, 'ExtraSchedule', {
      schedule: Schedule.rate(Duration.hours(1)),
      targets: [new LambdaFunction(dirty.stack.connect.functions.api.function)],
    });
    // Act
    const report = nagViolations(dirty.app);
    const synthDirty = () => dirty.app.synth();
    // Assess
    expect(report).toEqual([
      { rule: 'error Serverless-EventBusDLQ', paths: ['ServerlessConnect/ExtraSchedule/Resource'] },
    ]);
    expect(synthDirty).toThrow(/[Vv]alidation/);
  }, 30_000);
});

const KEY_ONLY = 'API key, public OpenAPI document, web ACL and alarm topic';
const BOTH = 'IAM signature and API key';
const variant = (name: string): Synthesized => synthesized[name] ?? fail(name);

/** Each method's path part (root `/`) with its authorization settings. */
function methods(s: Synthesized): Record<string, { auth: unknown; key: unknown }> {
  const paths = Object.fromEntries(
    Object.entries(resourcesOf(s.template, 'AWS::ApiGateway::Resource')).map(([id, r]) => [
      id,
      r.Properties.PathPart as string,
    ]),
  );
  return Object.fromEntries(
    Object.values(resourcesOf(s.template, 'AWS::ApiGateway::Method')).map((m) => {
      const ref = (m.Properties.ResourceId as { Ref?: string }).Ref;
      const path = ref === undefined ? '/' : (paths[ref] ?? '?');
      return [
        `${m.Properties.HttpMethod as string} ${path}`,
        { auth: m.Properties.AuthorizationType, key: m.Properties.ApiKeyRequired },
      ];
    }),
  );
}

describe('REST API authorization', () => {
  it('requires an API key on every method in api-key mode, except a public /openapi.json', () => {
    expect(methods(variant(KEY_ONLY))).toEqual({
      'ANY /': { auth: 'NONE', key: true },
      'ANY {proxy+}': { auth: 'NONE', key: true },
      'GET openapi.json': { auth: 'NONE', key: false },
    });
  });

  it('requires both a signature and a key in iam-and-api-key mode', () => {
    expect(methods(variant(BOTH))).toEqual({
      'ANY /': { auth: 'AWS_IAM', key: true },
      'ANY {proxy+}': { auth: 'AWS_IAM', key: true },
      'GET openapi.json': { auth: 'AWS_IAM', key: true },
    });
  });

  it('limits API keys with a usage plan on the stage', () => {
    variant(KEY_ONLY).template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      Throttle: { RateLimit: 50, BurstLimit: 100 },
      Quota: { Limit: 100_000, Period: 'MONTH' },
      ApiStages: [Match.objectLike({ Stage: Match.anyValue() })],
    });
    variant(KEY_ONLY).template.resourceCountIs('AWS::ApiGateway::ApiKey', 1);
    variant(KEY_ONLY).template.resourceCountIs('AWS::ApiGateway::UsagePlanKey', 1);
    variant(BOTH).template.resourceCountIs('AWS::ApiGateway::UsagePlan', 1);
  });

  it('associates the given web ACL with the stage', () => {
    variant(KEY_ONLY).template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      WebACLArn: WEB_ACL_ARN,
      ResourceArn: Match.objectLike({ 'Fn::Join': Match.anyValue() }),
    });
  });
});

describe('S3 source notifications', () => {
  it('wakes the enumerator for new objects under the given prefixes of the data bucket only', () => {
    // Prepare
    const { template } = variant(KEY_ONLY);
    // Act
    const rules = Object.values(resourcesOf(template, 'AWS::Events::Rule')).filter(
      (r) => r.Properties.EventPattern !== undefined,
    );
    // Assess
    expect(rules).toHaveLength(1);
    expect(rules[0]?.Properties.EventPattern).toEqual({
      source: ['aws.s3'],
      'detail-type': ['Object Created'],
      detail: {
        bucket: { name: [{ Ref: expect.stringMatching(/^ConnectDataBucket/) }] },
        object: { key: [{ prefix: 'incoming/' }, { prefix: 'landing/' }] },
      },
    });
    template.hasResourceProperties('AWS::S3::Bucket', {
      NotificationConfiguration: { EventBridgeConfiguration: { EventBridgeEnabled: true } },
    });
  });
});

function fail(name: string): never {
  throw new Error(`variant ${name} was not synthesized`);
}
