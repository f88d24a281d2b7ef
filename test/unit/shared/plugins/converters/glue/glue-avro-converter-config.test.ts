/**
 * The Glue Avro converter's keys: the AWS library's names and defaults, what is refused with a
 * ConfigError on the key, and how the schema of a record is named.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../../../shared/connect/errors.js';
import { parseGlueAvroSettings } from '../../../../../../shared/plugins/converters/glue/glue-avro-converter-config.js';
import { schemaNameFor } from '../../../../../../shared/plugins/converters/glue/glue-converter-config.js';

describe('Glue Avro converter configuration', () => {
  it("takes the library's defaults", () => {
    // Act
    const settings = parseGlueAvroSettings({}, false);

    // Assess
    expect(settings.registry).toEqual({
      connection: { region: null, endpoint: null, credentials: null },
      registryName: 'default-registry',
      autoRegistration: false,
      compatibility: 'BACKWARD',
      description: null,
      cacheSize: 200,
      timeToLiveMs: 86_400_000,
    });
    expect(settings.naming).toEqual({
      kind: 'strategy',
      strategy: 'AWSSchemaNamingStrategyDefaultImpl',
    });
    expect(settings.compression).toBe('NONE');
    expect(settings.avroCacheSize).toBe(1000);
  });

  it('reads the keys a Glue converter config sets (case-insensitive enums as the library)', () => {
    // Act
    const settings = parseGlueAvroSettings(
      {
        region: 'eu-west-1',
        endpoint: 'http://127.0.0.1:5000',
        'aws.access.key.id': 'AKIDEXAMPLE',
        'aws.secret.access.key': 'secret',
        'registry.name': 'orders-registry',
        schemaAutoRegistrationEnabled: 'true',
        compatibility: 'forward_all',
        description: 'Orders',
        compression: 'zlib',
        dataFormat: 'avro',
        avroRecordType: 'GENERIC_RECORD',
        cacheSize: '10',
        timeToLiveMillis: '60000',
        'schemas.cache.config': '5',
      },
      true,
    );

    // Assess
    expect(settings.registry).toEqual({
      connection: {
        region: 'eu-west-1',
        endpoint: 'http://127.0.0.1:5000',
        credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
      },
      registryName: 'orders-registry',
      autoRegistration: true,
      compatibility: 'FORWARD_ALL',
      description: 'Orders',
      cacheSize: 10,
      timeToLiveMs: 60_000,
    });
    expect(settings.compression).toBe('ZLIB');
    expect(settings.avroCacheSize).toBe(5);
  });

  it.each([
    ['compression', 'GZIP'],
    ['compatibility', 'STRICT'],
    ['dataFormat', 'JSON'],
    ['avroRecordType', 'SPECIFIC_RECORD'],
    ['schemaNameGenerationClass', 'com.example.MyNamingStrategy'],
    ['secondaryDeserializer', 'io.confluent.kafka.serializers.KafkaAvroDeserializer'],
    ['cacheSize', '-1'],
    ['timeToLiveMillis', '0'],
  ])('refuses %s=%s with a ConfigError on the key', (key, value) => {
    // Act
    const parse = () => parseGlueAvroSettings({ [key]: value }, false);

    // Assess
    expect(parse).toThrow(ConfigError);
    expect(parse).toThrow(`Invalid value ${value} for configuration ${key}`);
  });

  it('refuses an access key id without its secret', () => {
    expect(() => parseGlueAvroSettings({ 'aws.access.key.id': 'AKIDEXAMPLE' }, false)).toThrow(
      'aws.access.key.id and aws.secret.access.key must be set together',
    );
  });

  it('takes the naming strategies by class name or simple name', () => {
    // Act
    const full = parseGlueAvroSettings(
      {
        schemaNameGenerationClass:
          'com.amazonaws.services.schemaregistry.common.AWSSchemaNamingStrategyConnectNameImpl',
      },
      false,
    );
    const simple = parseGlueAvroSettings(
      { schemaNameGenerationClass: 'AWSSchemaNamingStrategyConnectNameImpl' },
      false,
    );

    // Assess
    expect(full.naming).toEqual({
      kind: 'strategy',
      strategy: 'AWSSchemaNamingStrategyConnectNameImpl',
    });
    expect(simple.naming).toEqual(full.naming);
  });
});

describe('schemaNameFor', () => {
  it('names the schema after the topic by default, for keys and values alike', () => {
    const naming = parseGlueAvroSettings({}, true).naming;
    expect(schemaNameFor(naming, 'orders', 'com.example.Order')).toBe('orders');
  });

  it('uses schemaName when set, whatever the strategy', () => {
    const naming = parseGlueAvroSettings(
      {
        schemaName: 'order-keys',
        schemaNameGenerationClass: 'AWSSchemaNamingStrategyConnectNameImpl',
      },
      true,
    ).naming;
    expect(schemaNameFor(naming, 'orders', 'com.example.Order')).toBe('order-keys');
  });

  it('uses the record full name with the Connect-name strategy, the topic for other schemas', () => {
    const naming = parseGlueAvroSettings(
      { schemaNameGenerationClass: 'AWSSchemaNamingStrategyConnectNameImpl' },
      false,
    ).naming;
    expect(schemaNameFor(naming, 'orders', 'com.example.Order')).toBe('com.example.Order');
    expect(schemaNameFor(naming, 'orders', null)).toBe('orders');
  });
});
