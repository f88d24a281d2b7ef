import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { REPO_ROOT } from '../../../infra/lib/bundling.js';
import {
  ServerlessConnect,
  type ServerlessConnectProps,
} from '../../../infra/lib/serverless-connect.js';
import { createApp } from '../../../infra/lib/serverless-connect-stack.js';

/** The account and region of the test stacks (no AWS credentials are used). */
export const TEST_ENV = { account: '111122223333', region: 'eu-west-1' };

/** cdk.json's context, as `cdk synth` gives it to the default app. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  return cdkJson.context;
}

export interface Synthesized {
  readonly app: App;
  readonly stack: Stack;
  readonly connect: ServerlessConnect;
  readonly template: Template;
}

/**
 * One ServerlessConnect in its own stack, synthesized without bundling the functions (the
 * `aws:cdk:bundling-stacks` context): the template is the same except for the code assets.
 * `bundle: true` bundles them with the local esbuild, as `cdk synth` does.
 */
export function synthConstruct(
  props: (stack: Stack) => ServerlessConnectProps,
  options: { readonly bundle?: boolean } = {},
): Synthesized {
  const app = new App({
    context: {
      ...(options.bundle === true ? {} : { 'aws:cdk:bundling-stacks': [] }),
      '@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy': true,
    },
  });
  const stack = new Stack(app, 'Test', { env: TEST_ENV });
  const connect = new ServerlessConnect(stack, 'Connect', props(stack));
  return { app, stack, connect, template: Template.fromStack(stack) };
}

/**
 * What cdk-nag's AwsSolutions and Serverless packs (the default app's synth runs both) report
 * for the app, errors and warnings alike.
 */
export function nagViolations(app: App): { rule: string; paths: string[] }[] {
  const violations = [new AwsSolutionsChecks(), new ServerlessChecks()].flatMap(
    (pack) => pack.validateScope(app).violations,
  );
  return violations.map((v) => ({
    rule: `${v.severity ?? ''} ${v.ruleName}`.trim(),
    paths: v.violatingResources.map((r) => r.constructPath ?? r.resourceLogicalId ?? '?'),
  }));
}

/** Every resource of a type, by logical id. */
export function resourcesOf(
  template: Template,
  type: string,
): Record<string, { Properties: Record<string, unknown>; [key: string]: unknown }> {
  return template.findResources(type) as Record<
    string,
    { Properties: Record<string, unknown>; [key: string]: unknown }
  >;
}

/** One IAM policy statement as it appears in the template. */
export interface Statement {
  readonly Sid?: string;
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, unknown>;
}

/** Every statement of every IAM policy and role inline policy, with where it was found. */
export function iamStatements(template: Template): { where: string; statement: Statement }[] {
  const found: { where: string; statement: Statement }[] = [];
  for (const [id, policy] of Object.entries(resourcesOf(template, 'AWS::IAM::Policy'))) {
    const document = policy.Properties.PolicyDocument as { Statement: Statement[] };
    for (const statement of document.Statement) found.push({ where: id, statement });
  }
  for (const [id, role] of Object.entries(resourcesOf(template, 'AWS::IAM::Role'))) {
    const inline = (role.Properties.Policies ?? []) as {
      PolicyDocument: { Statement: Statement[] };
    }[];
    for (const policy of inline) {
      for (const statement of policy.PolicyDocument.Statement) found.push({ where: id, statement });
    }
  }
  return found;
}

export const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** The statement with this Sid in the policy of the role whose logical id starts with `role`. */
export function statementOf(template: Template, role: string, sid: string): Statement {
  const hit = iamStatements(template).find(
    (s) => s.where.startsWith(role) && s.statement.Sid === sid,
  );
  if (hit === undefined) throw new Error(`no statement ${sid} in a policy of ${role}`);
  return hit.statement;
}

/** Each function's bundle (`index.mjs` in its asset folder of the cloud assembly), by logical id. */
export function functionBundles(template: Template, assemblyDir: string): Record<string, string> {
  const bundles: Record<string, string> = {};
  for (const [id, fn] of Object.entries(resourcesOf(template, 'AWS::Lambda::Function'))) {
    const key = (fn.Properties.Code as { S3Key: string }).S3Key;
    bundles[id] = join(assemblyDir, `asset.${key.replace(/\.zip$/, '')}`, 'index.mjs');
  }
  return bundles;
}

/** The absolute paths of the source files a bundle was built from (its source map's `sources`). */
export function bundleSources(bundle: string): string[] {
  const map = JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as { sources: string[] };
  return map.sources.map((source) => resolve(dirname(bundle), source));
}

/** A subnet of a looked-up VPC, as the CLI's VPC context provider reports it. */
export interface LookedUpSubnet {
  readonly subnetId: string;
  readonly cidr: string;
  readonly availabilityZone: string;
  readonly routeTableId: string;
}

/**
 * The context the CLI stores after looking VPC `vpcId` up in {@link TEST_ENV} (`cdk.context.json`),
 * so that `Vpc.fromLookup` finds it offline. The CLI calls subnets routed to a NAT gateway
 * `Private`, those without a route out `Isolated`.
 */
export function vpcLookupContext(
  vpcId: string,
  groups: Record<'Public' | 'Private' | 'Isolated', readonly LookedUpSubnet[]>,
): Record<string, unknown> {
  const key = `vpc-provider:account=${TEST_ENV.account}:filter.vpc-id=${vpcId}:region=${TEST_ENV.region}:returnAsymmetricSubnets=true`;
  const subnetGroups = Object.entries(groups)
    .filter(([, subnets]) => subnets.length > 0)
    .map(([type, subnets]) => ({ name: type, type, subnets }));
  return { [key]: { vpcId, vpcCidrBlock: '10.0.0.0/16', availabilityZones: [], subnetGroups } };
}

/** The default app, as `cdk synth` runs it in TEST_ENV, synthesized without bundling. */
export interface SynthesizedApp {
  readonly app: App;
  readonly template: Template;
  /** The stack's warnings (annotations). */
  readonly warnings: string[];
  /** The context keys the CLI still has to look up. */
  readonly missing: string[];
}

/** The default app with cdk.json's context and `context` over it, as `cdk synth -c ...` runs it. */
export function synthDefaultApp(context: Record<string, unknown>): SynthesizedApp {
  const saved = {
    account: process.env.CDK_DEFAULT_ACCOUNT,
    region: process.env.CDK_DEFAULT_REGION,
  };
  process.env.CDK_DEFAULT_ACCOUNT = TEST_ENV.account;
  process.env.CDK_DEFAULT_REGION = TEST_ENV.region;
  try {
    const { app, stack } = createApp({
      context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [], ...context },
    });
    const assembly = app.synth();
    const artifact = assembly.getStackArtifact(stack.artifactId);
    return {
      app,
      template: Template.fromJSON(artifact.template),
      warnings: artifact.messages
        .filter((m) => m.level === 'warning')
        .map((m) => String(m.entry.data)),
      missing: (assembly.manifest.missing ?? []).map((m) => m.key),
    };
  } finally {
    for (const [name, value] of [
      ['CDK_DEFAULT_ACCOUNT', saved.account],
      ['CDK_DEFAULT_REGION', saved.region],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** The environment of each of the four functions (the ones with a STATE_TABLE), by logical id. */
export function functionEnvironments(template: Template): Record<string, Record<string, unknown>> {
  const environments: Record<string, Record<string, unknown>> = {};
  for (const [id, fn] of Object.entries(resourcesOf(template, 'AWS::Lambda::Function'))) {
    const variables = (
      fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined
    )?.Variables;
    if (variables?.STATE_TABLE !== undefined) environments[id] = variables;
  }
  return environments;
}
