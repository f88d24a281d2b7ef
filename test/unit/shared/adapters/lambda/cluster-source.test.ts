import type { LambdaClient } from '@aws-sdk/client-lambda';
import { describe, expect, it } from 'vitest';
import {
  clusterSource,
  type MappingAuth,
} from '../../../../../shared/adapters/lambda/cluster-source.js';
import {
  type KafkaClusterSource,
  LambdaSinkMappings,
} from '../../../../../shared/adapters/lambda/sink-mappings.js';
import { ConfigError } from '../../../../../shared/connect/errors.js';

const CLUSTER_ARN = 'arn:aws:kafka:eu-west-1:111122223333:cluster/orders/0b1c2d3e-1';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:AmazonMSK_connect-AbCdEf';
const BROKERS = ['b-1:9096', 'b-2:9096'];
const none: MappingAuth = { mode: 'none' };
const iam: MappingAuth = { mode: 'iam' };
const scram512: MappingAuth = {
  mode: 'scram',
  mechanism: 'scram-sha-512',
  secretArn: SECRET_ARN,
};
const scram256: MappingAuth = { ...scram512, mechanism: 'scram-sha-256' };
const vpc = [
  { Type: 'VPC_SUBNET', URI: 'subnet:subnet-1' },
  { Type: 'VPC_SECURITY_GROUP', URI: 'security_group:sg-1' },
];

/** The CreateEventSourceMapping input the sink mappings send for `cluster`. */
async function createInput(cluster: KafkaClusterSource): Promise<Record<string, unknown>> {
  const inputs: Record<string, unknown>[] = [];
  const client = {
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      if (command.constructor.name === 'CreateEventSourceMappingCommand') {
        inputs.push(command.input);
        return { UUID: 'u-1' };
      }
      return {};
    },
  } as unknown as LambdaClient;
  const mappings = new LambdaSinkMappings(client, {
    functionName: 'sink-fn',
    cluster,
    aliasOf: (connector) => `c-${connector}`,
  });
  await mappings.create({
    connector: 'to-s3',
    topic: 'orders',
    groupId: 'connect-to-s3-orders',
    startingPosition: 'TRIM_HORIZON',
    batchSize: 100,
    maxBatchingWindowSeconds: 1,
    enabled: true,
  });
  const [input] = inputs;
  if (input === undefined) throw new Error('no CreateEventSourceMapping was sent');
  return input;
}

describe('clusterSource', () => {
  it('reads an open MSK cluster with no access configurations', () => {
    expect(clusterSource({ clusterArn: CLUSTER_ARN }, BROKERS, none)).toEqual({
      kind: 'msk',
      clusterArn: CLUSTER_ARN,
    });
  });

  it('gives MSK mappings the SCRAM secret, and Lambda receives it', async () => {
    // Act
    const source = clusterSource({ clusterArn: CLUSTER_ARN }, BROKERS, scram512);
    const input = await createInput(source);

    // Assess
    expect(input).toMatchObject({
      EventSourceArn: CLUSTER_ARN,
      SourceAccessConfigurations: [{ Type: 'SASL_SCRAM_512_AUTH', URI: SECRET_ARN }],
    });
  });

  it('gives MSK IAM mappings no access configuration (they use the execution role)', async () => {
    const source = clusterSource({ clusterArn: CLUSTER_ARN }, BROKERS, iam);
    const input = await createInput(source);

    expect(source).toEqual({ kind: 'msk', clusterArn: CLUSTER_ARN });
    expect(input).not.toHaveProperty('SourceAccessConfigurations');
  });

  it('derives SASL_SCRAM_256_AUTH for a self-managed cluster without explicit configurations', async () => {
    const source = clusterSource({}, BROKERS, scram256);
    const input = await createInput(source);

    expect(input).toMatchObject({
      SelfManagedEventSource: { Endpoints: { KAFKA_BOOTSTRAP_SERVERS: BROKERS } },
      SourceAccessConfigurations: [{ Type: 'SASL_SCRAM_256_AUTH', URI: SECRET_ARN }],
    });
  });

  it('keeps SINK_MAPPING_ACCESS_CONFIGURATIONS that name the authentication already', () => {
    const given = [{ Type: 'SASL_SCRAM_512_AUTH', URI: 'arn:other-secret' }, ...vpc];

    const source = clusterSource(
      { accessConfigurations: JSON.stringify(given) },
      BROKERS,
      scram512,
    );

    expect(source).toEqual({
      kind: 'self-managed',
      bootstrapServers: BROKERS,
      accessConfigurations: given,
    });
  });

  it('adds the SCRAM secret to explicit VPC-only configurations', () => {
    const source = clusterSource({ accessConfigurations: JSON.stringify(vpc) }, BROKERS, scram512);

    expect(source).toEqual({
      kind: 'self-managed',
      bootstrapServers: BROKERS,
      accessConfigurations: [{ Type: 'SASL_SCRAM_512_AUTH', URI: SECRET_ARN }, ...vpc],
    });
  });

  it('passes explicit configurations through unchanged without SASL', () => {
    const source = clusterSource({ accessConfigurations: JSON.stringify(vpc) }, BROKERS, none);

    expect(source).toEqual({
      kind: 'self-managed',
      bootstrapServers: BROKERS,
      accessConfigurations: vpc,
    });
  });

  it('refuses MSK IAM without a cluster ARN, naming KAFKA_CLUSTER_ARN', () => {
    const build = () => clusterSource({}, BROKERS, iam);

    expect(build).toThrow(ConfigError);
    expect(build).toThrow(/KAFKA_AUTH=iam needs KAFKA_CLUSTER_ARN/);
  });

  it.each([
    ['not JSON', '[{"Type":'],
    ['not an array', '{"Type":"VPC_SUBNET","URI":"subnet:subnet-1"}'],
    ['an entry without URI', '[{"Type":"VPC_SUBNET"}]'],
  ])('refuses SINK_MAPPING_ACCESS_CONFIGURATIONS that is %s', (_, value) => {
    const build = () => clusterSource({ accessConfigurations: value }, BROKERS, none);

    expect(build).toThrow(ConfigError);
    expect(build).toThrow(/SINK_MAPPING_ACCESS_CONFIGURATIONS must be a JSON array/);
  });
});
