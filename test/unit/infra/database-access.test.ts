import type { Stack } from 'aws-cdk-lib';
import { SecurityGroup } from 'aws-cdk-lib/aws-ec2';
import { describe, expect, it } from 'vitest';
import type { ServerlessConnectProps } from '../../../infra/lib/serverless-connect.js';
import {
  nagViolations,
  resourcesOf,
  type Synthesized,
  synthConstruct,
  synthDefaultApp,
  vpcLookupContext,
} from './synth.js';
import { importedVpc, mskIamInVpc, SUBNET_IDS, selfManagedPlain } from './variants.js';

/**
 * The `databases` setting: the connectors' RDS / Aurora security groups admit the functions,
 * which must therefore run in the VPC; with VPC endpoints, Secrets Manager comes too.
 */
const DB_GROUP = 'sg-0d0d0d0d0d0d0d0d0';
const OTHER_DB_GROUP = 'sg-0e0e0e0e0e0e0e0e0';
const FUNCTIONS_GROUP = 'sg-0f0f0f0f0f0f0f0f0';

const dbGroup = (stack: Stack, id: string, groupId: string) =>
  SecurityGroup.fromSecurityGroupId(stack, id, groupId);

/** MSK IAM in a VPC (its own functions' group) reaching two databases. */
const withDatabases = (stack: Stack): ServerlessConnectProps => ({
  ...mskIamInVpc(stack),
  databases: [
    { securityGroup: dbGroup(stack, 'OrdersDb', DB_GROUP) },
    { securityGroup: dbGroup(stack, 'Aurora', OTHER_DB_GROUP), port: 5433 },
  ],
});

const ingressRules = (synthesized: Synthesized) =>
  Object.values(resourcesOf(synthesized.template, 'AWS::EC2::SecurityGroupIngress')).map(
    (r) => r.Properties,
  );

/** The services of the interface endpoints (`secretsmanager` of `com.amazonaws.<region>.secretsmanager`). */
const interfaceServices = (synthesized: Synthesized) =>
  Object.values(resourcesOf(synthesized.template, 'AWS::EC2::VPCEndpoint'))
    .filter((e) => e.Properties.VpcEndpointType === 'Interface')
    .map((e) => /\.([a-z0-9-]+)\W*$/.exec(JSON.stringify(e.Properties.ServiceName))?.[1])
    .sort();

describe('ServerlessConnect databases', { timeout: 60_000 }, () => {
  it("admits the functions' security group into each database's group on its port", () => {
    // Act
    const synthesized = synthConstruct(withDatabases);
    // Assess
    const [functionsGroup] = Object.keys(
      resourcesOf(synthesized.template, 'AWS::EC2::SecurityGroup'),
    ).filter((id) => id.startsWith('ConnectKafkaFunctionsSecurityGroup'));
    const source = { 'Fn::GetAtt': [functionsGroup, 'GroupId'] };
    expect(ingressRules(synthesized)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          GroupId: DB_GROUP,
          SourceSecurityGroupId: source,
          IpProtocol: 'tcp',
          FromPort: 5432,
          ToPort: 5432,
        }),
        expect.objectContaining({
          GroupId: OTHER_DB_GROUP,
          SourceSecurityGroupId: source,
          FromPort: 5433,
          ToPort: 5433,
        }),
      ]),
    );
    expect(ingressRules(synthesized)).toHaveLength(2);
    // The functions' own group already allows all outbound traffic: no egress rule is added.
    expect(resourcesOf(synthesized.template, 'AWS::EC2::SecurityGroupEgress')).toEqual({});
  });

  it('admits each of the given functions security groups', () => {
    // Act
    const synthesized = synthConstruct((stack) => ({
      kafka: {
        ...selfManagedPlain().kafka,
        vpc: importedVpc(stack),
        securityGroups: [dbGroup(stack, 'Functions', FUNCTIONS_GROUP)],
      },
      databases: [{ securityGroup: dbGroup(stack, 'OrdersDb', DB_GROUP) }],
    }));
    // Assess
    expect(ingressRules(synthesized)).toEqual([
      expect.objectContaining({
        GroupId: DB_GROUP,
        SourceSecurityGroupId: FUNCTIONS_GROUP,
        FromPort: 5432,
      }),
    ]);
  });

  it('keeps cdk-nag AwsSolutions and Serverless clean', () => {
    expect(nagViolations(synthConstruct(withDatabases).app)).toEqual([]);
  });

  it('leaves the template of a deployment without databases as it was', () => {
    // Act
    const without = synthConstruct(mskIamInVpc).template.toJSON();
    const empty = synthConstruct((stack) => ({ ...mskIamInVpc(stack), databases: [] })).template;
    // Assess
    expect(empty.toJSON()).toEqual(without);
  });

  it('adds the Secrets Manager endpoint, for the database passwords, when it creates endpoints', () => {
    // Act
    const endpoints = (props: ServerlessConnectProps): ServerlessConnectProps => ({
      ...props,
      kafka: { ...props.kafka, vpcEndpoints: true },
    });
    const plain = synthConstruct((stack) => endpoints(mskIamInVpc(stack)));
    const databases = synthConstruct((stack) => endpoints(withDatabases(stack)));
    // Assess
    expect(interfaceServices(plain)).toEqual(['lambda', 'sts']);
    expect(interfaceServices(databases)).toEqual(['lambda', 'secretsmanager', 'sts']);
  });

  it('refuses databases when the functions are not in a VPC, saying why', () => {
    expect(() =>
      synthConstruct((stack) => ({
        ...selfManagedPlain(),
        databases: [{ securityGroup: dbGroup(stack, 'OrdersDb', DB_GROUP) }],
      })),
    ).toThrow(/databases needs the functions in a VPC \(kafka\.vpc.*private subnets/);
  });

  it('refuses a port outside 1-65535', () => {
    expect(() =>
      synthConstruct((stack) => ({
        ...mskIamInVpc(stack),
        databases: [{ securityGroup: dbGroup(stack, 'OrdersDb', DB_GROUP), port: 70_000 }],
      })),
    ).toThrow('databases port must be 1 to 65535 (got 70000)');
  });
});

describe('default app context databaseSecurityGroupIds', { timeout: 60_000 }, () => {
  const VPC_ID = 'vpc-0123456789abcdef0';
  const vpc = vpcLookupContext(VPC_ID, {
    Public: [],
    Private: SUBNET_IDS.map((subnetId, n) => ({
      subnetId,
      cidr: `10.0.${n}.0/24`,
      availabilityZone: `eu-west-1${n === 0 ? 'a' : 'b'}`,
      routeTableId: `rtb-0${n}`,
    })),
    Isolated: [],
  });

  it('admits the functions into each group, 5432 unless a port follows the id, with cdk-nag passing', () => {
    // Act
    const { template, missing } = synthDefaultApp({
      ...vpc,
      vpcId: VPC_ID,
      databaseSecurityGroupIds: `${DB_GROUP},${OTHER_DB_GROUP}:6432`,
    });
    // Assess
    expect(missing).toEqual([]);
    const rules = Object.values(resourcesOf(template, 'AWS::EC2::SecurityGroupIngress')).map(
      (r) => [r.Properties.GroupId, r.Properties.FromPort, r.Properties.ToPort],
    );
    expect(rules).toEqual([
      [DB_GROUP, 5432, 5432],
      [OTHER_DB_GROUP, 6432, 6432],
    ]);
  });

  it('refuses databases without vpcId, and a malformed entry', () => {
    expect(() => synthDefaultApp({ databaseSecurityGroupIds: DB_GROUP })).toThrow(
      /Context databaseSecurityGroupIds needs vpcId: RDS and Aurora databases sit in private subnets/,
    );
    expect(() =>
      synthDefaultApp({ ...vpc, vpcId: VPC_ID, databaseSecurityGroupIds: `${DB_GROUP}:0` }),
    ).toThrow(/databaseSecurityGroupIds: expected sg-<id> or sg-<id>:<port 1-65535>, got sg-/);
    expect(() =>
      synthDefaultApp({ ...vpc, vpcId: VPC_ID, databaseSecurityGroupIds: 'db.internal:5432' }),
    ).toThrow(/got db\.internal:5432/);
  });
});
