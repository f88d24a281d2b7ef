/**
 * The AWS Glue Schema Registry library's JSON Schema converter for Kafka Connect,
 * `com.amazonaws.services.schemaregistry.kafkaconnect.jsonschema.JsonSchemaConverter`: Connect
 * data ↔ JSON on Glue's wire format, the JSON Schemas in a Glue registry (`DataFormat` JSON).
 * The registry, caches, framing and errors are every Glue converter's (`glue-converter.ts`);
 * this file is the JSON Schema format.
 *
 * The payload after Glue's 18-byte header is the value's JSON text in UTF-8, nothing else (the
 * library's `JsonSerializer` writes the data node with Jackson; no envelope, no schema), and is
 * validated against the schema before it is written, as the library's serializer does.
 *
 * Writing: the Connect schema is mapped to JSON Schema with Confluent's mapping (`JsonSchemaData`,
 * which Glue's converter forked), whose text is the definition registered; the value is written
 * as that mapping writes it. Reading: the definition is mapped to a Connect schema once per
 * version and the JSON read with it (validated too with `json.fail.invalid.schema`). Where this
 * differs from Glue's own mapping is in the README.
 *
 * @example
 * const converter = new GlueJsonSchemaConverter();
 * converter.configure({ region: 'eu-west-1', 'registry.name': 'orders', schemaAutoRegistrationEnabled: 'true' }, false);
 * const bytes = await converter.fromConnectData('orders', headers, schema, struct);
 */
import {
  type ConfigDef,
  DataError,
  NULL_SCHEMA_AND_VALUE,
  Range,
} from 'serverless-connect/connect';
import { newConverterConfigDef, withConverterType } from '../converter-config.js';
import { jsonSchemaOf } from '../json-schema/from-connect-schema.js';
import {
  DECIMAL_FORMAT_CONFIG,
  FAIL_INVALID_SCHEMA_CONFIG,
  JSON_SCHEMA_DATA_CONFIG_DEF,
  type JsonSchemaDataOptions,
  OBJECT_ADDITIONAL_PROPERTIES_CONFIG,
  USE_OPTIONAL_FOR_NON_REQUIRED_CONFIG,
} from '../json-schema/json-schema-converter-config.js';
import { JsonSchemaValidator } from '../json-schema/json-schema-validator.js';
import { writeJsonValue } from '../json-schema/json-schema-values.js';
import { jsonNodeText } from '../json-schema/json-tree.js';
import { readJsonValue } from '../json-schema/read-json-value.js';
import { connectSchemaOf } from '../json-schema/to-connect-schema.js';
import { parseJson, parseJsonText } from '../json-text.js';
import { utf8Bytes } from '../utf8.js';
import {
  type GlueConfigured,
  GlueConverter,
  type GlueFormat,
  type GlueWriter,
} from './glue-converter.js';
import { glueRegistryConfigDef, glueSettingsOf } from './glue-converter-config.js';
import type { GlueRegistryClients } from './glue-registry-client.js';

/** Glue's JSON Schema data cache (`JsonSchemaDataConfig`'s key). */
export const JSON_SCHEMAS_CACHE_CONFIG = 'schemas.cache.config';

/** Everything the Glue JSON Schema converter takes. */
export const GLUE_JSON_SCHEMA_CONVERTER_CONFIG_DEF: ConfigDef = newConverterConfigDef()
  .withAll(glueRegistryConfigDef('JSON'))
  .withAll(JSON_SCHEMA_DATA_CONFIG_DEF)
  .define({
    name: JSON_SCHEMAS_CACHE_CONFIG,
    type: 'INT',
    defaultValue: 1000,
    validator: Range.atLeast(0),
    importance: 'LOW',
    group: 'JSON Schema',
    documentation: 'The most Connect ↔ JSON Schema mappings (and compiled validators) cached.',
  });

/** What the JSON Schema format is made with. */
export interface GlueJsonSchemaOptions {
  readonly data: JsonSchemaDataOptions;
  /** `json.fail.invalid.schema`: validate what is read too (what is written always is). */
  readonly validateReads: boolean;
  readonly cacheSize: number;
}

function titleOf(root: unknown): string | null {
  const title = root instanceof Map ? root.get('title') : undefined;
  return typeof title === 'string' ? title : null;
}

/** The JSON Schema format of the Glue converters. */
export function glueJsonSchemaFormat(options: GlueJsonSchemaOptions): GlueFormat {
  const validator = new JsonSchemaValidator(options.cacheSize);
  const { data } = options;
  return {
    dataFormat: 'JSON',
    cacheSize: options.cacheSize,
    writerFor(schema): GlueWriter {
      const root = jsonSchemaOf(schema, data);
      const definition = jsonNodeText(root);
      return {
        definition,
        recordName: titleOf(root),
        encode(value) {
          const json = writeJsonValue(schema, value, data.decimalFormat) ?? 'null';
          validator.check(definition, json);
          return utf8Bytes(json);
        },
      };
    },
    readerFor(version) {
      const text = version.schemaDefinition;
      const root = parseJsonText(text);
      if (root === undefined) {
        throw new DataError(`Schema version ${version.schemaVersionId} is empty`);
      }
      const schema = connectSchemaOf(root, null, data);
      return {
        read(payload) {
          if (options.validateReads) validator.check(text, payload);
          const node = parseJson(payload).root;
          if (node === undefined) return NULL_SCHEMA_AND_VALUE;
          return { schema, value: readJsonValue(schema, node) };
        },
      };
    },
  };
}

/**
 * Converts between Connect data and JSON on the Glue Schema Registry's wire format (see the
 * module notes).
 */
export class GlueJsonSchemaConverter extends GlueConverter {
  /** @param clients the container's Glue clients (tests bring their own). */
  constructor(clients?: GlueRegistryClients) {
    super('Glue JSON Schema converter', clients);
  }

  config(): ConfigDef {
    return GLUE_JSON_SCHEMA_CONVERTER_CONFIG_DEF;
  }

  protected configured(props: Readonly<Record<string, string>>, isKey: boolean): GlueConfigured {
    const values = GLUE_JSON_SCHEMA_CONVERTER_CONFIG_DEF.parse(withConverterType(props, isKey));
    const format = glueJsonSchemaFormat({
      data: {
        decimalFormat: String(values[DECIMAL_FORMAT_CONFIG]).toUpperCase() as 'BASE64' | 'NUMERIC',
        allowAdditionalProperties: values[OBJECT_ADDITIONAL_PROPERTIES_CONFIG] as boolean,
        useOptionalForNonRequired: values[USE_OPTIONAL_FOR_NON_REQUIRED_CONFIG] as boolean,
      },
      validateReads: values[FAIL_INVALID_SCHEMA_CONFIG] as boolean,
      cacheSize: values[JSON_SCHEMAS_CACHE_CONFIG] as number,
    });
    return { settings: glueSettingsOf(values), format };
  }
}
