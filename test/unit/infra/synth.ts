import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { REPO_ROOT } from '../../../infra/lib/bundling.js';
import {
  ServerlessConnect,
  type ServerlessConnectProps,
} from '../../../infra/lib/serverless-connect.js';

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

/** What cdk-nag's AwsSolutions pack reports for the app (errors and warnings alike). */
export function nagViolations(app: App): { rule: string; paths: string[] }[] {
  const report = new AwsSolutionsChecks().validateScope(app);
  return report.violations.map((v) => ({
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
