import { CustomResource, Duration, RemovalPolicy, Token } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct, type IConstruct } from 'constructs';
import { ConnectFunction } from './connect-function.js';
import { isSecretKey, secretValueProblem } from './connector-secrets.js';
import { type ConnectFunctions, DEFAULT_SIZES } from './functions.js';
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
 * function only; it needs no network path to the API, nor access to the table or Kafka).
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
