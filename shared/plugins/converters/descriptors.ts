/**
 * The built-in converters, registered under Apache Kafka Connect's class names so existing
 * connector configs (`value.converter=org.apache.kafka.connect.json.JsonConverter`) work as is.
 * The registry adds the simple names (`JsonConverter`, `Json`) as aliases.
 */
import type { AnyPluginDescriptor, Converter, HeaderConverter } from 'serverless-connect/connect';
import { AvroConverter } from './avro/avro-converter.js';
import { BooleanConverter } from './boolean-converter.js';
import { ByteArrayConverter } from './byte-array-converter.js';
import { GlueAvroConverter } from './glue/glue-avro-converter.js';
import { GlueJsonSchemaConverter } from './glue/glue-json-schema-converter.js';
import { GlueProtobufConverter } from './glue/glue-protobuf-converter.js';
import { JsonConverter } from './json-converter.js';
import { JsonSchemaConverter } from './json-schema/json-schema-converter.js';
import {
  DoubleConverter,
  FloatConverter,
  IntegerConverter,
  LongConverter,
  ShortConverter,
} from './number-converters.js';
import { ProtobufConverter } from './protobuf/protobuf-converter.js';
import { SimpleHeaderConverter } from './simple-header-converter.js';
import { StringConverter } from './string-converter.js';

/** The version the built-in converters report. */
export const CONVERTERS_VERSION = '0.1.0';

const JSON_CONVERTER = 'org.apache.kafka.connect.json.JsonConverter';
const STRING_CONVERTER = 'org.apache.kafka.connect.storage.StringConverter';
const BYTE_ARRAY_CONVERTER = 'org.apache.kafka.connect.converters.ByteArrayConverter';
const SIMPLE_HEADER_CONVERTER = 'org.apache.kafka.connect.storage.SimpleHeaderConverter';
const CONVERTERS_PACKAGE = 'org.apache.kafka.connect.converters';
/** Confluent's Avro converter (schema registry); `AvroConverter` and `Avro` resolve to it too. */
export const AVRO_CONVERTER = 'io.confluent.connect.avro.AvroConverter';
const PROTOBUF_CONVERTER = 'io.confluent.connect.protobuf.ProtobufConverter';
/**
 * Confluent's JSON Schema converter (schema registry); `JsonSchemaConverter`, `JsonSchema` and
 * `json-schema` resolve to it too.
 */
export const JSON_SCHEMA_CONVERTER = 'io.confluent.connect.json.JsonSchemaConverter';
/**
 * The AWS Glue Schema Registry library's Avro converter; `AWSKafkaAvroConverter` and `glue-avro`
 * resolve to it too.
 */
export const GLUE_AVRO_CONVERTER =
  'com.amazonaws.services.schemaregistry.kafkaconnect.AWSKafkaAvroConverter';
/**
 * The AWS Glue Schema Registry library's Protobuf converter; `ProtobufSchemaConverter` and
 * `glue-protobuf` resolve to it too.
 */
export const GLUE_PROTOBUF_CONVERTER =
  'com.amazonaws.services.schemaregistry.kafkaconnect.protobuf.ProtobufSchemaConverter';
/**
 * The AWS Glue Schema Registry library's JSON Schema converter; `glue-json-schema` resolves to
 * it too (its simple name is Confluent's converter's, which keeps `JsonSchemaConverter`).
 */
export const GLUE_JSON_SCHEMA_CONVERTER =
  'com.amazonaws.services.schemaregistry.kafkaconnect.jsonschema.JsonSchemaConverter';

/**
 * Connect's converters of one primitive each (`org.apache.kafka.connect.converters.LongConverter`,
 * ...), every one both a converter and a header converter.
 */
const PRIMITIVE_CONVERTERS: ReadonlyArray<readonly [string, () => Converter & HeaderConverter]> = [
  ['LongConverter', () => new LongConverter()],
  ['IntegerConverter', () => new IntegerConverter()],
  ['ShortConverter', () => new ShortConverter()],
  ['FloatConverter', () => new FloatConverter()],
  ['DoubleConverter', () => new DoubleConverter()],
  ['BooleanConverter', () => new BooleanConverter()],
];

/** Every built-in converter and header converter, one descriptor per (class, type). */
export const converterDescriptors: AnyPluginDescriptor[] = [
  {
    className: JSON_CONVERTER,
    aliases: [],
    type: 'converter',
    version: CONVERTERS_VERSION,
    create: () => new JsonConverter(),
  },
  {
    className: JSON_CONVERTER,
    aliases: [],
    type: 'header_converter',
    version: CONVERTERS_VERSION,
    create: () => new JsonConverter(),
  },
  {
    className: STRING_CONVERTER,
    aliases: [],
    type: 'converter',
    version: CONVERTERS_VERSION,
    create: () => new StringConverter(),
  },
  {
    className: STRING_CONVERTER,
    aliases: [],
    type: 'header_converter',
    version: CONVERTERS_VERSION,
    create: () => new StringConverter(),
  },
  {
    className: BYTE_ARRAY_CONVERTER,
    aliases: [],
    type: 'converter',
    version: CONVERTERS_VERSION,
    create: () => new ByteArrayConverter(),
  },
  {
    className: BYTE_ARRAY_CONVERTER,
    aliases: [],
    type: 'header_converter',
    version: CONVERTERS_VERSION,
    create: () => new ByteArrayConverter(),
  },
  {
    className: SIMPLE_HEADER_CONVERTER,
    aliases: [],
    type: 'header_converter',
    version: CONVERTERS_VERSION,
    create: () => new SimpleHeaderConverter(),
  },
  {
    className: AVRO_CONVERTER,
    aliases: ['avro'],
    type: 'converter',
    version: CONVERTERS_VERSION,
    create: () => new AvroConverter(),
  },
  {
    className: PROTOBUF_CONVERTER,
    aliases: ['protobuf'],
    type: 'converter',
    version: CONVERTERS_VERSION,
    create: () => new ProtobufConverter(),
  },
  {
    className: JSON_SCHEMA_CONVERTER,
    // Explicit, so they stay Confluent's beside Glue's converter of the same simple name.
    aliases: ['json-schema', 'JsonSchemaConverter', 'JsonSchema'],
    type: 'converter',
    version: CONVERTERS_VERSION,
    create: () => new JsonSchemaConverter(),
  },
  {
    className: GLUE_AVRO_CONVERTER,
    aliases: ['glue-avro'],
    type: 'converter',
    version: CONVERTERS_VERSION,
    create: () => new GlueAvroConverter(),
  },
  {
    className: GLUE_PROTOBUF_CONVERTER,
    aliases: ['glue-protobuf'],
    type: 'converter',
    version: CONVERTERS_VERSION,
    create: () => new GlueProtobufConverter(),
  },
  {
    className: GLUE_JSON_SCHEMA_CONVERTER,
    aliases: ['glue-json-schema'],
    type: 'converter',
    version: CONVERTERS_VERSION,
    create: () => new GlueJsonSchemaConverter(),
  },
  ...PRIMITIVE_CONVERTERS.flatMap(([simpleName, create]): AnyPluginDescriptor[] =>
    (['converter', 'header_converter'] as const).map((type) => ({
      className: `${CONVERTERS_PACKAGE}.${simpleName}`,
      aliases: [],
      type,
      version: CONVERTERS_VERSION,
      create,
    })),
  ),
];
