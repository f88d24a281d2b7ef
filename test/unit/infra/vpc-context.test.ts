import { describe, expect, it } from 'vitest';
import { resourcesOf, type SynthesizedApp, synthDefaultApp, vpcLookupContext } from './synth.js';
import { MSK_ARN, SECRET_ARN } from './variants.js';

/**
 * The default app's VPC context keys (vpcId, subnetIds, securityGroupIds, vpcEndpoints) in every
 * combination, with each Kafka auth mode, through `createApp` as `cdk synth -c ...` runs it
 * (cdk-nag on), the VPC looked up from context as the CLI stores it.
 */
const VPC_ID = 'vpc-0123456789abcdef0';
const subnet = (n: number, zone: 'a' | 'b') => ({
  subnetId: `subnet-0${String(n).repeat(16)}`,
  cidr: `10.0.${n}.0/24`,
  availabilityZone: `eu-west-1${zone}`,
  routeTableId: `rtb-0${String(n).repeat(16)}`,
});
const [A, B, C] = [subnet(1, 'a'), subnet(2, 'b'), subnet(3, 'a')];
const PUBLIC = [subnet(7, 'a'), subnet(8, 'b')];

/** A VPC with NAT gateways: private subnets with egress. */
const WITH_NAT = vpcLookupContext(VPC_ID, { Public: PUBLIC, Private: [A, B, C], Isolated: [] });
/** A VPC without NAT: its private subnets have no route out. */
const WITHOUT_NAT = vpcLookupContext(VPC_ID, { Public: [], Private: [], Isolated: [A, B, C] });

const MSK_IAM = { kafkaAuth: 'iam', mskClusterArn: MSK_ARN };
const SCRAM = { kafkaAuth: 'scram', kafkaSecretArn: SECRET_ARN };
const GROUP = 'sg-0123456789abcdef0';

interface Case {
  readonly vpc: Record<string, unknown>;
  readonly context: Record<string, unknown>;
  /** The functions' subnets. */
  readonly subnets: string[];
  /** The interface endpoints' services (the gateway endpoints come with any). */
  readonly interfaces: string[];
  /** The functions' security group: given, else the one the stack creates. */
  readonly group?: string;
}

const CASES: Record<string, Case> = {
  'vpcId alone, NAT: private subnets with egress, no endpoints': {
    vpc: WITH_NAT,
    context: {},
    subnets: [A, B, C].map((s) => s.subnetId),
    interfaces: [],
  },
  'vpcId alone, no NAT: isolated subnets': {
    vpc: WITHOUT_NAT,
    context: {},
    subnets: [A, B, C].map((s) => s.subnetId),
    interfaces: [],
  },
  'vpcId + vpcEndpoints, no NAT': {
    vpc: WITHOUT_NAT,
    context: { vpcEndpoints: 'true' },
    subnets: [A, B, C].map((s) => s.subnetId),
    interfaces: ['lambda', 'sts'],
  },
  'vpcId + subnetIds, NAT': {
    vpc: WITH_NAT,
    context: { subnetIds: `${A.subnetId},${B.subnetId}` },
    subnets: [A.subnetId, B.subnetId],
    interfaces: [],
  },
  'vpcId + subnetIds + vpcEndpoints, no NAT': {
    vpc: WITHOUT_NAT,
    context: { subnetIds: [C.subnetId, B.subnetId], vpcEndpoints: true },
    subnets: [C.subnetId, B.subnetId],
    interfaces: ['lambda', 'sts'],
  },
  'vpcId + securityGroupIds, NAT': {
    vpc: WITH_NAT,
    context: { securityGroupIds: GROUP },
    subnets: [A, B, C].map((s) => s.subnetId),
    interfaces: [],
    group: GROUP,
  },
  'vpcId + subnetIds + securityGroupIds + vpcEndpoints, no NAT': {
    vpc: WITHOUT_NAT,
    context: {
      subnetIds: `${A.subnetId},${B.subnetId}`,
      securityGroupIds: GROUP,
      vpcEndpoints: 'true',
    },
    subnets: [A.subnetId, B.subnetId],
    interfaces: ['lambda', 'sts'],
    group: GROUP,
  },
  'MSK IAM + vpcEndpoints, no NAT': {
    vpc: WITHOUT_NAT,
    context: { ...MSK_IAM, vpcEndpoints: 'true' },
    subnets: [A, B, C].map((s) => s.subnetId),
    interfaces: ['lambda', 'sts'],
  },
  'MSK IAM + subnetIds, NAT': {
    vpc: WITH_NAT,
    context: { ...MSK_IAM, subnetIds: A.subnetId },
    subnets: [A.subnetId],
    interfaces: [],
  },
  'SCRAM + subnetIds + vpcEndpoints, no NAT': {
    vpc: WITHOUT_NAT,
    context: { ...SCRAM, subnetIds: `${A.subnetId},${C.subnetId}`, vpcEndpoints: 'true' },
    subnets: [A.subnetId, C.subnetId],
    interfaces: ['lambda', 'sts', 'secretsmanager'],
  },
  'SCRAM + securityGroupIds, NAT': {
    vpc: WITH_NAT,
    context: { ...SCRAM, securityGroupIds: GROUP },
    subnets: [A, B, C].map((s) => s.subnetId),
    interfaces: [],
    group: GROUP,
  },
};

const synth = (c: Case): SynthesizedApp =>
  synthDefaultApp({ ...c.vpc, vpcId: VPC_ID, ...c.context });

/** `dynamodb` of `com.amazonaws.<region>.dynamodb`, plain or joined with the region's Ref. */
const serviceOf = (name: unknown): string | undefined =>
  /\.([a-z0-9-]+)\W*$/.exec(JSON.stringify(name))?.[1];

describe('default app VPC context', () => {
  it.each(Object.keys(CASES))(
    'synthesizes with cdk-nag passing: %s',
    (name) => {
      // Prepare
      const c = CASES[name] as Case;
      const zoneOf = new Map([A, B, C].map((s) => [s.subnetId, s.availabilityZone]));
      const routeOf = new Map([A, B, C].map((s) => [s.subnetId, s.routeTableId]));
      // Act
      const { template, missing } = synth(c);
      // Assess: every function in the chosen subnets with the chosen group.
      expect(missing).toEqual([]);
      const functions = Object.values(resourcesOf(template, 'AWS::Lambda::Function'));
      expect(functions).toHaveLength(4);
      const created = Object.keys(resourcesOf(template, 'AWS::EC2::SecurityGroup')).filter((id) =>
        id.startsWith('ConnectKafkaFunctionsSecurityGroup'),
      );
      expect(created).toHaveLength(c.group === undefined ? 1 : 0);
      const group = c.group ?? { 'Fn::GetAtt': [created[0], 'GroupId'] };
      for (const fn of functions) {
        expect(fn.Properties.VpcConfig).toEqual({
          SubnetIds: c.subnets,
          SecurityGroupIds: [group],
        });
      }
      // Assess: no NAT needed, the endpoints reach what the functions and pollers call.
      const endpoints = Object.values(resourcesOf(template, 'AWS::EC2::VPCEndpoint'));
      const gateways = endpoints.filter((e) => e.Properties.VpcEndpointType === 'Gateway');
      const interfaces = endpoints.filter((e) => e.Properties.VpcEndpointType === 'Interface');
      expect(interfaces.map((e) => serviceOf(e.Properties.ServiceName)).sort()).toEqual(
        [...c.interfaces].sort(),
      );
      expect(gateways.map((e) => serviceOf(e.Properties.ServiceName)).sort()).toEqual(
        c.interfaces.length === 0 ? [] : ['dynamodb', 's3'],
      );
      for (const gateway of gateways) {
        expect([...(gateway.Properties.RouteTableIds as string[])].sort()).toEqual(
          [...new Set(c.subnets.map((s) => routeOf.get(s)))].sort(),
        );
      }
      for (const endpoint of interfaces) {
        const ids = endpoint.Properties.SubnetIds as string[];
        expect(endpoint.Properties.PrivateDnsEnabled).toBe(true);
        expect(ids.every((id) => c.subnets.includes(id))).toBe(true);
        expect(new Set(ids.map((id) => zoneOf.get(id))).size).toBe(ids.length);
        expect(new Set(ids.map((id) => zoneOf.get(id)))).toEqual(
          new Set(c.subnets.map((id) => zoneOf.get(id))),
        );
      }
      expect(Object.keys(resourcesOf(template, 'AWS::EC2::NatGateway'))).toEqual([]);
    },
    30_000,
  );

  it('warns when the functions land in isolated subnets without endpoints', () => {
    // Act
    const without = synth(CASES['vpcId alone, no NAT: isolated subnets'] as Case);
    const withEndpoints = synth(CASES['vpcId + vpcEndpoints, no NAT'] as Case);
    // Assess
    expect(without.warnings.join('\n')).toMatch(/no subnets with egress.*vpcEndpoints/);
    expect(withEndpoints.warnings.join('\n')).not.toMatch(/no subnets with egress/);
  }, 30_000);

  it('synthesizes before the VPC is looked up, asking the CLI for it', () => {
    // Act: the CLI's first pass has no lookup result yet.
    const { missing } = synthDefaultApp({
      vpcId: VPC_ID,
      subnetIds: `${A.subnetId},${B.subnetId}`,
      vpcEndpoints: 'true',
    });
    // Assess
    expect(missing).toEqual([expect.stringContaining(`filter.vpc-id=${VPC_ID}`)]);
  }, 30_000);

  it.each([
    [{ subnetIds: A.subnetId }, /Context subnetIds needs vpcId/],
    [{ securityGroupIds: GROUP }, /Context securityGroupIds needs vpcId/],
    [{ vpcEndpoints: 'true' }, /Context vpcEndpoints needs vpcId/],
  ])('refuses VPC settings without vpcId (%o)', (context, message) => {
    expect(() => synthDefaultApp(context)).toThrow(message);
  });

  it('names the subnets that are not in the VPC', () => {
    expect(() =>
      synthDefaultApp({ ...WITH_NAT, vpcId: VPC_ID, subnetIds: `${A.subnetId},subnet-0nothere` }),
    ).toThrow(`Context subnetIds: subnet-0nothere not in VPC ${VPC_ID}`);
  });

  it('refuses a VPC with public subnets only unless subnetIds chooses', () => {
    const publicOnly = vpcLookupContext(VPC_ID, { Public: PUBLIC, Private: [], Isolated: [] });
    expect(() => synthDefaultApp({ ...publicOnly, vpcId: VPC_ID })).toThrow(
      /no private subnets \(with egress or isolated\); give vpcSubnets/,
    );
  });
});
