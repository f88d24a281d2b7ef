/**
 * The AWS Glue Schema Registry library's Avro converter for Kafka Connect,
 * `com.amazonaws.services.schemaregistry.kafkaconnect.AWSKafkaAvroConverter`: Connect data ↔
 * Avro binary on Glue's wire format, the schemas in a Glue registry (`DataFormat` AVRO). The
 * registry, caches, framing and errors are every Glue converter's (`glue-converter.ts`); this
 * file is the Avro format.
 *
 * Writing: only Connect structs, as the library (its serializer takes Avro records, enums, fixed
 * and arrays, and its AvroData hands it records only for structs: anything else fails with
 * "Unsupported type passed for serialization"). The struct's schema is mapped to Avro (`AvroData`,
 * as the AvroConverter maps it) without its optionality (the record's own schema is registered
 * and written, not a union with null). Reading: the value is decoded with the Connect schema of
 * the version's definition (no registry version in it: Glue's converter sets none).
 *
 * @example
 * const converter = new GlueAvroConverter();
 * converter.configure({ region: 'eu-west-1', 'registry.name': 'orders', schemaAutoRegistrationEnabled: 'true' }, false);
 * const bytes = await converter.fromConnectData('orders', headers, schema, struct);
 */
import {
  type ConfigDef,
  DataError,
  type Schema,
  Struct,
  schemaEquals,
} from 'serverless-connect/connect';
import { type AvroCodec, AvroData } from '../avro/avro-codec.js';
import { copySchema } from '../avro/schema-copy.js';
import {
  GLUE_AVRO_CONVERTER_CONFIG_DEF,
  type GlueAvroSettings,
  parseGlueAvroSettings,
} from './glue-avro-converter-config.js';
import {
  type GlueConfigured,
  GlueConverter,
  type GlueFormat,
  type GlueWriter,
} from './glue-converter.js';
import type { GlueRegistryClients } from './glue-registry-client.js';

/** The Avro binary of `value` (of `schema`) as the record `codec` writes. */
function encoded(codec: AvroCodec, schema: Schema, value: unknown): Uint8Array {
  if (codec.connectSchema === schema) return codec.encode(value);
  // An optional schema: the value again as a struct of its required copy.
  if (!(value instanceof Struct)) return codec.encode(value);
  if (value.schema !== schema && !schemaEquals(value.schema, schema)) {
    throw new DataError('Mismatching struct schema');
  }
  const struct = new Struct(codec.connectSchema);
  for (const field of schema.fields) struct.put(field.name, value.get(field.name));
  return codec.encode(struct);
}

/** The Avro format of the Glue converters. */
export function glueAvroFormat(settings: GlueAvroSettings): GlueFormat {
  const avroData = new AvroData({ cacheSize: settings.avroCacheSize, ...settings.avroData });
  return {
    dataFormat: 'AVRO',
    cacheSize: settings.avroCacheSize,
    writerFor(schema): GlueWriter {
      // The library registers and writes the Avro record's own schema, never a union with null.
      const codec = avroData.forConnectSchema(
        schema.optional ? copySchema(schema, { optional: false }) : schema,
      );
      const recordName = codec.recordName;
      if (recordName === null) {
        throw new DataError(
          `Unsupported type passed for serialization: the Glue Avro converter writes Connect structs (Avro records), not ${schema.type}`,
        );
      }
      return {
        definition: codec.schemaText,
        recordName,
        encode: (value) => encoded(codec, schema, value),
      };
    },
    readerFor(version) {
      const codec = avroData.forAvroSchema(version.schemaDefinition);
      return { read: (payload) => ({ schema: codec.connectSchema, value: codec.decode(payload) }) };
    },
  };
}

/**
 * Converts between Connect data and Avro on the Glue Schema Registry's wire format (see the
 * module notes).
 */
export class GlueAvroConverter extends GlueConverter {
  /** @param clients the container's Glue clients (tests bring their own). */
  constructor(clients?: GlueRegistryClients) {
    super('Glue Avro converter', clients);
  }

  config(): ConfigDef {
    return GLUE_AVRO_CONVERTER_CONFIG_DEF;
  }

  protected configured(props: Readonly<Record<string, string>>, isKey: boolean): GlueConfigured {
    const settings = parseGlueAvroSettings(props, isKey);
    return { settings, format: glueAvroFormat(settings) };
  }
}
