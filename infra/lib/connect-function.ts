import { join } from 'node:path';
import { type Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { ISecurityGroup, IVpc, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  type CfnFunction,
  type IDestination,
  type ILayerVersion,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import {
  bundleBudgetCommand,
  depsLockFile,
  ESBUILD_OPTIONS,
  type FunctionName,
  functionEntry,
  functionsRoot,
  REPO_ROOT,
  TSCONFIG,
} from './bundling.js';

/**
 * The newest Node.js runtime aws-cdk-lib 2.276 offers (nodejs20.x can no longer be deployed).
 * Pinned rather than `NODEJS_LATEST`, so a CDK upgrade never changes the runtime silently.
 */
export const FUNCTION_RUNTIME = Runtime.NODEJS_24_X;

/** Where a function sits in a VPC (private Kafka clusters). */
export interface FunctionPlacement {
  readonly vpc: IVpc;
  readonly vpcSubnets: SubnetSelection;
  readonly securityGroups: ISecurityGroup[];
}

export interface ConnectFunctionProps {
  /** Which `functions/<name>/handler.ts` to bundle. */
  readonly name: FunctionName;
  readonly description: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly environment: Record<string, string>;
  readonly logRetention: RetentionDays;
  /** X-Ray active tracing. */
  readonly tracing: boolean;
  /** @default - not in a VPC */
  readonly placement?: FunctionPlacement;
  /**
   * Plugin packages bundled into the function: module paths (relative to the CDK app's
   * directory) or package names (from node_modules). See {@link functionsRoot}.
   * @default - none
   */
  readonly plugins?: readonly string[];
  /** Layers to attach (the Kafka CA certificate's). */
  readonly layers?: ILayerVersion[];
  /** @default - none (the unreserved account pool) */
  readonly reservedConcurrentExecutions?: number;
  /** Asynchronous invocations: retries after a function error. @default 2 (Lambda's default) */
  readonly retryAttempts?: number;
  /** Asynchronous invocations: where failed events go. @default - nowhere */
  readonly onFailure?: IDestination;
  /** Asynchronous invocations: how long an event may wait in the queue. @default 6 hours */
  readonly maxEventAge?: Duration;
}

/** NodejsFunction's bundling options, from the shared esbuild options (bundling.ts). */
export function nodejsBundling() {
  return {
    minify: ESBUILD_OPTIONS.minify,
    sourceMap: ESBUILD_OPTIONS.sourcemap,
    target: ESBUILD_OPTIONS.target,
    format: OutputFormat.ESM,
    banner: ESBUILD_OPTIONS.banner.js,
    externalModules: [...ESBUILD_OPTIONS.external],
    esbuildArgs: { '--tree-shaking': String(ESBUILD_OPTIONS.treeShaking) },
    tsconfig: TSCONFIG,
    // Local esbuild (a devDependency) only: synth never needs Docker.
    forceDockerBundling: false,
    logLevel: LogLevel.WARNING,
    // The bundle budget, checked on every bundle (with or without plugins): synth fails over it.
    commandHooks: {
      beforeBundling: (): string[] => [],
      beforeInstall: (): string[] => [],
      afterBundling: (_inputDir: string, outputDir: string): string[] => [
        bundleBudgetCommand(join(outputDir, 'index.mjs')),
      ],
    },
  };
}

/**
 * ENI management for Lambda inside a VPC, and for the Kafka event source mappings' pollers,
 * which reach the cluster's VPC through ENIs created with the function's execution role.
 */
export function networkInterfaceStatements(scope: Construct): PolicyStatement[] {
  const stack = Stack.of(scope);
  const ec2Arn = (resource: string) =>
    `arn:${stack.partition}:ec2:${stack.region}:${stack.account}:${resource}/*`;
  return [
    new PolicyStatement({
      sid: 'NetworkInterfacesDescribe',
      actions: [
        'ec2:DescribeNetworkInterfaces',
        'ec2:DescribeSubnets',
        'ec2:DescribeSecurityGroups',
        'ec2:DescribeVpcs',
      ],
      // AWS requires "*": the EC2 Describe* actions support no resource-level permissions.
      resources: ['*'],
    }),
    new PolicyStatement({
      sid: 'NetworkInterfacesManage',
      actions: [
        'ec2:CreateNetworkInterface',
        'ec2:DeleteNetworkInterface',
        'ec2:AssignPrivateIpAddresses',
        'ec2:UnassignPrivateIpAddresses',
      ],
      // The interfaces' ids are chosen by Lambda; scoped to this account and region.
      resources: [ec2Arn('network-interface'), ec2Arn('subnet'), ec2Arn('security-group')],
    }),
  ];
}

/**
 * One Lambda function of serverless-connect with the defaults every function shares: bundled
 * from `functions/<name>/handler.ts` by the local esbuild (ESM, minified, tree-shaken, source
 * maps, with the plugin packages given, within the 1.5 MB budget), the newest Node.js runtime,
 * ARM64, its own log group with a retention, and its own role whose only built-in permission is
 * writing to that log group (no managed policies).
 */
export class ConnectFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ConnectFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      // Operational logs with a retention; a torn-down deployment leaves none behind.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `serverless-connect ${props.name} function`,
    });
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'OwnLogGroup',
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        // The log group's ARN attribute ends in ":*", which covers its log streams.
        resources: [this.logGroup.logGroupArn],
      }),
    );
    if (props.placement !== undefined) {
      for (const statement of networkInterfaceStatements(this)) {
        this.role.addToPrincipalPolicy(statement);
      }
    }
    if (props.tracing) {
      this.role.addToPrincipalPolicy(
        new PolicyStatement({
          sid: 'XRayWrite',
          actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
          // AWS requires "*": X-Ray's write actions support no resource-level permissions.
          resources: ['*'],
        }),
      );
    }
    const placement = props.placement;
    this.function = new NodejsFunction(this, 'Function', {
      entry: functionEntry(props.name, functionsRoot(props.plugins)),
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: depsLockFile(),
      runtime: FUNCTION_RUNTIME,
      architecture: Architecture.ARM_64,
      description: props.description,
      memorySize: props.memorySize,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      environment: {
        // Stack traces point into the TypeScript sources through the bundled source map.
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
      bundling: nodejsBundling(),
      ...(placement === undefined
        ? {}
        : {
            vpc: placement.vpc,
            vpcSubnets: placement.vpcSubnets,
            securityGroups: placement.securityGroups,
          }),
      ...(props.layers === undefined ? {} : { layers: props.layers }),
      ...(props.reservedConcurrentExecutions === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
      ...(props.retryAttempts === undefined ? {} : { retryAttempts: props.retryAttempts }),
      ...(props.onFailure === undefined ? {} : { onFailure: props.onFailure }),
      ...(props.maxEventAge === undefined ? {} : { maxEventAge: props.maxEventAge }),
    });
    if (props.tracing) {
      // Set on the L1 resource: the L2 `tracing` prop would add a second, Sid-less X-Ray
      // statement next to XRayWrite above.
      (this.function.node.defaultChild as CfnFunction).tracingConfig = { mode: Tracing.ACTIVE };
    }
  }
}
