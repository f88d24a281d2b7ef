import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BUNDLE_BUDGET_BYTES,
  ESBUILD_OPTIONS,
  functionEntry,
  REPO_ROOT,
} from '../../../infra/lib/bundling.js';
import { createApp } from '../../../infra/lib/serverless-connect-stack.js';
import {
  cdkJsonContext,
  iamStatements,
  resourcesOf,
  type Synthesized,
  statementOf,
  synthConstruct,
} from './synth.js';
import {
  connectToolsGivenSecret,
  iamOrConnectTools,
  SECRET_KEY_ARN,
  selfManagedPlain,
  TOOLS_SECRET_ARN,
} from './variants.js';

let iam: Synthesized;
let tools: Synthesized;
let either: Synthesized;

beforeAll(() => {
  iam = synthConstruct(selfManagedPlain);
  tools = synthConstruct(connectToolsGivenSecret);
  either = synthConstruct(iamOrConnectTools);
}, 60_000);

/** The REST API's logical id, as deployments made before the tools modes have it. */
const IAM_API_ID = 'ConnectRestApiF4A304F2';

const ids = (s: Synthesized, type: string) => Object.keys(resourcesOf(s.template, type));

/** Each API's methods (by the API's logical id): `METHOD path` → authorization. */
function methodsByApi(s: Synthesized): Record<string, Record<string, unknown>> {
  const paths = Object.fromEntries(
    Object.entries(resourcesOf(s.template, 'AWS::ApiGateway::Resource')).map(([id, r]) => [
      id,
      r.Properties.PathPart as string,
    ]),
  );
  const byApi: Record<string, Record<string, unknown>> = {};
  for (const m of Object.values(resourcesOf(s.template, 'AWS::ApiGateway::Method'))) {
    const api = (m.Properties.RestApiId as { Ref: string }).Ref;
    const ref = (m.Properties.ResourceId as { Ref?: string }).Ref;
    const path = ref === undefined ? '/' : (paths[ref] ?? '?');
    byApi[api] ??= {};
    const { AuthorizationType, AuthorizerId, ApiKeyRequired } = m.Properties;
    byApi[api][`${m.Properties.HttpMethod as string} ${path}`] = {
      auth: AuthorizationType,
      ...(AuthorizerId === undefined ? {} : { authorizer: AuthorizerId }),
      ...(ApiKeyRequired === undefined ? {} : { key: ApiKeyRequired }),
    };
  }
  return byApi;
}

const authorizerRef = (s: Synthesized) => {
  const [id] = ids(s, 'AWS::ApiGateway::Authorizer');
  return { Ref: id };
};

describe("auth 'iam' (the default)", () => {
  it('keeps one IAM-authorized API, its construct ids, and no authorizer, secret or fifth function', () => {
    // Act
    const methods = methodsByApi(iam);
    // Assess
    // The logical ids of the API and its access logs before the tools modes existed.
    expect(ids(iam, 'AWS::ApiGateway::RestApi')).toEqual([IAM_API_ID]);
    expect(ids(iam, 'AWS::Logs::LogGroup')).toContain('ConnectRestApiAccessLogs7330C36F');
    expect(Object.values(methods)).toEqual([
      {
        'ANY /': { auth: 'AWS_IAM', key: false },
        'ANY {proxy+}': { auth: 'AWS_IAM', key: false },
        'GET openapi.json': { auth: 'AWS_IAM', key: false },
      },
    ]);
    iam.template.resourceCountIs('AWS::ApiGateway::Authorizer', 0);
    iam.template.resourceCountIs('AWS::SecretsManager::Secret', 0);
    iam.template.resourceCountIs('AWS::Lambda::Function', 4);
  });
});

describe("auth 'connect-tools'", () => {
  it('puts the REQUEST authorizer on every method of the one API', () => {
    // Act
    const methods = Object.values(methodsByApi(tools));
    // Assess
    const custom = { auth: 'CUSTOM', authorizer: authorizerRef(tools), key: false };
    expect(methods).toEqual([
      { 'ANY /': custom, 'ANY {proxy+}': custom, 'GET openapi.json': custom },
    ]);
    tools.template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: 60,
    });
  });

  it('runs the authorizer function with the secret, the schemes and the cache TTL', () => {
    // Act
    const fn = Object.entries(resourcesOf(tools.template, 'AWS::Lambda::Function')).find(([id]) =>
      id.startsWith('ConnectRestApiConnectToolsAuthorizer'),
    );
    // Assess
    expect(fn?.[1].Properties).toMatchObject({
      MemorySize: 256,
      Timeout: 10,
      Environment: {
        Variables: {
          CREDENTIALS_SECRET_ARN: TOOLS_SECRET_ARN,
          CREDENTIALS_SCHEMES: 'basic',
          CREDENTIALS_CACHE_TTL_SECONDS: '60',
        },
      },
    });
    expect(fn?.[1].Properties).not.toHaveProperty('VpcConfig');
  });

  it('grants GetSecretValue on that secret only, and its key through Secrets Manager only', () => {
    // Prepare
    const role = 'ConnectRestApiConnectToolsAuthorizerRole';
    // Act
    const secret = statementOf(tools.template, role, 'ConnectToolsSecret');
    const key = statementOf(tools.template, role, 'ConnectToolsSecretKey');
    const onSecret = iamStatements(tools.template).filter(({ statement }) =>
      JSON.stringify(statement.Resource).includes('connect-tools-AbCdEf'),
    );
    // Assess
    expect(secret).toEqual({
      Sid: 'ConnectToolsSecret',
      Effect: 'Allow',
      Action: 'secretsmanager:GetSecretValue',
      Resource: TOOLS_SECRET_ARN,
    });
    expect(key).toEqual({
      Sid: 'ConnectToolsSecretKey',
      Effect: 'Allow',
      Action: 'kms:Decrypt',
      Resource: SECRET_KEY_ARN,
      Condition: { StringEquals: { 'kms:ViaService': 'secretsmanager.eu-west-1.amazonaws.com' } },
    });
    expect(onSecret.map(({ where }) => where)).toEqual([
      expect.stringMatching(new RegExp(`^${role}`)),
    ]);
  });

  it('lets API Gateway invoke the authorizer for this API only', () => {
    const permissions = Object.values(
      resourcesOf(tools.template, 'AWS::Lambda::Permission'),
    ).filter((p) => JSON.stringify(p.Properties.FunctionName).includes('ConnectToolsAuthorizer'));
    expect(permissions).toHaveLength(1);
    expect(JSON.stringify(permissions[0]?.Properties.SourceArn)).toMatch(
      new RegExp(`"Ref":"${IAM_API_ID}"},"/authorizers/"`),
    );
  });

  it('answers 401 with a Basic challenge and 403, in Kafka Connect error bodies', () => {
    tools.template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'UNAUTHORIZED',
      StatusCode: '401',
      ResponseParameters: {
        'gatewayresponse.header.WWW-Authenticate': `'Basic realm="serverless-connect"'`,
      },
      ResponseTemplates: {
        'application/json': '{"error_code":401,"message":$context.error.messageString}',
      },
    });
    tools.template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'ACCESS_DENIED',
      StatusCode: '403',
    });
  });
});

describe("auth 'iam-or-connect-tools'", () => {
  it('serves an IAM API and a second, Basic/Bearer API over the same function and throttling', () => {
    // Act
    const byApi = methodsByApi(either);
    const [iamApi, toolsApi] = ids(either, 'AWS::ApiGateway::RestApi');
    const stages = Object.values(resourcesOf(either.template, 'AWS::ApiGateway::Stage'));
    // Assess
    expect(iamApi).toBe(IAM_API_ID);
    expect(toolsApi).toMatch(/^ConnectRestApiToolsApi/);
    const custom = { auth: 'CUSTOM', authorizer: authorizerRef(either), key: false };
    // The OpenAPI document is public in this variant (publicOpenApi), on both APIs.
    const open = { auth: 'NONE', key: false };
    expect(byApi[iamApi ?? '']).toEqual({
      'ANY /': { auth: 'AWS_IAM', key: false },
      'ANY {proxy+}': { auth: 'AWS_IAM', key: false },
      'GET openapi.json': open,
    });
    expect(byApi[toolsApi ?? '']).toEqual({
      'ANY /': custom,
      'ANY {proxy+}': custom,
      'GET openapi.json': open,
    });
    expect(stages).toHaveLength(2);
    for (const stage of stages) {
      expect(stage.Properties).toMatchObject({
        StageName: 'v1',
        MethodSettings: [
          expect.objectContaining({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 }),
        ],
        AccessLogSetting: expect.objectContaining({ DestinationArn: expect.anything() }),
      });
    }
    const integrations = Object.values(resourcesOf(either.template, 'AWS::ApiGateway::Method'))
      .map((m) => JSON.stringify((m.Properties.Integration as { Uri: unknown }).Uri))
      .map((uri) => /ConnectFunctionsApiFunction[0-9A-F]{8}/.exec(uri)?.[0]);
    expect(new Set(integrations).size).toBe(1);
  });

  it('keeps one account-wide logging role, which the second stage waits for', () => {
    either.template.resourceCountIs('AWS::ApiGateway::Account', 1);
    const [account] = ids(either, 'AWS::ApiGateway::Account');
    const toolsStage = Object.entries(resourcesOf(either.template, 'AWS::ApiGateway::Stage')).find(
      ([id]) => id.startsWith('ConnectRestApiToolsApi'),
    );
    expect(toolsStage?.[1].DependsOn).toContain(account);
  });

  it('alarms on the authorizer errors and on the second API 5xx answers, with runbook links', () => {
    // Act
    const alarms = Object.values(resourcesOf(either.template, 'AWS::CloudWatch::Alarm'));
    const find = (metric: string, dimension: RegExp) =>
      alarms.filter(
        (a) =>
          a.Properties.MetricName === metric &&
          dimension.test(JSON.stringify(a.Properties.Dimensions)),
      );
    // Assess
    const authorizer = find('Errors', /ConnectTools/);
    const toolsApi = find('5XXError', /ToolsApi/);
    expect(authorizer).toHaveLength(1);
    expect(toolsApi).toHaveLength(1);
    expect(authorizer[0]?.Properties.AlarmDescription).toMatch(/runbook\.md#authorizer-errors$/);
    expect(toolsApi[0]?.Properties.AlarmDescription).toMatch(/runbook\.md#tools-api-5xx-errors$/);
  });

  it('associates the web ACL with both stages', () => {
    either.template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 2);
  });

  it('generates the secret {"connect": <40 letters and digits>} and grants only that one', () => {
    // Act
    const [secretId] = ids(either, 'AWS::SecretsManager::Secret');
    const statement = statementOf(
      either.template,
      'ConnectRestApiConnectToolsAuthorizerRole',
      'ConnectToolsSecret',
    );
    // Assess
    either.template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: {
        SecretStringTemplate: '{}',
        GenerateStringKey: 'connect',
        PasswordLength: 40,
        ExcludePunctuation: true,
      },
    });
    expect(statement.Resource).toEqual({ Ref: secretId });
    expect(() =>
      statementOf(
        either.template,
        'ConnectRestApiConnectToolsAuthorizerRole',
        'ConnectToolsSecretKey',
      ),
    ).toThrow();
  });
});

describe('ControlPlaneApi and ConnectToolsAuth props', () => {
  it('refuses connectTools outside the tools modes, a partial secret ARN and a lone key', () => {
    const plain = selfManagedPlain();
    expect(() =>
      synthConstruct(() => ({
        ...plain,
        api: { auth: 'iam', connectTools: { credentials: 'basic' } },
      })),
    ).toThrow(/connectTools needs auth 'connect-tools' or 'iam-or-connect-tools' \(got 'iam'\)/);
    expect(() =>
      synthConstruct(() => ({
        ...plain,
        api: {
          auth: 'connect-tools',
          connectTools: {
            secretArn: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:connect-tools',
          },
        },
      })),
    ).toThrow(/secretArn must be a secret's complete ARN/);
    expect(() =>
      synthConstruct(() => ({
        ...plain,
        api: { auth: 'connect-tools', connectTools: { secretKeyArn: SECRET_KEY_ARN } },
      })),
    ).toThrow(/secretKeyArn is the key of a given secretArn/);
  });
});

describe('the default app in a tools mode', () => {
  it('synthesizes cdk-nag clean and outputs the tools URL and the secret ARN', () => {
    // Prepare
    const created = createApp({
      context: {
        ...cdkJsonContext(),
        'aws:cdk:bundling-stacks': [],
        apiAuth: 'iam-or-connect-tools',
        connectToolsCredentials: 'bearer',
        connectToolsCacheSeconds: '30',
      },
    });
    // Act (the nag plugin fails the synthesis on an unacknowledged finding)
    const assembly = created.app.synth();
    const template = Template.fromJSON(
      assembly.getStackArtifact(created.stack.artifactId).template,
    );
    // Assess
    expect(Object.keys(template.findOutputs('*'))).toEqual(
      expect.arrayContaining(['RestApiUrl', 'ToolsApiUrl', 'ConnectToolsSecretArn']),
    );
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      AuthorizerResultTtlInSeconds: 30,
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: { CREDENTIALS_SCHEMES: 'bearer', CREDENTIALS_CACHE_TTL_SECONDS: '30' },
      },
    });
  }, 60_000);
});

describe('the authorizer bundle', () => {
  it('holds neither kafkajs nor the engine, and is far within the budget', async () => {
    // Act
    const result = await build({
      entryPoints: [functionEntry('authorizer')],
      ...ESBUILD_OPTIONS,
      external: [...ESBUILD_OPTIONS.external],
      sourcemap: false,
      write: false,
      metafile: true,
      outfile: join(REPO_ROOT, 'dist', 'authorizer-probe.mjs'),
    });
    // Assess
    // What the bundle holds: the files with bytes in its output (a module that is only parsed,
    // its exports tree-shaken away, holds nothing).
    const held = Object.values(result.metafile.outputs).flatMap((output) =>
      Object.entries(output.inputs)
        .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
        .map(([input]) => input),
    );
    expect(held).toContain('functions/authorizer/handler.ts');
    expect(held.filter((i) => /kafkajs|shared\/engine|shared\/runtime/.test(i))).toEqual([]);
    const bytes = result.outputFiles.reduce((sum, f) => sum + f.contents.length, 0);
    expect(bytes).toBeLessThan(BUNDLE_BUDGET_BYTES / 50);
  });
});
