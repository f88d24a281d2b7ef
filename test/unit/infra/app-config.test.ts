import { describe, expect, it } from 'vitest';
import { readAppConfig } from '../../../infra/lib/app-config.js';

const reader =
  (context: Record<string, unknown>) =>
  (key: string): unknown =>
    context[key];

describe('readAppConfig', () => {
  it('applies the documented defaults when only the brokers are given', () => {
    // Act
    const config = readAppConfig(reader({ kafkaBootstrapServers: 'b-1:9092, b-2:9092' }));
    // Assess
    expect(config).toMatchObject({
      stackName: 'ServerlessConnect',
      kafkaBootstrapServers: ['b-1:9092', 'b-2:9092'],
      kafkaAuth: 'none',
      kafkaTls: undefined,
      apiAuth: 'iam',
      connectTools: undefined,
      tableDeletionProtection: true,
      dataBucketVersioned: false,
      logRetentionDays: 30,
      enumeratorReservedConcurrency: 2,
      nag: true,
      subnetIds: [],
      databases: [],
      replicationSlotLagAlarmBytes: 1024 ** 3,
      plugins: [],
      tags: {},
      glueRegistries: [],
      glueAutoRegister: false,
    });
  });

  it('reads the Glue registries every task may use, and whether they may register there', () => {
    // Act
    const config = readAppConfig(
      reader({
        kafkaBootstrapServers: 'b:1',
        glueRegistries: 'orders, payments',
        glueAutoRegister: 'true',
      }),
    );
    // Assess
    expect(config.glueRegistries).toEqual(['orders', 'payments']);
    expect(config.glueAutoRegister).toBe(true);
  });

  it('reads the databases as security group ids with an optional port, 5432 by default', () => {
    // Prepare
    const read = (databaseSecurityGroupIds: unknown) =>
      readAppConfig(
        reader({ kafkaBootstrapServers: 'b:1', vpcId: 'vpc-1', databaseSecurityGroupIds }),
      ).databases;
    // Act, Assess
    expect(read('sg-0aa11, sg-0bb22:6432')).toEqual([
      { securityGroupId: 'sg-0aa11', port: 5432 },
      { securityGroupId: 'sg-0bb22', port: 6432 },
    ]);
    expect(read(['sg-0aa11:5433'])).toEqual([{ securityGroupId: 'sg-0aa11', port: 5433 }]);
    expect(() => read('sg-0aa11:65536')).toThrow(/expected sg-<id> or sg-<id>:<port 1-65535>/);
    expect(() => read('0aa11')).toThrow(/got 0aa11/);
  });

  it('reads tags as key=value pairs, a JSON object, or its JSON text', () => {
    // Prepare
    const read = (tags: unknown) => readAppConfig(reader({ kafkaBootstrapServers: 'b:1', tags }));
    // Act, Assess
    expect(read('team=data, env=prod,url=a=b').tags).toEqual({
      team: 'data',
      env: 'prod',
      url: 'a=b',
    });
    expect(read({ team: 'data', empty: '' }).tags).toEqual({ team: 'data', empty: '' });
    expect(read('{"team":"data"}').tags).toEqual({ team: 'data' });
    expect(() => read('["team"]')).toThrow(/tags: expected key=value/);
    expect(() => read({ ['k'.repeat(129)]: 'v' })).toThrow(/is not a tag key/);
    expect(() => read({ team: 'v'.repeat(257) })).toThrow(/over 256 characters/);
  });

  it('reads command-line strings and cdk.json values alike', () => {
    // Act
    const fromCli = readAppConfig(
      reader({
        kafkaBootstrapServers: 'b:9096',
        kafkaAuth: 'scram',
        kafkaSecretArn: 'arn:aws:secretsmanager:eu-west-1:1:secret:AmazonMSK_x-AbCdEf',
        kafkaTls: 'true',
        vpcId: 'vpc-1',
        subnetIds: 'subnet-1,subnet-2',
        tableDeletionProtection: 'false',
        enumeratorReservedConcurrency: '0',
        plugins: './plugins/acme.ts, @acme/connect-plugins',
      }),
    );
    const fromJson = readAppConfig(
      reader({
        kafkaBootstrapServers: ['b:9092'],
        kafkaTls: false,
        vpcId: 'vpc-1',
        subnetIds: ['subnet-1'],
        plugins: ['./plugins/acme.ts'],
      }),
    );
    // Assess
    expect(fromCli).toMatchObject({
      kafkaAuth: 'scram',
      kafkaTls: true,
      subnetIds: ['subnet-1', 'subnet-2'],
      tableDeletionProtection: false,
      enumeratorReservedConcurrency: 0,
      plugins: ['./plugins/acme.ts', '@acme/connect-plugins'],
    });
    expect(fromJson).toMatchObject({
      kafkaBootstrapServers: ['b:9092'],
      kafkaTls: false,
      subnetIds: ['subnet-1'],
      plugins: ['./plugins/acme.ts'],
    });
  });

  it('names the offending key when a value is missing or invalid', () => {
    expect(() => readAppConfig(reader({}))).toThrow(/kafkaBootstrapServers is required/);
    expect(() =>
      readAppConfig(reader({ kafkaBootstrapServers: 'b:1', kafkaAuth: 'scram' })),
    ).toThrow(/kafkaSecretArn is required/);
    expect(() => readAppConfig(reader({ kafkaBootstrapServers: 'b:1', apiAuth: 'basic' }))).toThrow(
      /apiAuth must be one of iam, api-key, iam-and-api-key, connect-tools, iam-or-connect-tools \(got basic\)/,
    );
    expect(() => readAppConfig(reader({ kafkaBootstrapServers: 'b:1', nag: 'yes' }))).toThrow(
      /nag must be true or false/,
    );
    expect(() =>
      readAppConfig(reader({ kafkaBootstrapServers: 'b:1', logRetentionDays: 'week' })),
    ).toThrow(/logRetentionDays must be an integer/);
    expect(() =>
      readAppConfig(reader({ kafkaBootstrapServers: 'b:1', replicationSlotLagAlarmBytes: '0' })),
    ).toThrow(/replicationSlotLagAlarmBytes must be at least 1 \(got 0\)/);
  });

  it('reads the Connect tools keys in the tools modes, with their defaults', () => {
    // Prepare
    const arn = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:connect-tools-AbCdEf';
    const key = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    // Act
    const defaults = readAppConfig(
      reader({ kafkaBootstrapServers: 'b:1', apiAuth: 'iam-or-connect-tools' }),
    );
    const given = readAppConfig(
      reader({
        kafkaBootstrapServers: 'b:1',
        apiAuth: 'connect-tools',
        connectToolsCredentials: 'bearer',
        connectToolsSecretArn: arn,
        connectToolsSecretKeyArn: key,
        connectToolsCacheSeconds: '0',
      }),
    );
    // Assess
    expect(defaults.connectTools).toEqual({
      credentials: 'both',
      secretArn: undefined,
      secretKeyArn: undefined,
      cacheSeconds: 60,
    });
    expect(given).toMatchObject({
      apiAuth: 'connect-tools',
      connectTools: { credentials: 'bearer', secretArn: arn, secretKeyArn: key, cacheSeconds: 0 },
    });
  });

  it('refuses bad Connect tools keys, and those keys outside the tools modes', () => {
    const tools = { kafkaBootstrapServers: 'b:1', apiAuth: 'connect-tools' };
    expect(() => readAppConfig(reader({ ...tools, connectToolsCredentials: 'digest' }))).toThrow(
      /connectToolsCredentials must be one of basic, bearer, both \(got digest\)/,
    );
    expect(() => readAppConfig(reader({ ...tools, connectToolsCacheSeconds: '-1' }))).toThrow(
      /connectToolsCacheSeconds must be between 0 and 3600/,
    );
    expect(() => readAppConfig(reader({ ...tools, connectToolsSecretKeyArn: 'arn:k' }))).toThrow(
      /connectToolsSecretKeyArn is the key of connectToolsSecretArn/,
    );
    expect(() =>
      readAppConfig(reader({ kafkaBootstrapServers: 'b:1', connectToolsCredentials: 'basic' })),
    ).toThrow(/connectToolsCredentials needs apiAuth connect-tools or iam-or-connect-tools/);
  });
});
