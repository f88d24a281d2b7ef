import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Subnet } from 'aws-cdk-lib/aws-ec2';
import type { Policy } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { KafkaAccess } from '../../../infra/lib/kafka-access.js';
import { ServerlessConnect } from '../../../infra/lib/serverless-connect.js';
import { resourcesOf, type Synthesized, statementOf, synthConstruct } from './synth.js';
import {
  CA_PEM,
  importedVpc,
  MSK_ARN,
  mskIamInVpc,
  SECRET_ARN,
  SUBNET_IDS,
  scramInVpcWithEndpoints,
  selfManagedPrivateCa,
} from './variants.js';

let msk: Synthesized;
let scram: Synthesized;
let privateCa: Synthesized;

beforeAll(() => {
  msk = synthConstruct(mskIamInVpc);
  scram = synthConstruct(scramInVpcWithEndpoints);
  privateCa = synthConstruct(selfManagedPrivateCa);
}, 60_000);

const variablesOf = (s: Synthesized, fn: string): Record<string, unknown> => {
  const entry = Object.entries(resourcesOf(s.template, 'AWS::Lambda::Function')).find(([id]) =>
    id.startsWith(`ConnectFunctions${fn}Function`),
  );
  return ((entry?.[1].Properties.Environment ?? {}) as { Variables: Record<string, unknown> })
    .Variables;
};

describe('KafkaAccess', () => {
  it('scopes MSK IAM data-plane permissions to the cluster and ARNs derived from it', () => {
    // Prepare
    const base = 'arn:aws:kafka:eu-west-1:111122223333';
    const cluster = 'demo/abcd-1234-ef56';
    // Act
    const of = (sid: string) => statementOf(msk.template, 'ConnectFunctionsSourceTaskRole', sid);
    // Assess
    expect(of('MskIamCluster')).toMatchObject({
      Action: expect.arrayContaining([
        'kafka-cluster:Connect',
        'kafka-cluster:WriteDataIdempotently',
      ]),
      Resource: MSK_ARN,
    });
    expect(of('MskIamTopics').Resource).toBe(`${base}:topic/${cluster}/*`);
    // Only the sink mapping groups: source transactions commit no group offsets (ADR 0005).
    expect(of('MskIamGroups').Resource).toBe(`${base}:group/${cluster}/connect-*`);
    expect(of('MskIamTransactionalIds').Resource).toBe(
      `${base}:transactional-id/${cluster}/sc-prod-*`,
    );
  });

  it('lets the sink role describe the MSK cluster for its event source mappings', () => {
    const statement = statementOf(
      msk.template,
      'ConnectFunctionsSinkTaskRole',
      'MskEventSourceMetadata',
    );
    expect(statement).toMatchObject({
      Action: expect.arrayContaining(['kafka:DescribeClusterV2', 'kafka:GetBootstrapBrokers']),
      Resource: MSK_ARN,
    });
  });

  it("lets Lambda create the pollers' ENIs in the cluster VPC when the functions are outside it", () => {
    // Prepare
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'NoVpc', {
      env: { account: '111122223333', region: 'eu-west-1' },
    });
    const connect = new ServerlessConnect(stack, 'Connect', {
      kafka: { bootstrapServers: ['b-1:9098'], mskClusterArn: MSK_ARN, auth: { mode: 'iam' } },
    });
    // Act
    const sids = (role: IConstruct) => {
      const policy = role.node.tryFindChild('DefaultPolicy') as Policy;
      const document = stack.resolve(policy.document) as { Statement: { Sid?: string }[] };
      return document.Statement.map((st) => st.Sid);
    };
    // Assess
    expect(sids(connect.functions.sinkTask.role)).toEqual(
      expect.arrayContaining(['NetworkInterfacesDescribe', 'NetworkInterfacesManage']),
    );
    expect(sids(connect.functions.sourceTask.role)).not.toContain('NetworkInterfacesManage');
  });

  it('tells the functions how to authenticate and the enumerator which cluster the mappings read', () => {
    expect(variablesOf(msk, 'SourceTask')).toMatchObject({
      KAFKA_BROKERS: 'b-1.demo.kafka.eu-west-1.amazonaws.com:9098',
      KAFKA_SSL: 'true',
      KAFKA_AUTH: 'iam',
      KAFKA_SASL_MECHANISM: 'oauthbearer',
      TRANSACTIONAL_ID_PREFIX: 'sc-prod',
    });
    expect(variablesOf(msk, 'Enumerator')).toMatchObject({ KAFKA_CLUSTER_ARN: MSK_ARN });
    expect(variablesOf(msk, 'Enumerator').SINK_MAPPING_ACCESS_CONFIGURATIONS).toBeUndefined();
  });

  it('places every function in the private subnets with an outbound-only security group', () => {
    // Prepare
    const groups = Object.entries(resourcesOf(msk.template, 'AWS::EC2::SecurityGroup'));
    // Act
    const functions = Object.values(resourcesOf(msk.template, 'AWS::Lambda::Function'));
    // Assess
    expect(groups).toHaveLength(1);
    expect(groups[0]?.[1].Properties.SecurityGroupIngress).toBeUndefined();
    for (const fn of functions) {
      expect(fn.Properties.VpcConfig).toEqual({
        SubnetIds: SUBNET_IDS,
        SecurityGroupIds: [{ 'Fn::GetAtt': [groups[0]?.[0], 'GroupId'] }],
      });
    }
  });

  it('gives self-managed mappings the SCRAM secret, subnets and security group', () => {
    // Prepare
    const raw = variablesOf(scram, 'Enumerator').SINK_MAPPING_ACCESS_CONFIGURATIONS as {
      'Fn::Join': [string, (string | { 'Fn::GetAtt': [string, string] })[]];
    };
    // Act: the security group id is a reference; stand its logical id in for it.
    const text = raw['Fn::Join'][1]
      .map((part) => (typeof part === 'string' ? part : `<${part['Fn::GetAtt'][0]}>`))
      .join('');
    // Assess
    expect(JSON.parse(text)).toEqual([
      { Type: 'SASL_SCRAM_256_AUTH', URI: SECRET_ARN },
      { Type: 'VPC_SUBNET', URI: `subnet:${SUBNET_IDS[0]}` },
      { Type: 'VPC_SUBNET', URI: `subnet:${SUBNET_IDS[1]}` },
      {
        Type: 'VPC_SECURITY_GROUP',
        URI: expect.stringMatching(/^security_group:<ConnectKafkaFunctionsSecurityGroup/),
      },
    ]);
    expect(variablesOf(scram, 'Api')).toMatchObject({
      KAFKA_AUTH: 'scram',
      KAFKA_SASL_MECHANISM: 'scram-sha-256',
      KAFKA_SASL_SECRET_ARN: SECRET_ARN,
      KAFKA_SSL: 'true',
    });
  });

  it('creates gateway and interface endpoints when asked', () => {
    const endpoints = Object.values(resourcesOf(scram.template, 'AWS::EC2::VPCEndpoint'));
    const services = endpoints.map((e) => JSON.stringify(e.Properties.ServiceName));
    expect(services).toHaveLength(5);
    for (const name of ['dynamodb', 's3', 'lambda', 'sts', 'secretsmanager']) {
      expect(services.some((s) => s.includes(`.${name}`))).toBe(true);
    }
    scram.template.hasResourceProperties('AWS::EC2::VPCEndpoint', {
      VpcEndpointType: 'Interface',
      PrivateDnsEnabled: true,
      SubnetIds: SUBNET_IDS,
    });
  });

  it('names the subnets whose route tables the gateway endpoints need', () => {
    // Prepare: subnets imported by id alone, as `-c subnetIds` used to be.
    const stack = new Stack(new App(), 'Unrouted');
    const vpc = importedVpc(stack);
    // Act
    const build = () =>
      new KafkaAccess(stack, 'Kafka', {
        bootstrapServers: ['b:9092'],
        vpc,
        vpcSubnets: { subnets: [Subnet.fromSubnetId(stack, 'S', 'subnet-0ccccccccccccccc3')] },
        vpcEndpoints: true,
      });
    // Assess
    expect(build).toThrow(
      /vpcEndpoints needs the route tables of the subnets subnet-0ccccccccccccccc3 .*Subnet\.fromSubnetAttributes/,
    );
  });

  it('adds a Secrets Manager endpoint for the pollers when a private CA is given', () => {
    // Prepare
    const stack = new Stack(new App(), 'CaEndpoints');
    // Act
    new KafkaAccess(stack, 'Kafka', {
      bootstrapServers: ['broker-1.internal:9093'],
      tls: true,
      caCertificatePem: CA_PEM,
      vpc: importedVpc(stack),
      vpcEndpoints: true,
    });
    // Assess
    const services = Object.values(
      resourcesOf(Template.fromStack(stack), 'AWS::EC2::VPCEndpoint'),
    ).map((e) => JSON.stringify(e.Properties.ServiceName));
    expect(services.filter((s) => s.includes('.secretsmanager'))).toHaveLength(1);
  });

  it('grants the table key to the functions through DynamoDB only', () => {
    const statement = statementOf(scram.template, 'ConnectFunctionsSinkTaskRole', 'StateTableKey');
    expect(statement).toMatchObject({
      Resource: { 'Fn::GetAtt': [expect.stringMatching(/^TableKey/), 'Arn'] },
      Condition: { StringEquals: { 'kms:ViaService': 'dynamodb.eu-west-1.amazonaws.com' } },
    });
  });

  it('rejects settings the cluster cannot work with', () => {
    // Prepare
    const stack = new Stack(new App(), 'Bad');
    const build = (id: string, props: ConstructorParameters<typeof KafkaAccess>[2]) => () =>
      new KafkaAccess(stack, id, props);
    // Assess
    expect(build('NoBrokers', { bootstrapServers: [] })).toThrow(/at least one/);
    expect(
      build('IamSelfManaged', { bootstrapServers: ['b:9098'], auth: { mode: 'iam' } }),
    ).toThrow(/needs mskClusterArn/);
    expect(
      build('MskScram256', {
        bootstrapServers: ['b:9096'],
        mskClusterArn: MSK_ARN,
        auth: { mode: 'scram', secretArn: SECRET_ARN, mechanism: 'SCRAM-SHA-256' },
      }),
    ).toThrow(/SCRAM-SHA-512 only/);
  });

  it('refuses a sink timeout above the 14 minutes a Kafka event source mapping allows', () => {
    // Prepare
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Timeout');
    // Act
    const build = () =>
      new ServerlessConnect(stack, 'Connect', {
        kafka: { bootstrapServers: ['b:9092'] },
        functions: { sinkTask: { timeout: Duration.minutes(15) } },
      });
    // Assess
    expect(build).toThrow(/at most 14 minutes/);
  });

  it('makes every function and the sink mappings trust a private CA given as PEM', () => {
    // Prepare
    const layers = Object.keys(resourcesOf(privateCa.template, 'AWS::Lambda::LayerVersion'));
    const secrets = Object.entries(resourcesOf(privateCa.template, 'AWS::SecretsManager::Secret'));
    const functions = Object.values(resourcesOf(privateCa.template, 'AWS::Lambda::Function'));
    // Act
    const access = variablesOf(privateCa, 'Enumerator').SINK_MAPPING_ACCESS_CONFIGURATIONS as {
      'Fn::Join': [string, (string | { Ref: string })[]];
    };
    const text = access['Fn::Join'][1]
      .map((part) => (typeof part === 'string' ? part : `<${part.Ref}>`))
      .join('');
    const [secretId, secret] = secrets[0] ?? [];
    // Assess
    expect(layers).toHaveLength(1);
    expect(functions).toHaveLength(4);
    for (const fn of functions) {
      expect(fn.Properties.Layers).toEqual([{ Ref: layers[0] }]);
      expect(
        (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables,
      ).toMatchObject({ KAFKA_SSL: 'true', NODE_EXTRA_CA_CERTS: '/opt/kafka-ca.pem' });
    }
    expect(secrets).toHaveLength(1);
    expect(JSON.parse(String(secret?.Properties.SecretString))).toEqual({ certificate: CA_PEM });
    expect(JSON.parse(text)).toEqual([
      { Type: 'SERVER_ROOT_CA_CERTIFICATE', URI: `<${secretId}>` },
    ]);
    expect(
      statementOf(privateCa.template, 'ConnectFunctionsSinkTaskRole', 'KafkaCaCertificateSecret'),
    ).toMatchObject({ Action: 'secretsmanager:GetSecretValue', Resource: { Ref: secretId } });
  });

  it('refuses a private CA for MSK, without TLS, or that is not a PEM certificate', () => {
    const attempt = (props: Record<string, unknown>) => () => {
      const stack = new Stack(new App(), 'Ca');
      new KafkaAccess(stack, 'Kafka', { bootstrapServers: ['b:9093'], ...props });
    };
    expect(attempt({ mskClusterArn: MSK_ARN, caCertificatePem: CA_PEM })).toThrow(
      'self-managed clusters',
    );
    expect(attempt({ tls: false, caCertificatePem: CA_PEM })).toThrow('needs tls');
    expect(attempt({ tls: true, caCertificatePem: 'not a certificate' })).toThrow(
      'must hold a PEM certificate',
    );
  });
});
