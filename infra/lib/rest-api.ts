import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  EndpointType,
  type IApiKey,
  type IRestApi,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  Period,
  RestApi,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

/**
 * Who may call the REST API:
 * - `iam`: SigV4-signed requests of principals allowed `execute-api:Invoke` (curl --aws-sigv4,
 *   scripts/sigv4-request.ts, awscurl);
 * - `api-key`: any caller sending a valid `x-api-key` header (for tools that cannot sign:
 *   kcctl, Kafka UI, AKHQ), limited by a usage plan;
 * - `iam-and-api-key`: both.
 */
export type ApiAuthMode = 'iam' | 'api-key' | 'iam-and-api-key';

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
}

export interface ControlPlaneApiProps extends RestApiOptions {
  readonly handler: IFunction;
}

/**
 * The Kafka Connect REST API on API Gateway (REST API, regional): `ANY /` and a greedy
 * `ANY /{proxy+}` route, so every Connect path, including connector names with percent-encoded
 * characters, reaches the api function unchanged; IAM authorization by default, optional API key
 * with a usage plan, JSON access logs, execution error logs, stage throttling.
 */
export class ControlPlaneApi extends Construct {
  readonly api: RestApi;
  readonly apiKey: IApiKey | undefined;
  readonly usagePlan: UsagePlan | undefined;

  constructor(scope: Construct, id: string, props: ControlPlaneApiProps) {
    super(scope, id);
    const auth = props.auth ?? 'iam';
    const throttle = props.throttle ?? { rateLimit: 50, burstLimit: 100 };
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.accessLogRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const signed = auth !== 'api-key';
    const keyRequired = auth !== 'iam';
    this.api = new RestApi(this, 'Api', {
      description: 'serverless-connect: the Kafka Connect REST API',
      endpointTypes: [EndpointType.REGIONAL],
      cloudWatchRole: props.cloudWatchRole ?? true,
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
      defaultMethodOptions: {
        authorizationType: signed ? AuthorizationType.IAM : AuthorizationType.NONE,
        apiKeyRequired: keyRequired,
      },
    });
    // Test invocations from the console are not needed; skipping them halves the permissions.
    const integration = new LambdaIntegration(props.handler, { allowTestInvoke: false });
    this.api.root.addMethod('ANY', integration);
    this.api.root.addProxy({ defaultIntegration: integration, anyMethod: true });
    const openApi = this.api.root
      .addResource('openapi.json')
      .addMethod(
        'GET',
        integration,
        props.publicOpenApi === true
          ? { authorizationType: AuthorizationType.NONE, apiKeyRequired: false }
          : {},
      );

    if (keyRequired) {
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

    if (props.webAclArn !== undefined) {
      new CfnWebACLAssociation(this, 'WebAcl', {
        resourceArn: this.api.deploymentStage.stageArn,
        webAclArn: props.webAclArn,
      });
    } else {
      Validations.of(this.api).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          'A web ACL is optional (webAclArn): every request is already authenticated (SigV4 or API key) and throttled per stage; WAF adds a monthly cost most deployments do not need.',
      });
    }
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        'Proxy integration: the api function validates every path, query and body with the Kafka Connect semantics (400/404/405/415 bodies as Connect returns them); API Gateway models would duplicate that.',
    });
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-COG4',
      reason:
        'Callers are AWS principals (IAM authorization, SigV4) or API key holders; the Kafka Connect tools have no Cognito support.',
    });
    if (props.cloudWatchRole ?? true) {
      Validations.of(this.api).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          'The account-wide API Gateway logging role uses the AWS-managed policy API Gateway documents for it; it is what access and execution logs require.',
      });
    }
    if (!signed) {
      Validations.of(this.api).acknowledge({
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
  }
}
