import type { Stack } from 'aws-cdk-lib';
import { type IVpc, Vpc } from 'aws-cdk-lib/aws-ec2';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { ServerlessConnectProps } from '../../../infra/lib/serverless-connect.js';

/** Deployment shapes the infra tests synthesize (fake ids in account 111122223333, eu-west-1). */
export const MSK_ARN = 'arn:aws:kafka:eu-west-1:111122223333:cluster/demo/abcd-1234-ef56';
export const SECRET_ARN =
  'arn:aws:secretsmanager:eu-west-1:111122223333:secret:AmazonMSK_connect-AbCdEf';
export const SECRET_KEY_ARN =
  'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
export const WEB_ACL_ARN =
  'arn:aws:wafv2:eu-west-1:111122223333:regional/webacl/connect/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111';
export const SUBNET_IDS = ['subnet-0aaaaaaaaaaaaaaa1', 'subnet-0bbbbbbbbbbbbbbb2'];

/** A VPC known by its ids (no lookup, no resources of its own). */
export function importedVpc(stack: Stack): IVpc {
  return Vpc.fromVpcAttributes(stack, 'Vpc', {
    vpcId: 'vpc-0123456789abcdef0',
    vpcCidrBlock: '10.0.0.0/16',
    availabilityZones: ['eu-west-1a', 'eu-west-1b'],
    privateSubnetIds: SUBNET_IDS,
    privateSubnetRouteTableIds: ['rtb-0aaaaaaaaaaaaaaa1', 'rtb-0bbbbbbbbbbbbbbb2'],
  });
}

export const selfManagedPlain = (): ServerlessConnectProps => ({
  kafka: { bootstrapServers: ['broker-1.example.com:9092', 'broker-2.example.com:9092'] },
});

export const mskIamInVpc = (stack: Stack): ServerlessConnectProps => ({
  kafka: {
    bootstrapServers: ['b-1.demo.kafka.eu-west-1.amazonaws.com:9098'],
    mskClusterArn: MSK_ARN,
    auth: { mode: 'iam' },
    vpc: importedVpc(stack),
  },
  functions: { tracing: true, transactionalIdPrefix: 'sc-prod' },
});

export const scramInVpcWithEndpoints = (stack: Stack): ServerlessConnectProps => ({
  kafka: {
    bootstrapServers: ['broker-1.internal:9096'],
    auth: {
      mode: 'scram',
      secretArn: SECRET_ARN,
      secretKeyArn: SECRET_KEY_ARN,
      mechanism: 'SCRAM-SHA-256',
    },
    vpc: importedVpc(stack),
    vpcEndpoints: true,
  },
  stateTable: { encryptionKey: new Key(stack, 'TableKey', { enableKeyRotation: true }) },
});

export const apiKeyWithExtras = (stack: Stack): ServerlessConnectProps => ({
  ...selfManagedPlain(),
  api: { auth: 'api-key', publicOpenApi: true, webAclArn: WEB_ACL_ARN, monthlyQuota: 100_000 },
  dataBucket: { notifySourcePrefixes: ['incoming/', 'landing/'] },
  monitoring: {
    alarmTopic: new Topic(stack, 'Alarms', {
      enforceSSL: true,
      masterKey: new Key(stack, 'AlarmKey', { enableKeyRotation: true }),
    }),
  },
});

/** A throwaway self-signed CA certificate (PEM), as a self-managed cluster's private CA. */
export const CA_PEM = [
  '-----BEGIN CERTIFICATE-----',
  'MIIBfjCCASOgAwIBAgIUZ2xXbGzZ0cN3b5nq1m1QbGq1yk4wCgYIKoZIzj0EAwIw',
  'FTETMBEGA1UEAwwKdGVzdC1rYWZrYTAeFw0yNjAxMDEwMDAwMDBaFw0zNjAxMDEw',
  '-----END CERTIFICATE-----',
  '',
].join('\n');

export const selfManagedPrivateCa = (): ServerlessConnectProps => ({
  kafka: {
    bootstrapServers: ['broker-1.internal:9093'],
    tls: true,
    caCertificatePem: CA_PEM,
  },
});

export const iamAndApiKey = (): ServerlessConnectProps => ({
  ...selfManagedPlain(),
  api: { auth: 'iam-and-api-key' },
});

export const TOOLS_SECRET_ARN =
  'arn:aws:secretsmanager:eu-west-1:111122223333:secret:connect-tools-AbCdEf';

/** Connect tools only (Basic), with a given secret and its customer-managed key. */
export const connectToolsGivenSecret = (): ServerlessConnectProps => ({
  ...selfManagedPlain(),
  api: {
    auth: 'connect-tools',
    connectTools: {
      credentials: 'basic',
      secretArn: TOOLS_SECRET_ARN,
      secretKeyArn: SECRET_KEY_ARN,
    },
  },
});

/** IAM or Connect tools (a second API), a generated secret, a web ACL and a public OpenAPI. */
export const iamOrConnectTools = (): ServerlessConnectProps => ({
  ...selfManagedPlain(),
  api: { auth: 'iam-or-connect-tools', webAclArn: WEB_ACL_ARN, publicOpenApi: true },
});

export const VARIANTS: Record<string, (stack: Stack) => ServerlessConnectProps> = {
  'self-managed cluster without auth': selfManagedPlain,
  'MSK IAM in a VPC, traced': mskIamInVpc,
  'self-managed SCRAM in a VPC with endpoints and a table key': scramInVpcWithEndpoints,
  'API key, public OpenAPI document, web ACL and alarm topic': apiKeyWithExtras,
  'IAM signature and API key': iamAndApiKey,
  'self-managed TLS with a private CA': selfManagedPrivateCa,
  'Connect tools with a given secret': connectToolsGivenSecret,
  'IAM or Connect tools': iamOrConnectTools,
};
