/**
 * The JsonSchemaConverter's configuration (Confluent's `JsonSchemaConverterConfig`: the schema
 * registry client's keys, the serializer's, the subject name strategies, `JsonSchemaDataConfig`
 * and the serializer's `json.fail.invalid.schema`), and its parsed form,
 * {@link JsonSchemaConverterSettings}. The registry, serializer and strategy keys are the shared
 * modules' (`../schema-registry/`), as the AvroConverter's are.
 */
import { ConfigDef, invalidValue, type Validator } from 'serverless-connect/connect';
import type { DecimalFormat } from '../json-encode.js';
import {
  parseRegistryConverterConfig,
  type RegistryConverterSettings,
  registryConverterConfigDef,
} from '../schema-registry/registry-converter-config.js';

export const DECIMAL_FORMAT_CONFIG = 'decimal.format';
export const OBJECT_ADDITIONAL_PROPERTIES_CONFIG = 'object.additional.properties';
export const USE_OPTIONAL_FOR_NON_REQUIRED_CONFIG = 'use.optional.for.nonrequired';
export const FAIL_INVALID_SCHEMA_CONFIG = 'json.fail.invalid.schema';

const GROUP = 'JSON Schema';

const DECIMAL_FORMATS: readonly DecimalFormat[] = ['BASE64', 'NUMERIC'];

/** Confluent's `CaseInsensitiveValidString.in("BASE64", "NUMERIC")`. */
const DECIMAL_FORMAT_VALIDATOR: Validator = {
  ensureValid(name: string, value: unknown): void {
    if (
      typeof value !== 'string' ||
      !DECIMAL_FORMATS.includes(value.toUpperCase() as DecimalFormat)
    ) {
      throw invalidValue(
        name,
        value,
        `String must be one of (case insensitive): ${DECIMAL_FORMATS.join(', ')}`,
      );
    }
  },
  toString: () => `(case insensitive) [${DECIMAL_FORMATS.join(', ')}]`,
};

/** How Connect schemas map to JSON Schema and back (Confluent's `JsonSchemaDataConfig` keys). */
export interface JsonSchemaDataOptions {
  /** `decimal.format`: Decimal values as base64 of the unscaled bytes (a string) or a number. */
  readonly decimalFormat: DecimalFormat;
  /** `object.additional.properties`: false writes `"additionalProperties": false` on structs. */
  readonly allowAdditionalProperties: boolean;
  /** `use.optional.for.nonrequired`: properties a registered schema does not require are optional. */
  readonly useOptionalForNonRequired: boolean;
}

/** Confluent's `JsonSchemaDataConfig` keys this converter knows, and `json.fail.invalid.schema`. */
export const JSON_SCHEMA_DATA_CONFIG_DEF: ConfigDef = new ConfigDef()
  .define({
    name: DECIMAL_FORMAT_CONFIG,
    type: 'STRING',
    defaultValue: 'BASE64',
    validator: DECIMAL_FORMAT_VALIDATOR,
    importance: 'LOW',
    group: GROUP,
    documentation:
      'Controls which format this converter will serialize decimals in. This value is case ' +
      "insensitive and can be either 'BASE64' (default) or 'NUMERIC'",
  })
  .define({
    name: OBJECT_ADDITIONAL_PROPERTIES_CONFIG,
    type: 'BOOLEAN',
    defaultValue: true,
    importance: 'MEDIUM',
    group: GROUP,
    documentation: 'Whether to allow additional properties for object schemas.',
  })
  .define({
    name: USE_OPTIONAL_FOR_NON_REQUIRED_CONFIG,
    type: 'BOOLEAN',
    defaultValue: false,
    importance: 'MEDIUM',
    group: GROUP,
    documentation: 'Whether to set non-required properties to be optional.',
  })
  .define({
    name: FAIL_INVALID_SCHEMA_CONFIG,
    type: 'BOOLEAN',
    defaultValue: false,
    importance: 'MEDIUM',
    group: GROUP,
    documentation:
      'Whether to fail serialization and deserialization if the payload does not match the schema.',
  });

/** Everything the JsonSchemaConverter takes: `converter.type`, the registry, serializer and JSON Schema keys. */
export const JSON_SCHEMA_CONVERTER_CONFIG_DEF: ConfigDef = registryConverterConfigDef(
  JSON_SCHEMA_DATA_CONFIG_DEF,
);

/** The parsed configuration of one JsonSchemaConverter (`cacheSize` also bounds its caches). */
export interface JsonSchemaConverterSettings extends RegistryConverterSettings {
  readonly data: JsonSchemaDataOptions;
  /** `json.fail.invalid.schema`: validate each payload against its schema, both ways. */
  readonly validate: boolean;
}

/**
 * Parses a JsonSchemaConverter config for keys (`isKey`) or values.
 * @throws ConfigError naming the offending key (a URL's credentials never appear in it).
 */
export function parseJsonSchemaConverterSettings(
  props: Readonly<Record<string, string>>,
  isKey: boolean,
): JsonSchemaConverterSettings {
  const { settings, values } = parseRegistryConverterConfig(
    JSON_SCHEMA_CONVERTER_CONFIG_DEF,
    props,
    isKey,
  );
  return {
    ...settings,
    data: {
      decimalFormat: String(values[DECIMAL_FORMAT_CONFIG]).toUpperCase() as DecimalFormat,
      allowAdditionalProperties: values[OBJECT_ADDITIONAL_PROPERTIES_CONFIG] as boolean,
      useOptionalForNonRequired: values[USE_OPTIONAL_FOR_NON_REQUIRED_CONFIG] as boolean,
    },
    validate: values[FAIL_INVALID_SCHEMA_CONFIG] as boolean,
  };
}
