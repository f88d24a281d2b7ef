/**
 * The Glue Avro converter's configuration: the keys of every Glue converter
 * (`glue-converter-config.ts`) with `dataFormat=AVRO`, the library's `avroRecordType`, the
 * AvroData keys (`AVRO_DATA_CONFIG_DEF`, and Glue's `schemas.cache.config`). Parsed into
 * {@link GlueAvroSettings}.
 */
import { type ConfigDef, Range, ValidString } from 'serverless-connect/connect';
import {
  AVRO_DATA_CONFIG_DEF,
  CONNECT_META_DATA_CONFIG,
  ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG,
  SCRUB_INVALID_NAMES_CONFIG,
} from '../avro/avro-converter-config.js';
import type { AvroDataOptions } from '../avro/avro-data-options.js';
import { newConverterConfigDef, withConverterType } from '../converter-config.js';
import {
  type GlueSettings,
  glueRegistryConfigDef,
  glueSettingsOf,
} from './glue-converter-config.js';

export const AVRO_RECORD_TYPE_CONFIG = 'avroRecordType';
/** Glue's AvroData cache (Confluent's old key name, which Glue's fork kept). */
export const SCHEMAS_CACHE_CONFIG = 'schemas.cache.config';

/** Everything the Glue Avro converter takes. */
export const GLUE_AVRO_CONVERTER_CONFIG_DEF: ConfigDef = newConverterConfigDef()
  .withAll(glueRegistryConfigDef('AVRO'))
  .define({
    name: AVRO_RECORD_TYPE_CONFIG,
    type: 'STRING',
    defaultValue: 'GENERIC_RECORD',
    validator: ValidString.in('GENERIC_RECORD'),
    importance: 'LOW',
    group: 'Serialization',
    documentation:
      'GENERIC_RECORD (any schema). SPECIFIC_RECORD needs generated Java classes and is refused.',
  })
  .withAll(AVRO_DATA_CONFIG_DEF)
  .define({
    name: SCHEMAS_CACHE_CONFIG,
    type: 'INT',
    defaultValue: 1000,
    validator: Range.atLeast(0),
    importance: 'LOW',
    group: 'Avro',
    documentation: 'The most Connect ↔ Avro schema mappings cached (each way).',
  });

/** The parsed configuration of one Glue Avro converter. */
export interface GlueAvroSettings extends GlueSettings {
  readonly avroData: AvroDataOptions;
  /** `schemas.cache.config`: the Connect ↔ Avro schema caches. */
  readonly avroCacheSize: number;
}

/**
 * Parses a Glue Avro converter config for keys (`isKey`) or values.
 * @throws ConfigError naming the offending key.
 */
export function parseGlueAvroSettings(
  props: Readonly<Record<string, string>>,
  isKey: boolean,
): GlueAvroSettings {
  const values = GLUE_AVRO_CONVERTER_CONFIG_DEF.parse(withConverterType(props, isKey));
  return {
    ...glueSettingsOf(values),
    avroData: {
      connectMetaData: values[CONNECT_META_DATA_CONFIG] as boolean,
      enhancedSchemaSupport: values[ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG] as boolean,
      scrubInvalidNames: values[SCRUB_INVALID_NAMES_CONFIG] as boolean,
    },
    avroCacheSize: values[SCHEMAS_CACHE_CONFIG] as number,
  };
}
