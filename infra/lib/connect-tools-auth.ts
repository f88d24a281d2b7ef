import { Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import { IdentitySource, RequestAuthorizer } from 'aws-cdk-lib/aws-apigateway';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ConnectFunction } from './connect-function.js';
import { DEFAULT_SIZES } from './functions.js';

/** Which `Authorization` schemes the Connect tools may use. */
export type ConnectToolsCredentials = 'basic' | 'bearer' | 'both';

/**
 * How Connect tools (kcctl, Kafka UI, AKHQ, Lenses, Conduktor, clients of Apache Kafka's
 * `BasicAuthSecurityRestExtension`) log in: `Authorization: Basic` and/or `Bearer`, checked by a
 * Lambda REQUEST authorizer against one Secrets Manager secret, a JSON object of principal
 * names to secrets (`{"connect": "<secret>"}`; a list of secrets while rotating one). A
 * principal's secret is its Basic password (its name is the user name) and its Bearer token.
 */
export interface ConnectToolsAuthOptions {
  /** @default 'both' */
  readonly credentials?: ConnectToolsCredentials;
  /**
   * An existing credentials secret, by its complete ARN (with the 6-character suffix).
   * @default - a new secret `{"connect": "<40 random letters and digits>"}`, encrypted with the
   *   AWS-managed key `aws/secretsmanager`
   */
  readonly secretArn?: string;
  /** The customer-managed KMS key of `secretArn`, if it has one. @default - none */
  readonly secretKeyArn?: string;
  /**
   * How long the authorizer uses a secret it has read before reading it again: a rotated or
   * revoked secret takes effect after at most this plus `resultsCacheTtl`.
   * @default Duration.minutes(1)
   */
  readonly secretCacheTtl?: Duration;
  /**
   * How long API Gateway keeps an authorizer decision per `Authorization` header (the decision
   * covers the whole stage, so caching is safe for every path). `Duration.seconds(0)` turns it off.
   * @default Duration.minutes(1)
   */
  readonly resultsCacheTtl?: Duration;
}

export interface ConnectToolsAuthProps extends ConnectToolsAuthOptions {
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** @default 'info' */
  readonly logLevel?: 'error' | 'warn' | 'info' | 'debug';
  /** X-Ray active tracing. @default false */
  readonly tracing?: boolean;
}

/** A complete Secrets Manager secret ARN: IAM matches partial ARNs (no suffix) to nothing. */
const COMPLETE_SECRET_ARN = /^arn:[^:]+:secretsmanager:[^:]+:\d{12}:secret:.+-[A-Za-z0-9]{6}$/;

/**
 * The Connect tools' credentials secret (given or created) and the authorizer: the
 * `functions/authorizer` function, allowed `secretsmanager:GetSecretValue` on that secret only
 * (and `kms:Decrypt` on its key through Secrets Manager when one is given), and API Gateway's
 * REQUEST authorizer over it, with `Authorization` as its identity source (API Gateway answers
 * 401 without calling the function when the header is missing).
 */
export class ConnectToolsAuth extends Construct {
  readonly credentials: ConnectToolsCredentials;
  readonly secret: ISecret;
  readonly function: ConnectFunction;
  readonly authorizer: RequestAuthorizer;

  constructor(scope: Construct, id: string, props: ConnectToolsAuthProps = {}) {
    super(scope, id);
    this.credentials = props.credentials ?? 'both';
    if (props.secretKeyArn !== undefined && props.secretArn === undefined) {
      throw new Error('ConnectToolsAuth: secretKeyArn is the key of a given secretArn');
    }
    this.secret =
      props.secretArn === undefined
        ? this.#newSecret()
        : Secret.fromSecretCompleteArn(this, 'Credentials', checkedArn(props.secretArn));
    const secretCacheTtl = props.secretCacheTtl ?? Duration.minutes(1);
    this.function = new ConnectFunction(this, 'Authorizer', {
      name: 'authorizer',
      description: 'serverless-connect: Basic/Bearer authorizer of the REST API (Connect tools)',
      ...DEFAULT_SIZES.authorizer,
      environment: {
        CREDENTIALS_SECRET_ARN: this.secret.secretArn,
        CREDENTIALS_SCHEMES: this.credentials,
        CREDENTIALS_CACHE_TTL_SECONDS: String(secretCacheTtl.toSeconds()),
        LOG_LEVEL: props.logLevel ?? 'info',
      },
      logRetention: props.logRetention ?? RetentionDays.ONE_MONTH,
      tracing: props.tracing ?? false,
    });
    this.#grantSecret(props.secretKeyArn);
    this.authorizer = new RequestAuthorizer(this, 'RequestAuthorizer', {
      handler: this.function.function,
      identitySources: [IdentitySource.header('Authorization')],
      resultsCacheTtl: props.resultsCacheTtl ?? Duration.minutes(1),
    });
  }

  /** The `WWW-Authenticate` challenge of a 401, for the schemes accepted. */
  challenge(): string {
    const basic = 'Basic realm="serverless-connect"';
    const bearer = 'Bearer realm="serverless-connect"';
    return { basic, bearer, both: `${basic}, ${bearer}` }[this.credentials];
  }

  #newSecret(): ISecret {
    const secret = new Secret(this, 'Credentials', {
      description:
        'serverless-connect: Connect tools credentials of the REST API (principal name → secret; Basic user/password or Bearer token)',
      generateSecretString: {
        secretStringTemplate: '{}',
        generateStringKey: 'connect',
        passwordLength: 40,
        excludePunctuation: true,
      },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The tools hold copies of these credentials, so a rotation is an operator step (add the new secret beside the old one, update the tools, remove the old one: docs/runbook.md); an automatic rotation would lock the tools out.',
    });
    // Secret to ISecret: sound, but rejected under exactOptionalPropertyTypes (aws-cdk-lib
    // declares optional class members as `T | undefined`).
    return secret as unknown as ISecret;
  }

  #grantSecret(keyArn: string | undefined): void {
    const role = this.function.role;
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'ConnectToolsSecret',
        actions: ['secretsmanager:GetSecretValue'],
        resources: [this.secret.secretArn],
      }),
    );
    if (keyArn === undefined) return;
    role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'ConnectToolsSecretKey',
        actions: ['kms:Decrypt'],
        resources: [keyArn],
        conditions: {
          StringEquals: {
            'kms:ViaService': `secretsmanager.${Stack.of(this).region}.amazonaws.com`,
          },
        },
      }),
    );
  }
}

function checkedArn(arn: string): string {
  if (!Token.isUnresolved(arn) && !COMPLETE_SECRET_ARN.test(arn)) {
    throw new Error(
      `ConnectToolsAuth: secretArn must be a secret's complete ARN, with its 6-character suffix (got ${arn})`,
    );
  }
  return arn;
}
