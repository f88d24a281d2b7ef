import { describe, expect, it } from 'vitest';
import { PluginRegistry } from '../../../../../shared/connect/plugin.js';
import { AvroConverter } from '../../../../../shared/plugins/converters/avro/avro-converter.js';
import { BooleanConverter } from '../../../../../shared/plugins/converters/boolean-converter.js';
import { ByteArrayConverter } from '../../../../../shared/plugins/converters/byte-array-converter.js';
import { converterDescriptors } from '../../../../../shared/plugins/converters/descriptors.js';
import { GlueAvroConverter } from '../../../../../shared/plugins/converters/glue/glue-avro-converter.js';
import { GlueJsonSchemaConverter } from '../../../../../shared/plugins/converters/glue/glue-json-schema-converter.js';
import { GlueProtobufConverter } from '../../../../../shared/plugins/converters/glue/glue-protobuf-converter.js';
import { JsonConverter } from '../../../../../shared/plugins/converters/json-converter.js';
import { JsonSchemaConverter } from '../../../../../shared/plugins/converters/json-schema/json-schema-converter.js';
import {
  DoubleConverter,
  FloatConverter,
  IntegerConverter,
  LongConverter,
  ShortConverter,
} from '../../../../../shared/plugins/converters/number-converters.js';
import { SimpleHeaderConverter } from '../../../../../shared/plugins/converters/simple-header-converter.js';
import { StringConverter } from '../../../../../shared/plugins/converters/string-converter.js';

function registry(): PluginRegistry {
  const r = new PluginRegistry();
  for (const d of converterDescriptors) r.register(d);
  return r;
}

describe('converterDescriptors', () => {
  it.each([
    ['org.apache.kafka.connect.json.JsonConverter', JsonConverter],
    ['org.apache.kafka.connect.storage.StringConverter', StringConverter],
    ['org.apache.kafka.connect.converters.ByteArrayConverter', ByteArrayConverter],
    ['org.apache.kafka.connect.converters.LongConverter', LongConverter],
    ['org.apache.kafka.connect.converters.IntegerConverter', IntegerConverter],
    ['org.apache.kafka.connect.converters.ShortConverter', ShortConverter],
    ['org.apache.kafka.connect.converters.FloatConverter', FloatConverter],
    ['org.apache.kafka.connect.converters.DoubleConverter', DoubleConverter],
    ['org.apache.kafka.connect.converters.BooleanConverter', BooleanConverter],
  ])('registers %s as a converter and a header converter', (className, type) => {
    // Prepare
    const r = registry();

    // Act
    const converter = r.resolve(className, 'converter').create();
    const headerConverter = r.resolve(className, 'header_converter').create();

    // Assess
    expect(converter).toBeInstanceOf(type);
    expect(headerConverter).toBeInstanceOf(type);
    expect(headerConverter).not.toBe(converter);
  });

  it('registers SimpleHeaderConverter as a header converter only', () => {
    // Prepare
    const r = registry();
    const name = 'org.apache.kafka.connect.storage.SimpleHeaderConverter';

    // Act
    const headerConverter = r.resolve(name, 'header_converter').create();

    // Assess
    expect(headerConverter).toBeInstanceOf(SimpleHeaderConverter);
    expect(r.has(name, 'converter')).toBe(false);
  });

  it('resolves the simple names Connect users write', () => {
    // Prepare
    const r = registry();

    // Act
    const json = r.resolve('JsonConverter', 'converter').create();
    const string = r.resolve('String', 'converter').create();
    const long = r.resolve('LongConverter', 'converter').create();
    const bool = r.resolve('Boolean', 'header_converter').create();

    // Assess
    expect(json).toBeInstanceOf(JsonConverter);
    expect(string).toBeInstanceOf(StringConverter);
    expect(long).toBeInstanceOf(LongConverter);
    expect(bool).toBeInstanceOf(BooleanConverter);
  });

  it('registers the AvroConverter as a converter under its class name, its simple names and avro', () => {
    // Prepare
    const r = registry();

    // Act
    const names = ['io.confluent.connect.avro.AvroConverter', 'AvroConverter', 'Avro', 'avro'];
    const converters = names.map((name) => r.resolve(name, 'converter').create());

    // Assess
    for (const converter of converters) expect(converter).toBeInstanceOf(AvroConverter);
    expect(r.has('io.confluent.connect.avro.AvroConverter', 'header_converter')).toBe(false);
  });

  it('registers the JsonSchemaConverter as a converter under its class name, its simple names and json-schema', () => {
    // Prepare
    const r = registry();
    const className = 'io.confluent.connect.json.JsonSchemaConverter';

    // Act
    const names = [className, 'JsonSchemaConverter', 'JsonSchema', 'json-schema'];
    const converters = names.map((name) => r.resolve(name, 'converter').create());

    // Assess
    for (const converter of converters) expect(converter).toBeInstanceOf(JsonSchemaConverter);
    expect(r.has(className, 'header_converter')).toBe(false);
  });

  it('registers the Glue Avro converter under the AWS library class name, its simple name and glue-avro', () => {
    // Prepare
    const r = registry();
    const className = 'com.amazonaws.services.schemaregistry.kafkaconnect.AWSKafkaAvroConverter';

    // Act
    const names = [className, 'AWSKafkaAvroConverter', 'glue-avro'];
    const converters = names.map((name) => r.resolve(name, 'converter').create());

    // Assess
    for (const converter of converters) expect(converter).toBeInstanceOf(GlueAvroConverter);
    expect(r.has(className, 'header_converter')).toBe(false);
  });

  it.each([
    [
      'com.amazonaws.services.schemaregistry.kafkaconnect.protobuf.ProtobufSchemaConverter',
      ['ProtobufSchemaConverter', 'glue-protobuf'],
      GlueProtobufConverter,
    ],
    [
      'com.amazonaws.services.schemaregistry.kafkaconnect.jsonschema.JsonSchemaConverter',
      ['glue-json-schema'],
      GlueJsonSchemaConverter,
    ],
  ] as const)(
    'registers the Glue converter %s under its short names',
    (className, aliases, type) => {
      // Prepare
      const r = registry();

      // Act
      const converters = [className, ...aliases].map((name) =>
        r.resolve(name, 'converter').create(),
      );

      // Assess
      for (const converter of converters) expect(converter).toBeInstanceOf(type);
    },
  );

  it("keeps JsonSchemaConverter Confluent's beside Glue's converter of the same simple name", () => {
    // Act
    const converter = registry().resolve('JsonSchemaConverter', 'converter').create();

    // Assess
    expect(converter).toBeInstanceOf(JsonSchemaConverter);
  });
});
