import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  EndpointType,
  type IApiKey,
  type IAuthorizer,
  type IRestApi,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  Period,
  ResponseType,
  RestApi,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { ConnectToolsAuth, type ConnectToolsAuthOptions } from './connect-tools-auth.js';

/**
 * Who may call the REST API:
 * - `iam`: SigV4-signed requests of principals allowed `execute-api:Invoke` (curl --aws-sigv4,
 *   scripts/sigv4-request.ts, awscurl);
 * - `api-key`: any caller sending a valid `x-api-key` header (scripts and curl; the Connect
 *   tools cannot send it), limited by a usage plan;
 * - `iam-and-api-key`: both at once on every request. Kept for existing deployments; no Connect
 *   tool can do both, so it is not a way to let tools in.
 * - `connect-tools`: `Authorization: Basic` and/or `Bearer` (`connectTools.credentials`), as
 *   kcctl, Kafka UI, AKHQ, Lenses, Conduktor send them, checked by a Lambda REQUEST authorizer
 *   against a Secrets Manager secret ({@link ConnectToolsAuth});
 * - `iam-or-connect-tools`: either one: the IAM API as in `iam`, and a second REST API (its own
 *   URL, the same api function, throttling and logging) for the tools. API Gateway allows one
 *   authorizer per method, and a Lambda authorizer cannot check SigV4, so "either" needs two APIs.
 */
export type ApiAuthMode =
  | 'iam'
  | 'api-key'
  | 'iam-and-api-key'
  | 'connect-tools'
  | 'iam-or-connect-tools';

/** The modes with a Basic/Bearer authorizer. */
export const CONNECT_TOOLS_MODES: readonly ApiAuthMode[] = [
  'connect-tools',
  'iam-or-connect-tools',
];

/** Options of the REST API. */
export interface RestApiOptions {
  /** @default 'iam' */
  readonly auth?: ApiAuthMode;
  /** @default 'v1' */
  readonly stageName?: string;
  /**
   * Stage-wide throttling (and the usage plan's, in the API key modes).
   * @default { rateLimit: 50, burstLimit: 100 }
   */
  readonly throttle?: { readonly rateLimit: number; readonly burstLimit: number };
  /** Requests per month per API key (API key modes). @default - no quota */
  readonly monthlyQuota?: number;
  /** Serve `GET /openapi.json` without authorization. @default false */
  readonly publicOpenApi?: boolean;
  /** A WAFv2 web ACL (regional) to associate with the stage. @default - none */
  readonly webAclArn?: string;
  /**
   * Create the account-wide role API Gateway needs to write logs (`AWS::ApiGateway::Account`).
   * Turn off when the account already has one managed elsewhere.
   * @default true
   */
  readonly cloudWatchRole?: boolean;
  /** @default RetentionDays.ONE_MONTH */
  readonly accessLogRetention?: RetentionDays;
  /** X-Ray tracing of the stage. @default false */
  readonly tracing?: boolean;
  /**
   * The Connect tools' credentials (auth `connect-tools` or `iam-or-connect-tools` only).
   * @default - Basic or Bearer, a generated secret, one-minute caches
   */
  readonly connectTools?: ConnectToolsAuthOptions;
}

export interface ControlPlaneApiProps extends RestApiOptions {
  readonly handler: IFunction;
  /** The authorizer function's log retention and level (the tools modes). @default one month, info */
  readonly authorizerLogs?: {
    readonly retention?: RetentionDays;
    readonly level?: 'error' | 'warn' | 'info' | 'debug';
  };
}

/** How the methods of one RestApi are authorized. */
interface MethodAuth {
  readonly authorizationType: AuthorizationType;
  readonly authorizer?: IAuthorizer;
  readonly apiKeyRequired: boolean;
}

/**
 * The Kafka Connect REST API on API Gateway (REST API, regional): `ANY /` and a greedy
 * `ANY /{proxy+}` route, so every Connect path, including connector names with percent-encoded
 * characters, reaches the api function unchanged; IAM authorization by default, optional API key
 * with a usage plan or Basic/Bearer for Connect tools (see {@link ApiAuthMode}), JSON access
 * logs, execution error logs, stage throttling.
 */
export class ControlPlaneApi extends Construct {
  /** The API (in `iam-or-connect-tools` mode, the IAM one). */
  readonly api: RestApi;
  readonly apiKey: IApiKey | undefined;
  readonly usagePlan: UsagePlan | undefined;
  /** The API taking Basic/Bearer: `api` in `connect-tools` mode, a second one in `iam-or-connect-tools`. */
  readonly toolsApi: RestApi | undefined;
  /** The Connect tools' secret and authorizer (the tools modes). */
  readonly toolsAuth: ConnectToolsAuth | undefined;

  readonly #props: ControlPlaneApiProps;

  constructor(scope: Construct, id: string, props: ControlPlaneApiProps) {
    super(scope, id);
    this.#props = props;
    const auth = props.auth ?? 'iam';
    const tools = CONNECT_TOOLS_MODES.includes(auth);
    if (!tools && props.connectTools !== undefined) {
      throw new Error(
        `ControlPlaneApi: connectTools needs auth 'connect-tools' or 'iam-or-connect-tools' (got '${auth}')`,
      );
    }
    this.toolsAuth = tools
      ? new ConnectToolsAuth(this, 'ConnectTools', {
          ...props.connectTools,
          ...(props.authorizerLogs?.retention === undefined
            ? {}
            : { logRetention: props.authorizerLogs.retention }),
          ...(props.authorizerLogs?.level === undefined
            ? {}
            : { logLevel: props.authorizerLogs.level }),
          ...(props.tracing === undefined ? {} : { tracing: props.tracing }),
        })
      : undefined;
    const signed = auth === 'iam' || auth === 'iam-and-api-key' || auth === 'iam-or-connect-tools';
    const keyRequired = auth === 'api-key' || auth === 'iam-and-api-key';
    const toolsMethods = (toolsAuth: ConnectToolsAuth): MethodAuth => ({
      authorizationType: AuthorizationType.CUSTOM,
      authorizer: toolsAuth.authorizer,
      apiKeyRequired: false,
    });
    this.api = this.#restApi(
      '',
      'serverless-connect: the Kafka Connect REST API',
      auth === 'connect-tools' && this.toolsAuth !== undefined
        ? toolsMethods(this.toolsAuth)
        : {
            authorizationType: signed ? AuthorizationType.IAM : AuthorizationType.NONE,
            apiKeyRequired: keyRequired,
          },
    );
    if (auth === 'iam-or-connect-tools' && this.toolsAuth !== undefined) {
      this.toolsApi = this.#restApi(
        'Tools',
        'serverless-connect: the Kafka Connect REST API for Connect tools (Basic/Bearer)',
        toolsMethods(this.toolsAuth),
      );
      // One account-wide logging role, created with the first API; the second stage logs too.
      const account = this.api.node.tryFindChild('Account');
      if (account !== undefined) this.toolsApi.deploymentStage.node.addDependency(account);
    } else {
      this.toolsApi = auth === 'connect-tools' ? this.api : undefined;
    }
    if (this.toolsApi !== undefined && this.toolsAuth !== undefined) {
      addToolsGatewayResponses(this.toolsApi, this.toolsAuth);
    }

    if (keyRequired) {
      const throttle = props.throttle ?? DEFAULT_THROTTLE;
      this.apiKey = this.api.addApiKey('ApiKey', {
        description:
          'serverless-connect REST API key (read it with aws apigateway get-api-key --include-value)',
      });
      this.usagePlan = this.api.addUsagePlan('UsagePlan', {
        throttle,
        ...(props.monthlyQuota === undefined
          ? {}
          : { quota: { limit: props.monthlyQuota, period: Period.MONTH } }),
        // RestApi to IRestApi: sound, but rejected under exactOptionalPropertyTypes (aws-cdk-lib
        // declares optional class members as `T | undefined`).
        apiStages: [{ api: this.api as unknown as IRestApi, stage: this.api.deploymentStage }],
      });
      this.usagePlan.addApiKey(this.apiKey);
    } else {
      this.apiKey = undefined;
      this.usagePlan = undefined;
    }
    if (!signed && !keyRequired && this.toolsAuth === undefined) {
      throw new Error(`ControlPlaneApi: unknown auth mode '${auth}'`);
    }
  }

  /**
   * One RestApi over the api function, with the stage settings, the routes and the cdk-nag
   * acknowledgments every API shares. `prefix` names its constructs ('' for the first API, whose
   * ids predate the second).
   */
  #restApi(prefix: string, description: string, methods: MethodAuth): RestApi {
    const props = this.#props;
    const first = prefix === '';
    const throttle = props.throttle ?? DEFAULT_THROTTLE;
    const accessLogs = new LogGroup(this, `${prefix}AccessLogs`, {
      retention: props.accessLogRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const cloudWatchRole = first && (props.cloudWatchRole ?? true);
    const api = new RestApi(this, `${prefix}Api`, {
      description,
      endpointTypes: [EndpointType.REGIONAL],
      cloudWatchRole,
      apiKeySourceType: ApiKeySourceType.HEADER,
      deployOptions: {
        stageName: props.stageName ?? 'v1',
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields(),
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: true,
        tracingEnabled: props.tracing ?? false,
        throttlingRateLimit: throttle.rateLimit,
        throttlingBurstLimit: throttle.burstLimit,
      },
      defaultMethodOptions: methods,
    });
    // Test invocations from the console are not needed; skipping them halves the permissions.
    const integration = new LambdaIntegration(props.handler, { allowTestInvoke: false });
    api.root.addMethod('ANY', integration);
    api.root.addProxy({ defaultIntegration: integration, anyMethod: true });
    const openApi = api.root
      .addResource('openapi.json')
      .addMethod(
        'GET',
        integration,
        props.publicOpenApi === true
          ? { authorizationType: AuthorizationType.NONE, apiKeyRequired: false }
          : {},
      );

    if (props.webAclArn !== undefined) {
      new CfnWebACLAssociation(this, `${prefix}WebAcl`, {
        resourceArn: api.deploymentStage.stageArn,
        webAclArn: props.webAclArn,
      });
    } else {
      Validations.of(api).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          'A web ACL is optional (webAclArn): every request is already authenticated (SigV4, API key or Basic/Bearer) and throttled per stage; WAF adds a monthly cost most deployments do not need.',
      });
    }
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        'Proxy integration: the api function validates every path, query and body with the Kafka Connect semantics (400/404/405/415 bodies as Connect returns them); API Gateway models would duplicate that.',
    });
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-COG4',
      reason:
        'Callers are AWS principals (IAM authorization, SigV4), API key holders or Connect tools (Basic/Bearer through a Lambda authorizer); the Kafka Connect tools have no Cognito support.',
    });
    if (cloudWatchRole) {
      Validations.of(api).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          'The account-wide API Gateway logging role uses the AWS-managed policy API Gateway documents for it; it is what access and execution logs require.',
      });
    }
    if (methods.authorizationType === AuthorizationType.NONE) {
      Validations.of(api).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          "auth 'api-key' was chosen explicitly: every method requires an API key and is limited by a usage plan.",
      });
    }
    if (props.publicOpenApi === true) {
      Validations.of(openApi).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          'publicOpenApi: the OpenAPI description is public by choice; it holds no connector data.',
      });
    }
    return api;
  }
}

/** @default of `throttle`. */
const DEFAULT_THROTTLE = { rateLimit: 50, burstLimit: 100 };

/**
 * 401 and 403 as Kafka Connect answers them (`{"error_code", "message"}`, which kcctl and the
 * UIs print), the 401 with the `WWW-Authenticate` challenge HTTP requires.
 */
function addToolsGatewayResponses(api: RestApi, auth: ConnectToolsAuth): void {
  const body = (code: number) => ({
    'application/json': `{"error_code":${code},"message":$context.error.messageString}`,
  });
  api.addGatewayResponse('Unauthorized', {
    type: ResponseType.UNAUTHORIZED,
    statusCode: '401',
    responseHeaders: { 'WWW-Authenticate': `'${auth.challenge()}'` },
    templates: body(401),
  });
  api.addGatewayResponse('AccessDenied', {
    type: ResponseType.ACCESS_DENIED,
    statusCode: '403',
    templates: body(403),
  });
}
