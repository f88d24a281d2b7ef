/**
 * The configuration every Confluent registry converter shares: `converter.type`, the registry
 * client's keys (`registry-config.ts`), the serializer's (`serializer-config.ts`) and the subject
 * name strategies (`subject-strategy.ts`), and their parsed form. A converter adds its format's
 * own keys (`AvroDataConfig`, `ProtobufDataConfig`, `JsonSchemaDataConfig`).
 *
 * @example
 * export const AVRO_CONVERTER_CONFIG_DEF = registryConverterConfigDef(AVRO_DATA_CONFIG_DEF);
 * const { settings, values } = parseRegistryConverterConfig(AVRO_CONVERTER_CONFIG_DEF, props, isKey);
 */
import type { ConfigDef } from 'serverless-connect/connect';
import {
  type ConverterType,
  newConverterConfigDef,
  withConverterType,
} from '../converter-config.js';
import {
  SCHEMA_REGISTRY_CONFIG_DEF,
  SCHEMAS_CACHE_SIZE_CONFIG,
  type SchemaRegistrySettings,
  schemaRegistrySettingsOf,
} from './registry-config.js';
import type { RegistrySerdeSettings } from './registry-serde.js';
import { SERIALIZER_CONFIG_DEF, serializerSettingsOf } from './serializer-config.js';
import { SUBJECT_NAME_STRATEGY_CONFIG_DEF, subjectNameStrategyOf } from './subject-strategy.js';

/** A registry converter's ConfigDef: the shared keys, then the format's `formatKeys`. */
export function registryConverterConfigDef(formatKeys: ConfigDef): ConfigDef {
  return newConverterConfigDef()
    .withAll(SCHEMA_REGISTRY_CONFIG_DEF)
    .withAll(SERIALIZER_CONFIG_DEF)
    .withAll(SUBJECT_NAME_STRATEGY_CONFIG_DEF)
    .withAll(formatKeys);
}

/** The parsed shared keys of one registry converter. */
export interface RegistryConverterSettings extends RegistrySerdeSettings {
  readonly converterType: ConverterType;
  readonly registry: SchemaRegistrySettings;
}

/**
 * Parses `props` with `def` (made by {@link registryConverterConfigDef}) for keys (`isKey`) or
 * values: the shared settings, and the parsed values for the format's own keys.
 * @throws ConfigError naming the offending key (never a credential).
 */
export function parseRegistryConverterConfig(
  def: ConfigDef,
  props: Readonly<Record<string, string>>,
  isKey: boolean,
): { readonly settings: RegistryConverterSettings; readonly values: Record<string, unknown> } {
  const values = def.parse(withConverterType(props, isKey));
  return {
    settings: {
      converterType: values['converter.type'] as ConverterType,
      isKey,
      registry: schemaRegistrySettingsOf(values, props),
      serializer: serializerSettingsOf(values),
      subjectNameStrategy: subjectNameStrategyOf(values, isKey),
      cacheSize: values[SCHEMAS_CACHE_SIZE_CONFIG] as number,
    },
    values,
  };
}
