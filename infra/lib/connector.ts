import { ArnFormat, CustomResource, Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct, type IConstruct } from 'constructs';
import { ConnectFunction } from './connect-function.js';
import { glueRegistryUses, grantGlueRegistries } from './connector-glue.js';
import { isSecretKey, secretsManagerSecretIds, secretValueProblem } from './connector-secrets.js';
import { type ConnectFunctions, DEFAULT_SIZES } from './functions.js';
import { grantBySid } from './role-statements.js';
import { acknowledgeConnectorResourceFindings } from './serverless-nag.js';

/** What a connector needs of its deployment: a `ServerlessConnect`. */
export interface ConnectorHost extends IConstruct {
  readonly functions: ConnectFunctions;
}

/** Kafka Connect's `initial_state` of `POST /connectors` (KIP-980). */
export type ConnectorInitialState = 'RUNNING' | 'PAUSED' | 'STOPPED';

/** The CloudFormation resource type of a declared connector. */
export const CONNECTOR_RESOURCE_TYPE = 'Custom::KafkaConnector';

export interface ConnectorProps {
  /** The deployment (`ServerlessConnect`) whose control plane creates, updates and deletes it. */
  readonly connect: ConnectorHost;
  /**
   * The connector's name, its physical id. A new name replaces the connector: the new one is
   * created, then the old one is deleted (its offsets stay, as after `DELETE /connectors/{c}`).
   */
  readonly name: string;
  /**
   * The connector config, exactly as `PUT /connectors/{name}/config` takes it (`name` may be
   * left out). Secrets must be config-provider placeholders (`${secretsmanager:<arn>:<key>}`,
   * `${ssm:/param}`): a literal value of a secret key (see `isSecretKey`) fails synthesis.
   * The secrets `${secretsmanager:...}` placeholders name (by ARN, `secret.secretArn`, or by
   * name) become readable (`secretsmanager:GetSecretValue`) by the functions that resolve the
   * config: the api, the enumerator and the connector's task function.
   */
  readonly config: Readonly<Record<string, string>>;
  /**
   * The state the connector is created in. Applies on creation only, as in Kafka Connect:
   * later deployments leave the state to `PUT /connectors/{c}/pause|resume|stop`.
   * @default 'RUNNING'
   */
  readonly initialState?: ConnectorInitialState;
  /**
   * What removing the connector from the app, deleting the stack or renaming it does:
   * `DESTROY` deletes the connector (`DELETE /connectors/{name}`; its offsets are kept), `RETAIN`
   * leaves it running, unmanaged.
   * @default RemovalPolicy.DESTROY
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The function behind every {@link Connector} of one deployment: it turns CloudFormation's
 * requests into REST calls, invoking the api function directly (`lambda:InvokeFunction` on that
 * function only; it needs no network path to the API, nor access to the table or Kafka). It
 * also keeps the deployment's `ConnectorSecrets` statements, the secrets its connectors name,
 * and the `ConnectorGlue*` statements of the Glue registries their converters use.
 */
export class ConnectorResourceProvider extends Construct {
  readonly handler: ConnectFunction;

  /** The provider of `connect`, created with its first connector. */
  static of(connect: ConnectorHost): ConnectorResourceProvider {
    const id = 'ConnectorResources';
    const found = connect.node.tryFindChild(id);
    return found instanceof ConnectorResourceProvider
      ? found
      : new ConnectorResourceProvider(connect, id, connect);
  }

  /**
   * Lets `roles` read (`secretsmanager:GetSecretValue`) the secrets `resources` name: one
   * `ConnectorSecrets` statement per role, shared by the deployment's connectors.
   */
  grantSecretReads(roles: readonly IRole[], resources: readonly string[]): void {
    for (const role of roles) {
      grantBySid(role, 'ConnectorSecrets', ['secretsmanager:GetSecretValue'], resources);
    }
  }

  private constructor(scope: Construct, id: string, connect: ConnectorHost) {
    super(scope, id);
    const api = connect.functions.api.function;
    this.handler = new ConnectFunction(this, 'Handler', {
      name: 'connector-resource',
      description: 'serverless-connect: the Connector construct’s custom resource (REST calls)',
      ...DEFAULT_SIZES['connector-resource'],
      environment: { API_FUNCTION: api.functionName },
      logRetention: RetentionDays.ONE_MONTH,
      tracing: false,
      // A retried request could repeat a create that succeeded; the handler always answers
      // CloudFormation instead.
      retryAttempts: 0,
    });
    acknowledgeConnectorResourceFindings(this.handler.function);
    this.handler.role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'InvokeApi',
        actions: ['lambda:InvokeFunction'],
        resources: [api.functionArn],
      }),
    );
  }
}

/** Throws, naming the key, when the config would put a secret or a wrong name in the template. */
function checkConfig(name: string, config: Readonly<Record<string, string>>): void {
  const given = config.name;
  if (given !== undefined && !Token.isUnresolved(given) && !Token.isUnresolved(name)) {
    if (given !== name) {
      throw new Error(
        `Connector ${name}: config.name is ${given}; leave it out or make it ${name}`,
      );
    }
  }
  const problems = Object.entries(config)
    .filter(([key]) => isSecretKey(key))
    .flatMap(([key, value]) => secretValueProblem(key, value) ?? []);
  if (problems.length > 0) {
    throw new Error(`Connector ${name}: ${problems.join('; ')}`);
  }
}

/**
 * The ARNs IAM matches for a secret id of a placeholder. An ARN (or a token, `secret.secretArn`)
 * may be complete or partial (`Secret.fromSecretNameV2`'s lacks the random suffix), so both it
 * and it with a suffix; a name, with the suffix Secrets Manager adds (`<name>-??????`, as CDK
 * grants a secret known by name).
 */
function secretArns(scope: Construct, id: string): string[] {
  if (Token.isUnresolved(id) || id.startsWith('arn:')) return [id, `${id}-??????`];
  return [
    Stack.of(scope).formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${id}-??????`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    }),
  ];
}

/**
 * The roles of the functions that resolve a connector's placeholders: the api (`PATCH` and
 * `DELETE /connectors/{c}/offsets` hand the resolved config to `alterOffsets`), the enumerator
 * (the connector starts there) and the task function of the connector's kind.
 */
function resolvingRoles(
  functions: ConnectFunctions,
  config: Readonly<Record<string, string>>,
): IRole[] {
  return [functions.api.role, functions.enumerator.role, taskRole(functions, config)];
}

/**
 * The role of the connector's task function, where its records are converted. Kafka Connect
 * requires `topics` or `topics.regex` of every sink connector; a config without either is a
 * source's.
 */
function taskRole(functions: ConnectFunctions, config: Readonly<Record<string, string>>): IRole {
  const sink = config.topics !== undefined || config['topics.regex'] !== undefined;
  return (sink ? functions.sinkTask : functions.sourceTask).role;
}

/**
 * A Kafka Connect connector declared in the CDK app, as MSK Connect's
 * `AWS::KafkaConnect::Connector`: deploying creates it (`POST /connectors`, with its initial
 * state), a changed config updates it (`PUT /connectors/{name}/config`), removing it deletes it.
 * Every request goes through the deployment's control plane, with the REST API's validation: a
 * bad config fails the deployment with Connect's validation messages and creates nothing.
 *
 * @example
 * new Connector(stack, 'Orders', {
 *   connect,
 *   name: 'orders',
 *   config: {
 *     'connector.class': 'datagen',
 *     'kafka.topic': 'orders',
 *     quickstart: 'orders',
 *   },
 * });
 */
export class Connector extends Construct {
  /** The connector's name (the custom resource's physical id). */
  readonly connectorName: string;
  readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: ConnectorProps) {
    super(scope, id);
    checkConfig(props.name, props.config);
    const provider = ConnectorResourceProvider.of(props.connect);
    const secrets = Object.values(props.config)
      .flatMap((value) => secretsManagerSecretIds(value))
      .flatMap((secretId) => secretArns(this, secretId));
    if (secrets.length > 0) {
      provider.grantSecretReads(resolvingRoles(props.connect.functions, props.config), secrets);
    }
    grantGlueRegistries(
      taskRole(props.connect.functions, props.config),
      glueRegistryUses(this, props.config),
    );
    this.resource = new CustomResource(this, 'Resource', {
      serviceToken: provider.handler.function.functionArn,
      resourceType: CONNECTOR_RESOURCE_TYPE,
      properties: {
        ConnectorName: props.name,
        Config: { ...props.config },
        InitialState: props.initialState ?? 'RUNNING',
      },
      // A handler that cannot answer fails the deployment in minutes, not CloudFormation's hour.
      serviceTimeout: Duration.minutes(5),
      removalPolicy: props.removalPolicy ?? RemovalPolicy.DESTROY,
    });
    this.connectorName = this.resource.ref;
  }
}
