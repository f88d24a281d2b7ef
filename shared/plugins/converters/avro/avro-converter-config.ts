/**
 * The AvroConverter's configuration (Confluent's `AvroConverterConfig`: the schema registry
 * client's keys, the serializer's, the subject name strategies, and `AvroDataConfig`), and its
 * parsed form, {@link AvroConverterSettings}.
 */
import { ConfigDef, invalidValue, type Validator } from 'serverless-connect/connect';
import {
  parseRegistryConverterConfig,
  type RegistryConverterSettings,
  registryConverterConfigDef,
} from '../schema-registry/registry-converter-config.js';
import type { AvroDataOptions } from './avro-data-options.js';

export const CONNECT_META_DATA_CONFIG = 'connect.meta.data';
export const ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG = 'enhanced.avro.schema.support';
export const SCRUB_INVALID_NAMES_CONFIG = 'scrub.invalid.names';

const GROUP = 'Avro';

/**
 * A boolean key of Confluent's `AvroDataConfig` this port knows only at its default: any other
 * value is refused rather than ignored.
 */
function onlyDefault(name: string, defaultValue: boolean, documentation: string) {
  const validator: Validator = {
    ensureValid(key: string, value: unknown): void {
      if (value !== defaultValue) {
        throw invalidValue(key, value, `only ${defaultValue} is supported`);
      }
    },
    toString: () => `[${defaultValue}]`,
  };
  return {
    name,
    type: 'BOOLEAN' as const,
    defaultValue,
    validator,
    importance: 'LOW' as const,
    group: GROUP,
    documentation: `${documentation} Only ${defaultValue} (Confluent's default) is supported.`,
  };
}

/** Confluent's `AvroDataConfig` keys: how Connect schemas map to Avro and back. */
export const AVRO_DATA_CONFIG_DEF: ConfigDef = new ConfigDef()
  .define({
    name: CONNECT_META_DATA_CONFIG,
    type: 'BOOLEAN',
    defaultValue: true,
    importance: 'LOW',
    group: GROUP,
    documentation:
      'Toggle for enabling/disabling connect converter to add its meta data to the output schema or not',
  })
  .define({
    name: ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG,
    type: 'BOOLEAN',
    defaultValue: false,
    importance: 'LOW',
    group: GROUP,
    documentation:
      'Toggle for enabling/disabling enhanced avro schema support: Enum symbol preservation and Package Name awareness',
  })
  .define({
    name: SCRUB_INVALID_NAMES_CONFIG,
    type: 'BOOLEAN',
    defaultValue: false,
    importance: 'LOW',
    group: GROUP,
    documentation: 'Whether to scrub invalid names by replacing invalid characters with valid ones',
  })
  .define(
    onlyDefault(
      'allow.optional.map.keys',
      false,
      'Allow optional string map key when converting from Connect Schema to Avro Schema.',
    ),
  )
  .define(
    onlyDefault(
      'flatten.singleton.unions',
      true,
      'Whether to flatten singleton unions. Should be set to true when using Avro 1.10 and later.',
    ),
  )
  .define(
    onlyDefault(
      'discard.type.doc.default',
      false,
      'Whether to discard the type doc and default when converting from Connect to Avro.',
    ),
  )
  .define(
    onlyDefault(
      'generalized.sum.type.support',
      false,
      'Toggle for enabling/disabling generalized sum type support: interoperability of enum/union with other schema formats.',
    ),
  )
  .define(
    onlyDefault(
      'ignore.default.for.nullables',
      false,
      'Whether to ignore the default for nullable fields when the value is null.',
    ),
  );

/** Everything the AvroConverter takes: `converter.type`, the registry, serializer and Avro keys. */
export const AVRO_CONVERTER_CONFIG_DEF: ConfigDef =
  registryConverterConfigDef(AVRO_DATA_CONFIG_DEF);

/** The parsed configuration of one AvroConverter (`cacheSize` also bounds the schema caches). */
export interface AvroConverterSettings extends RegistryConverterSettings {
  readonly avroData: AvroDataOptions;
}

/**
 * Parses an AvroConverter config for keys (`isKey`) or values.
 * @throws ConfigError naming the offending key (a URL's credentials never appear in it).
 */
export function parseAvroConverterSettings(
  props: Readonly<Record<string, string>>,
  isKey: boolean,
): AvroConverterSettings {
  const { settings, values } = parseRegistryConverterConfig(
    AVRO_CONVERTER_CONFIG_DEF,
    props,
    isKey,
  );
  return {
    ...settings,
    avroData: {
      connectMetaData: values[CONNECT_META_DATA_CONFIG] as boolean,
      enhancedSchemaSupport: values[ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG] as boolean,
      scrubInvalidNames: values[SCRUB_INVALID_NAMES_CONFIG] as boolean,
    },
  };
}
