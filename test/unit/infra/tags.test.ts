import { App, CfnResource, Stack, TagManager } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ServerlessConnect } from '../../../infra/lib/serverless-connect.js';
import { resourcesOf, synthDefaultApp, TEST_ENV, vpcLookupContext } from './synth.js';
import { MSK_ARN, scramInVpcWithEndpoints } from './variants.js';

const TAGS = { team: 'data', env: 'prod', 'cost-center': 'kafka=connect' };

/** The Tags of a resource in the template, as a map (standard list, or a map for some types). */
function tagsOf(properties: Record<string, unknown> | undefined): Record<string, string> {
  const tags = properties?.Tags;
  if (Array.isArray(tags)) {
    return Object.fromEntries(
      (tags as { Key: string; Value: string }[]).map((t) => [t.Key, t.Value]),
    );
  }
  return (tags ?? {}) as Record<string, string>;
}

/**
 * Every resource of the template that CDK can tag (its L1 is taggable) carries `tags`; returns
 * how many were checked, and which did not.
 */
function untagged(stack: Stack, template: Template): { checked: number; missing: string[] } {
  const resources = (
    template.toJSON() as { Resources: Record<string, { Properties?: Record<string, unknown> }> }
  ).Resources;
  let checked = 0;
  const missing: string[] = [];
  for (const construct of stack.node.findAll()) {
    if (!CfnResource.isCfnResource(construct)) continue;
    if (!TagManager.isTaggable(construct) && !TagManager.isTaggableV2(construct)) continue;
    const id = stack.resolve(construct.logicalId) as string;
    checked++;
    const found = tagsOf(resources[id]?.Properties);
    if (!Object.entries(TAGS).every(([k, v]) => found[k] === v)) {
      missing.push(`${construct.cfnResourceType} ${id}`);
    }
  }
  return { checked, missing };
}

describe('tags', () => {
  it('tags every taggable resource of the default app from context (key=value pairs)', () => {
    // Act
    const { app, template } = synthDefaultApp({
      alarmEmail: 'ops@example.com',
      tags: 'team=data, env=prod, cost-center=kafka=connect',
    });
    const stack = app.node.children.find((c): c is Stack => c instanceof Stack) as Stack;
    const { checked, missing } = untagged(stack, template);
    // Assess
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(30);
    // TableV2 tags its replicas (the table's one replica here).
    const table = Object.values(resourcesOf(template, 'AWS::DynamoDB::GlobalTable'))[0];
    const replicas = (table?.Properties.Replicas ?? []) as Record<string, unknown>[];
    expect(replicas).toHaveLength(1);
    expect(tagsOf(replicas[0])).toEqual(TAGS);
    expect(stack.tags.tagValues()).toEqual(TAGS);
  }, 30_000);

  it('tags the VPC endpoints and security groups of a VPC deployment from a JSON object', () => {
    // Prepare
    const vpcId = 'vpc-0123456789abcdef0';
    const subnet = {
      subnetId: 'subnet-0aaaaaaaaaaaaaaa1',
      cidr: '10.0.1.0/24',
      availabilityZone: 'eu-west-1a',
      routeTableId: 'rtb-0aaaaaaaaaaaaaaa1',
    };
    // Act
    const { app, template } = synthDefaultApp({
      ...vpcLookupContext(vpcId, { Public: [], Private: [], Isolated: [subnet] }),
      vpcId,
      vpcEndpoints: 'true',
      kafkaAuth: 'iam',
      mskClusterArn: MSK_ARN,
      tags: TAGS,
    });
    const stack = app.node.children.find((c): c is Stack => c instanceof Stack) as Stack;
    // Assess
    expect(untagged(stack, template).missing).toEqual([]);
    for (const type of ['AWS::EC2::VPCEndpoint', 'AWS::EC2::SecurityGroup']) {
      const found = Object.values(resourcesOf(template, type));
      expect(found.length).toBeGreaterThan(0);
      for (const r of found) expect(tagsOf(r.Properties)).toMatchObject(TAGS);
    }
  }, 30_000);

  it('tags the construct’s resources and VPC endpoints from its tags prop, nothing else', () => {
    // Prepare
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Tagged', { env: TEST_ENV });
    // Act: the variant's table key is the stack's, outside the construct.
    new ServerlessConnect(stack, 'Connect', { ...scramInVpcWithEndpoints(stack), tags: TAGS });
    const template = Template.fromStack(stack);
    // Assess
    const endpoints = Object.entries(resourcesOf(template, 'AWS::EC2::VPCEndpoint'));
    expect(endpoints.map(([id]) => id.slice(0, 3))).toEqual(['Vpc', 'Vpc', 'Vpc', 'Vpc', 'Vpc']);
    for (const [, endpoint] of endpoints) expect(tagsOf(endpoint.Properties)).toEqual(TAGS);
    const functions = Object.values(resourcesOf(template, 'AWS::Lambda::Function'));
    for (const fn of functions) expect(tagsOf(fn.Properties)).toEqual(TAGS);
    const keys = Object.values(resourcesOf(template, 'AWS::KMS::Key'));
    expect(keys).toHaveLength(1);
    expect(tagsOf(keys[0]?.Properties)).toEqual({});
  });

  it.each([
    ['team', /expected key=value, got team/],
    ['=data', /expected key=value/],
    ['aws:team=data', /aws:team is not a tag key/],
    ['{"team": 1}', /the value of team must be a string/],
  ])('refuses the tags %s with a clear message', (tags, message) => {
    expect(() => synthDefaultApp({ tags })).toThrow(message);
  });
});
