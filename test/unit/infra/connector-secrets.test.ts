import { Lazy } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import {
  isSecretKey,
  secretsManagerSecretIds,
  secretValueProblem,
} from '../../../infra/lib/connector-secrets.js';
import { pluginConfigKeyInfos } from '../../../shared/control-plane/plugin-catalog.js';
import { builtinDescriptors, builtinRegistry } from '../../../shared/plugins/registry.js';

/** Kafka's PASSWORD-typed client keys, as `admin.override.*` (and Connect's other prefixes) take them. */
const KAFKA_CLIENT_PASSWORDS = [
  'sasl.jaas.config',
  'ssl.key.password',
  'ssl.keystore.key',
  'ssl.keystore.certificate.chain',
  'ssl.keystore.password',
  'ssl.truststore.certificates',
  'ssl.truststore.password',
];

describe('isSecretKey', () => {
  it('covers every PASSWORD-typed key of the built-in plugins', () => {
    // Prepare
    const registry = builtinRegistry();
    const passwords = builtinDescriptors.flatMap((d) =>
      pluginConfigKeyInfos(registry, d.className)
        .filter((key) => key.type === 'PASSWORD')
        .map((key) => key.name),
    );
    // Act
    const missed = passwords.filter((key) => !isSecretKey(key));
    // Assess
    expect(passwords).toContain('aws.secret.access.key');
    expect(missed).toEqual([]);
  });

  it("covers Kafka's PASSWORD client keys under every override prefix", () => {
    const prefixes = ['', 'admin.override.', 'producer.override.', 'consumer.override.'];
    const keys = prefixes.flatMap((p) => KAFKA_CLIENT_PASSWORDS.map((k) => `${p}${k}`));
    expect(keys.filter((key) => !isSecretKey(key))).toEqual([]);
  });

  it("covers the PostgreSQL connectors' passwords: JDBC's connection.password, Debezium's database.password", () => {
    expect(['connection.password', 'database.password'].filter((k) => !isSecretKey(k))).toEqual([]);
  });

  it("covers a schema registry's credentials under the converter prefixes", () => {
    const keys = ['value.converter.', 'key.converter.', ''].map((p) => `${p}basic.auth.user.info`);
    expect(keys.filter((k) => !isSecretKey(k))).toEqual([]);
  });

  it('leaves ordinary keys alone', () => {
    const ordinary = [
      'kafka.topic',
      'aws.access.key.id',
      's3.bucket.name',
      'topics',
      'key.converter',
    ];
    expect(ordinary.filter(isSecretKey)).toEqual([]);
    expect(['client.secret', 'api_secret', 'db.Password', 'secret'].every(isSecretKey)).toBe(true);
  });
});

/* biome-ignore-start lint/suspicious/noTemplateCurlyInString: config-provider placeholders */
describe('secretValueProblem', () => {
  it('accepts one placeholder, or nothing', () => {
    expect(
      secretValueProblem('aws.secret.access.key', '${secretsmanager:s3-keys:secret}'),
    ).toBeUndefined();
    expect(secretValueProblem('db.password', '${ssm::/db/password}')).toBeUndefined();
    expect(secretValueProblem('db.password', '')).toBeUndefined();
  });

  it('refuses a literal, or a placeholder with literal text beside it, without echoing it', () => {
    const problem = secretValueProblem('db.password', 'pa55word');
    expect(problem).toMatch(/^db\.password holds a literal value: reference the secret/);
    expect(problem).not.toContain('pa55word');
    expect(secretValueProblem('db.password', 'x${ssm:/p}')).toMatch(/literal value/);
  });

  it('accepts a JAAS line whose password is a placeholder, and refuses one whose password is not', () => {
    const jaas = (password: string) =>
      `org.apache.kafka.common.security.scram.ScramLoginModule required username="app" password="${password}";`;
    expect(
      secretValueProblem(
        'admin.override.sasl.jaas.config',
        jaas('${secretsmanager:kafka:password}'),
      ),
    ).toBeUndefined();
    const problem = secretValueProblem('admin.override.sasl.jaas.config', jaas('s3cr3t'));
    expect(problem).toMatch(/holds a literal password: reference the secret/);
    expect(problem).not.toContain('s3cr3t');
    expect(secretValueProblem('sasl.jaas.config', 'Module required;')).toMatch(
      /has no placeholder/,
    );
  });
});
describe('secretsManagerSecretIds', () => {
  const ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:shop-db-AbCdEf';

  it('reads the secret of each ${secretsmanager:...} placeholder, by name or by ARN', () => {
    expect(secretsManagerSecretIds('${secretsmanager:shop-db:password}')).toEqual(['shop-db']);
    expect(secretsManagerSecretIds('${secretsmanager:shop-db}')).toEqual(['shop-db']);
    expect(secretsManagerSecretIds('${secretsmanager::shop-db}')).toEqual(['shop-db']);
    expect(secretsManagerSecretIds(`\${secretsmanager:${ARN}:password}`)).toEqual([ARN]);
    expect(secretsManagerSecretIds(`\${secretsmanager:${ARN}}`)).toEqual([ARN]);
    expect(
      secretsManagerSecretIds('user=${secretsmanager:a:user} password=${secretsmanager:b:pw}'),
    ).toEqual(['a', 'b']);
  });

  it('keeps a CDK token standing for the secret, and ignores other providers', () => {
    // Prepare
    const arn = Lazy.string({ produce: () => ARN });
    // Act
    const ids = secretsManagerSecretIds(`\${secretsmanager:${arn}:password}`);
    // Assess
    expect(ids).toEqual([arn]);
    expect(secretsManagerSecretIds('${ssm::/shop/db/password}')).toEqual([]);
    expect(secretsManagerSecretIds('plain')).toEqual([]);
    expect(secretsManagerSecretIds('')).toEqual([]);
  });
});
/* biome-ignore-end lint/suspicious/noTemplateCurlyInString: config-provider placeholders */
