/**
 * The AWS Glue Schema Registry library's Protobuf converter for Kafka Connect,
 * `com.amazonaws.services.schemaregistry.kafkaconnect.protobuf.ProtobufSchemaConverter`: Connect
 * data ↔ Protobuf on Glue's wire format, the schemas in a Glue registry (`DataFormat`
 * PROTOBUF). The registry, caches, framing and errors are every Glue converter's
 * (`glue-converter.ts`); this file is the Protobuf format.
 *
 * The payload after Glue's 18-byte header is, as the library's `ProtobufWireFormatEncoder`
 * writes it, the message's index as one unsigned varint (`writeUInt32NoTag`), then the message.
 * The index is the message's position among all the messages of the .proto file, nested ones
 * and map entries included, sorted by full name (`MessageIndexFinder`): unlike Confluent's
 * message-index array, one number.
 *
 * Writing: Connect structs, mapped to a proto3 file with Confluent's mapping (`ProtobufData`,
 * as the ProtobufConverter maps them), whose text is the definition registered; the message is
 * the struct's. Reading: the definition is parsed once per version, the index names the message,
 * which is mapped to Connect with Confluent's mapping. Where this differs from Glue's own
 * mapping is in the README.
 *
 * @example
 * const converter = new GlueProtobufConverter();
 * converter.configure({ region: 'eu-west-1', 'registry.name': 'orders', schemaAutoRegistrationEnabled: 'true' }, false);
 * const bytes = await converter.fromConnectData('orders', headers, schema, struct);
 */
import protobuf from 'protobufjs';
import { type ConfigDef, DataError, ValidString } from 'serverless-connect/connect';
import { newConverterConfigDef, withConverterType } from '../converter-config.js';
import { type ParsedProto, parseProto } from '../protobuf/proto-root.js';
import { ProtobufData } from '../protobuf/protobuf-data.js';
import { DEFAULT_PROTOBUF_DATA_OPTIONS } from '../protobuf/protobuf-data-options.js';
import {
  type GlueConfigured,
  GlueConverter,
  type GlueFormat,
  type GlueWriter,
} from './glue-converter.js';
import { glueRegistryConfigDef, glueSettingsOf } from './glue-converter-config.js';
import type { GlueRegistryClients } from './glue-registry-client.js';

export const PROTOBUF_MESSAGE_TYPE_CONFIG = 'protobufMessageType';

/** Everything the Glue Protobuf converter takes. */
export const GLUE_PROTOBUF_CONVERTER_CONFIG_DEF: ConfigDef = newConverterConfigDef()
  .withAll(glueRegistryConfigDef('PROTOBUF'))
  .define({
    name: PROTOBUF_MESSAGE_TYPE_CONFIG,
    type: 'STRING',
    defaultValue: 'DYNAMIC_MESSAGE',
    validator: ValidString.in('DYNAMIC_MESSAGE'),
    importance: 'LOW',
    group: 'Serialization',
    documentation:
      'DYNAMIC_MESSAGE (any schema). POJO needs generated Java classes and is refused.',
  });

/**
 * The full name Glue's Java library gives message `name` of `parsed`: the entry message of a
 * `map<K, V>` field is capitalized (`FileDescriptorUtils`), which protobufjs leaves as written.
 */
function javaName(parsed: ParsedProto, name: string): string {
  if (!parsed.mapEntries.has(name)) return name;
  const dot = name.lastIndexOf('.') + 1;
  return `${name.slice(0, dot)}${name.charAt(dot).toUpperCase()}${name.slice(dot + 1)}`;
}

/**
 * The messages of `parsed` in the order of their Glue message indexes: all of them, sorted by
 * full name (Java's `String` order: UTF-16 code units, as `<` compares).
 */
export function glueMessageOrder(parsed: ParsedProto): readonly string[] {
  const keyed = parsed.allMessages.map((name) => [javaName(parsed, name), name] as const);
  keyed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return keyed.map(([, name]) => name);
}

/** The Protobuf format of the Glue converters. */
export function glueProtobufFormat(cacheSize: number): GlueFormat {
  const data = new ProtobufData({ ...DEFAULT_PROTOBUF_DATA_OPTIONS, cacheSize });
  return {
    dataFormat: 'PROTOBUF',
    cacheSize,
    writerFor(schema): GlueWriter {
      if (schema.type !== 'struct') {
        throw new DataError(
          `Unsupported type passed for serialization: the Glue Protobuf converter writes Connect structs (Protobuf messages), not ${schema.type}`,
        );
      }
      const writer = data.forConnectSchema(schema);
      const index = glueMessageOrder(parseProto(writer.schemaText, new Map())).indexOf(
        writer.messageName,
      );
      const prefix = protobuf.Writer.create().uint32(index).finish();
      return {
        definition: writer.schemaText,
        recordName: writer.messageName,
        encode(value) {
          const message = writer.encode(value);
          const out = new Uint8Array(prefix.length + message.length);
          out.set(prefix);
          out.set(message, prefix.length);
          return out;
        },
      };
    },
    readerFor(version) {
      const id = version.schemaVersionId;
      const parsed = data.parse(id, version.schemaDefinition, new Map());
      const order = glueMessageOrder(parsed);
      return {
        read(payload) {
          const reader = protobuf.Reader.create(payload);
          let index: number;
          try {
            index = reader.uint32();
          } catch (error) {
            throw new DataError('No message index before the Protobuf message', { cause: error });
          }
          const name = order[index];
          if (name === undefined) {
            throw new DataError(`No corresponding descriptor found for the index: ${index}`);
          }
          const message = data.reader(id, parsed, name, null);
          return {
            schema: message.connectSchema,
            value: message.decode(payload.subarray(reader.pos)),
          };
        },
      };
    },
  };
}

/**
 * Converts between Connect data and Protobuf on the Glue Schema Registry's wire format (see the
 * module notes).
 */
export class GlueProtobufConverter extends GlueConverter {
  /** @param clients the container's Glue clients (tests bring their own). */
  constructor(clients?: GlueRegistryClients) {
    super('Glue Protobuf converter', clients);
  }

  config(): ConfigDef {
    return GLUE_PROTOBUF_CONVERTER_CONFIG_DEF;
  }

  protected configured(props: Readonly<Record<string, string>>, isKey: boolean): GlueConfigured {
    const values = GLUE_PROTOBUF_CONVERTER_CONFIG_DEF.parse(withConverterType(props, isKey));
    const settings = glueSettingsOf(values);
    return { settings, format: glueProtobufFormat(settings.registry.cacheSize) };
  }
}
