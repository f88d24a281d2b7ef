import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { describe, expect, it } from 'vitest';
import { CONNECTOR_RESOURCE_TYPE } from '../../../infra/lib/connector.js';
import {
  Connector,
  ServerlessConnect,
  type ServerlessConnectProps,
} from '../../../infra/lib/serverless-connect.js';
import {
  asArray,
  iamStatements,
  nagViolations,
  resourcesOf,
  type Statement,
  TEST_ENV,
} from './synth.js';
import { selfManagedPlain } from './variants.js';

/** A deployment and the connectors `declare` adds to its stack, synthesized without bundling. */
function synth(
  declare: (stack: Stack, connect: ServerlessConnect) => void,
  props: ServerlessConnectProps = selfManagedPlain(),
) {
  const app = new App({
    context: {
      'aws:cdk:bundling-stacks': [],
      '@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy': true,
    },
  });
  const stack = new Stack(app, 'Test', { env: TEST_ENV });
  const connect = new ServerlessConnect(stack, 'Connect', props);
  declare(stack, connect);
  return { app, stack, template: Template.fromStack(stack) };
}

const S3_SINK = {
  'connector.class': 's3-sink',
  topics: 'orders',
  's3.bucket.name': 'my-bucket',
  'flush.size': '1000',
};

/** A PostgreSQL CDC source (Debezium's keys); its password added by each test. */
const POSTGRES_CDC = {
  'connector.class': 'postgres-cdc',
  'database.hostname': 'shop.cluster-abc.eu-west-1.rds.amazonaws.com',
  'database.user': 'cdc_user',
  'database.dbname': 'shop',
  'topic.prefix': 'shop',
};

/** The roles that resolve a source connector's placeholders. */
const API_ENUMERATOR_SOURCE = [
  'ConnectFunctionsApiRole',
  'ConnectFunctionsEnumeratorRole',
  'ConnectFunctionsSourceTaskRole',
];

/** The `ConnectorSecrets` statement in the policy of the role whose logical id starts with `role`. */
function secretStatement(template: Template, role: string): Statement | undefined {
  return iamStatements(template).find(
    ({ where, statement }) => where.startsWith(role) && statement.Sid === 'ConnectorSecrets',
  )?.statement;
}

/** The connector resource handler's function (the only one whose description names it). */
function handlerFunction(template: Template): [string, Record<string, unknown>] {
  const functions = Object.entries(resourcesOf(template, 'AWS::Lambda::Function')).filter(
    ([, fn]) => String(fn.Properties.Description).includes('Connector construct'),
  );
  expect(functions).toHaveLength(1);
  const [found] = functions;
  if (found === undefined) throw new Error('no handler');
  return [found[0], found[1].Properties];
}

describe('Connector', { timeout: 60_000 }, () => {
  it('declares the connector as a custom resource with its name, config and initial state', () => {
    // Act
    const { template } = synth((stack, connect) => {
      new Connector(stack, 'OrdersS3', {
        connect,
        name: 'orders-s3',
        config: S3_SINK,
        initialState: 'PAUSED',
      });
    });
    // Assess
    const [handlerId] = handlerFunction(template);
    template.hasResource(CONNECTOR_RESOURCE_TYPE, {
      Properties: {
        ServiceToken: { 'Fn::GetAtt': [handlerId, 'Arn'] },
        ConnectorName: 'orders-s3',
        Config: S3_SINK,
        InitialState: 'PAUSED',
        ServiceTimeout: '300',
      },
      DeletionPolicy: 'Delete',
      UpdateReplacePolicy: 'Delete',
    });
  });

  it('creates the connector RUNNING unless told otherwise, and retains it on request', () => {
    // Act
    const { template } = synth((stack, connect) => {
      new Connector(stack, 'Kept', {
        connect,
        name: 'kept',
        config: S3_SINK,
        removalPolicy: RemovalPolicy.RETAIN,
      });
    });
    // Assess
    template.hasResource(CONNECTOR_RESOURCE_TYPE, {
      Properties: Match.objectLike({ ConnectorName: 'kept', InitialState: 'RUNNING' }),
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('shares one handler among the connectors of a deployment, invoking only the api function', () => {
    // Act
    const { template } = synth((stack, connect) => {
      new Connector(stack, 'A', { connect, name: 'a', config: S3_SINK });
      new Connector(stack, 'B', { connect, name: 'b', config: S3_SINK });
    });
    // Assess
    const [handlerId, handler] = handlerFunction(template);
    expect(Object.keys(template.findResources(CONNECTOR_RESOURCE_TYPE))).toHaveLength(2);
    expect(handler.Environment).toEqual({
      Variables: expect.objectContaining({
        API_FUNCTION: { Ref: expect.stringMatching(/^ConnectFunctionsApiFunction/) },
      }),
    });
    expect(handler.VpcConfig).toBeUndefined();
    const role = (handler.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const granted = iamStatements(template).filter(({ where }) =>
      where.startsWith(role.replace(/Role[0-9A-F]{8}$/, 'Role')),
    );
    expect(granted.map(({ statement }) => [statement.Sid, statement.Action])).toEqual([
      ['OwnLogGroup', ['logs:CreateLogStream', 'logs:PutLogEvents']],
      ['InvokeApi', 'lambda:InvokeFunction'],
    ]);
    const invoke = granted.find(({ statement }) => statement.Sid === 'InvokeApi')?.statement;
    expect(asArray(invoke?.Resource)).toEqual([
      { 'Fn::GetAtt': [expect.stringMatching(/^ConnectFunctionsApiFunction/), 'Arn'] },
    ]);
    expect(handlerId).toMatch(/^ConnectConnectorResourcesHandler/);
  });

  it('keeps cdk-nag AwsSolutions clean', () => {
    // Act
    const { app } = synth((stack, connect) => {
      new Connector(stack, 'OrdersS3', { connect, name: 'orders-s3', config: S3_SINK });
    });
    // Assess
    expect(nagViolations(app)).toEqual([]);
  });

  it('writes secrets into the template as placeholders only', () => {
    // Prepare
    const literal = 'hunter2-literal-secret';
    // Act
    const { template } = synth((scope, connect) => {
      const secret = new Secret(scope, 'S3Keys');
      new Connector(scope, 'WithSecret', {
        connect,
        name: 'with-secret',
        config: {
          ...S3_SINK,
          'aws.access.key.id': `\${secretsmanager:${secret.secretArn}:id}`,
          'aws.secret.access.key': `\${secretsmanager:${secret.secretArn}:secret}`,
        },
      });
      expect(
        () =>
          new Connector(scope, 'Inlined', {
            connect,
            name: 'inlined',
            config: { ...S3_SINK, 'aws.secret.access.key': literal },
          }),
      ).toThrow(/aws\.secret\.access\.key holds a literal value/);
    });
    // Assess
    const json = JSON.stringify(template.toJSON());
    expect(json).not.toContain(literal);
    template.hasResourceProperties(CONNECTOR_RESOURCE_TYPE, {
      Config: Match.objectLike({
        'aws.secret.access.key': {
          'Fn::Join': ['', ['${secretsmanager:', { Ref: Match.anyValue() }, ':secret}']],
        },
      }),
    });
  });

  it('refuses a SecretValue or dynamic reference where a placeholder belongs', () => {
    expect(() =>
      synth((stack, connect) => {
        const secret = new Secret(stack, 'Jaas');
        new Connector(stack, 'Dynamic', {
          connect,
          name: 'dynamic',
          config: {
            ...S3_SINK,
            'admin.override.ssl.key.password': secret.secretValue.unsafeUnwrap(),
          },
        });
      }),
    ).toThrow(/admin\.override\.ssl\.key\.password is a CDK token/);
  });

  it('refuses a plain-text PostgreSQL password (connection.password, database.password)', () => {
    for (const key of ['connection.password', 'database.password']) {
      expect(() =>
        synth((stack, connect) => {
          new Connector(stack, 'Plain', {
            connect,
            name: 'plain',
            config: { ...POSTGRES_CDC, [key]: 'pa55word' },
          });
        }),
      ).toThrow(new RegExp(`Connector plain: ${key.replace('.', '\\.')} holds a literal value`));
    }
  });

  it("lets the source functions read a source connector's secrets, and only those", () => {
    // Act
    const { template } = synth((stack, connect) => {
      const db = new Secret(stack, 'ShopDb');
      new Connector(stack, 'Cdc', {
        connect,
        name: 'shop-cdc',
        config: {
          ...POSTGRES_CDC,
          'database.password': `\${secretsmanager:${db.secretArn}:password}`,
        },
      });
    });
    // Assess: the api (offsets), the enumerator (connector start) and the source task.
    const dbArn = { Ref: expect.stringMatching(/^ShopDb/) };
    const suffixed = { 'Fn::Join': ['', [dbArn, '-??????']] };
    for (const role of API_ENUMERATOR_SOURCE) {
      expect(secretStatement(template, role)).toEqual({
        Sid: 'ConnectorSecrets',
        Effect: 'Allow',
        Action: 'secretsmanager:GetSecretValue',
        Resource: [dbArn, suffixed],
      });
    }
    expect(secretStatement(template, 'ConnectFunctionsSinkTaskRole')).toBeUndefined();
  });

  it("lets the sink functions read a sink connector's secrets, by name or by ARN", () => {
    // Prepare
    const arn = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:warehouse-AbCdEf';
    // Act
    const { template } = synth((stack, connect) => {
      new Connector(stack, 'Sink', {
        connect,
        name: 'warehouse',
        config: {
          'connector.class': 'postgres-sink',
          topics: 'orders',
          'connection.url': 'jdbc:postgresql://warehouse.internal:5432/dw',
          'connection.user': `\${secretsmanager:warehouse-user:username}`,
          'connection.password': `\${secretsmanager:${arn}:password}`,
        },
      });
    });
    // Assess
    const byName = {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':secretsmanager:eu-west-1:111122223333:secret:warehouse-user-??????',
        ],
      ],
    };
    for (const role of ['ConnectFunctionsSinkTaskRole', 'ConnectFunctionsApiRole']) {
      expect(secretStatement(template, role)?.Resource).toEqual([byName, arn, `${arn}-??????`]);
    }
    expect(secretStatement(template, 'ConnectFunctionsSourceTaskRole')).toBeUndefined();
  });

  it('grants a secret imported by name (a partial ARN) with the suffix Secrets Manager adds', () => {
    // Act
    const { template } = synth((stack, connect) => {
      const user = Secret.fromSecretNameV2(stack, 'CdcUser', 'shop/cdc-user');
      new Connector(stack, 'Cdc', {
        connect,
        name: 'shop-cdc',
        config: {
          ...POSTGRES_CDC,
          'database.password': `\${secretsmanager:${user.secretArn}:password}`,
        },
      });
    });
    // Assess
    const partial = [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':secretsmanager:eu-west-1:111122223333:secret:shop/cdc-user',
    ];
    expect(secretStatement(template, 'ConnectFunctionsSourceTaskRole')?.Resource).toEqual([
      { 'Fn::Join': ['', partial] },
      { 'Fn::Join': ['', [...partial.slice(0, 2), `${partial[2]}-??????`]] },
    ]);
  });

  it("gathers a deployment's connector secrets in one statement per role, each once", () => {
    // Act
    const { template, app } = synth((stack, connect) => {
      const config = (secret: string) => ({
        ...POSTGRES_CDC,
        'database.password': `\${secretsmanager:${secret}:password}`,
      });
      new Connector(stack, 'A', { connect, name: 'a', config: config('a-db') });
      new Connector(stack, 'B', { connect, name: 'b', config: config('b-db') });
      new Connector(stack, 'AgainA', { connect, name: 'a2', config: config('a-db') });
    });
    // Assess
    const statements = iamStatements(template).filter(
      ({ where, statement }) =>
        where.startsWith('ConnectFunctionsSourceTaskRole') && statement.Sid === 'ConnectorSecrets',
    );
    expect(statements).toHaveLength(1);
    expect(JSON.stringify(statements[0]?.statement.Resource).match(/-db-\?{6}/g)).toEqual([
      '-db-??????',
      '-db-??????',
    ]);
    expect(nagViolations(app)).toEqual([]);
  });

  it('refuses a config whose name differs from the connector name', () => {
    expect(() =>
      synth((stack, connect) => {
        new Connector(stack, 'Mismatch', {
          connect,
          name: 'orders',
          config: { ...S3_SINK, name: 'other' },
        });
      }),
    ).toThrow(/config\.name is other; leave it out or make it orders/);
  });
});

/** The `ConnectorGlue*` statements of the role whose logical id starts with `role`, by Sid. */
function glueStatements(template: Template, role: string): Record<string, Statement> {
  return Object.fromEntries(
    iamStatements(template)
      .filter(
        ({ where, statement }) =>
          where.startsWith(role) && /^ConnectorGlue/.test(statement.Sid ?? ''),
      )
      .map(({ statement }) => [statement.Sid, statement]),
  );
}

describe('Connector with the Glue Schema Registry converter', { timeout: 60_000 }, () => {
  it("lets the sink task read schemas of the converter's registry, and only that function", () => {
    // Act
    const { template, app } = synth((stack, connect) => {
      new Connector(stack, 'Lake', {
        connect,
        name: 'lake',
        config: {
          ...S3_SINK,
          'value.converter':
            'com.amazonaws.services.schemaregistry.kafkaconnect.AWSKafkaAvroConverter',
          'value.converter.registry.name': 'orders-registry',
        },
      });
    });
    // Assess
    const glue = glueStatements(template, 'ConnectFunctionsSinkTaskRole');
    expect(glue.ConnectorGlueSchemas).toEqual({
      Sid: 'ConnectorGlueSchemas',
      Effect: 'Allow',
      Action: 'glue:GetSchemaByDefinition',
      Resource: [
        {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':glue:eu-west-1:111122223333:registry/orders-registry',
            ],
          ],
        },
        {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':glue:eu-west-1:111122223333:schema/orders-registry/*',
            ],
          ],
        },
      ],
    });
    expect(glue.ConnectorGlueSchemaVersions).toMatchObject({
      Action: 'glue:GetSchemaVersion',
      Resource: '*',
    });
    expect(glue.ConnectorGlueRegister).toBeUndefined();
    for (const role of API_ENUMERATOR_SOURCE) expect(glueStatements(template, role)).toEqual({});
    expect(nagViolations(app)).toEqual([]);
  });

  it('adds registering where auto-registration is on, in the region the converter names', () => {
    // Act
    const { template } = synth((stack, connect) => {
      new Connector(stack, 'Orders', {
        connect,
        name: 'orders',
        config: {
          'connector.class': 'datagen',
          'kafka.topic': 'orders',
          quickstart: 'orders',
          'value.converter': 'glue-avro',
          'value.converter.region': 'us-west-2',
          'value.converter.schemaAutoRegistrationEnabled': 'true',
        },
      });
    });
    // Assess: the default registry, in us-west-2, registered into by the source task
    const glue = glueStatements(template, 'ConnectFunctionsSourceTaskRole');
    expect(glue.ConnectorGlueRegister).toMatchObject({
      Action: ['glue:CreateSchema', 'glue:RegisterSchemaVersion'],
    });
    expect(JSON.stringify(glue.ConnectorGlueRegister?.Resource)).toContain(
      ':glue:us-west-2:111122223333:registry/default-registry',
    );
    expect(glueStatements(template, 'ConnectFunctionsSinkTaskRole')).toEqual({});
  });

  it('shares one statement per role among connectors, with each registry once', () => {
    // Act
    const { template } = synth((stack, connect) => {
      for (const [id, registry] of [
        ['A', 'r1'],
        ['B', 'r2'],
        ['C', 'r1'],
      ] as const) {
        new Connector(stack, id, {
          connect,
          name: `sink-${id}`,
          config: {
            ...S3_SINK,
            'key.converter': 'AWSKafkaAvroConverter',
            'key.converter.registry.name': registry,
          },
        });
      }
    });
    // Assess
    const statements = iamStatements(template).filter(
      ({ where, statement }) =>
        where.startsWith('ConnectFunctionsSinkTaskRole') &&
        statement.Sid === 'ConnectorGlueSchemas',
    );
    expect(statements).toHaveLength(1);
    expect(asArray(statements[0]?.statement.Resource)).toHaveLength(4);
  });

  it('grants nothing of Glue to a connector with other converters', () => {
    // Act
    const { template } = synth((stack, connect) => {
      new Connector(stack, 'OrdersS3', { connect, name: 'orders-s3', config: S3_SINK });
    });
    // Assess
    expect(glueStatements(template, 'ConnectFunctionsSinkTaskRole')).toEqual({});
  });
});

describe('the deployment-level Glue Schema Registry grant', { timeout: 60_000 }, () => {
  /** A deployment whose connectors (created through REST) use `registries`. */
  const withGlue = (autoRegister?: boolean): ServerlessConnectProps => ({
    ...selfManagedPlain(),
    functions: {
      glueSchemaRegistry: {
        registries: ['orders-registry', 'payments'],
        ...(autoRegister === undefined ? {} : { autoRegister }),
      },
    },
  });

  it('lets both task functions read schemas of the listed registries, and no other function', () => {
    // Act
    const { template, app } = synth(() => {}, withGlue());
    // Assess
    for (const role of ['ConnectFunctionsSourceTaskRole', 'ConnectFunctionsSinkTaskRole']) {
      const glue = glueStatements(template, role);
      expect(glue.ConnectorGlueSchemas?.Action).toBe('glue:GetSchemaByDefinition');
      const resources = JSON.stringify(glue.ConnectorGlueSchemas?.Resource);
      expect(resources).toContain(':glue:eu-west-1:111122223333:registry/orders-registry');
      expect(resources).toContain(':glue:eu-west-1:111122223333:schema/payments/*');
      expect(glue.ConnectorGlueSchemaVersions).toMatchObject({
        Action: 'glue:GetSchemaVersion',
        Resource: '*',
      });
      expect(glue.ConnectorGlueRegister).toBeUndefined();
    }
    for (const role of ['ConnectFunctionsApiRole', 'ConnectFunctionsEnumeratorRole']) {
      expect(glueStatements(template, role)).toEqual({});
    }
    expect(nagViolations(app)).toEqual([]);
  });

  it('adds registering with autoRegister', () => {
    // Act
    const { template, app } = synth(() => {}, withGlue(true));
    // Assess
    const glue = glueStatements(template, 'ConnectFunctionsSinkTaskRole');
    expect(glue.ConnectorGlueRegister).toMatchObject({
      Action: ['glue:CreateSchema', 'glue:RegisterSchemaVersion'],
    });
    expect(asArray(glue.ConnectorGlueRegister?.Resource)).toHaveLength(4);
    expect(nagViolations(app)).toEqual([]);
  });

  it('shares its statements with a Connector construct using a Glue converter', () => {
    // Act
    const { template } = synth((stack, connect) => {
      new Connector(stack, 'Lake', {
        connect,
        name: 'lake',
        config: {
          ...S3_SINK,
          'value.converter': 'glue-protobuf',
          'value.converter.registry.name': 'lake-registry',
        },
      });
    }, withGlue());
    // Assess: one statement per Sid, holding the deployment's registries and the connector's
    const statements = iamStatements(template).filter(
      ({ where, statement }) =>
        where.startsWith('ConnectFunctionsSinkTaskRole') &&
        statement.Sid === 'ConnectorGlueSchemas',
    );
    expect(statements).toHaveLength(1);
    expect(asArray(statements[0]?.statement.Resource)).toHaveLength(6);
  });
});
