/**
 * The keys that decide which registered schema a converter writes with, named as Confluent's
 * `AbstractKafkaSchemaSerDeConfig` names them, shared by the schema-registry converters:
 *
 * | key | default | what |
 * |---|---|---|
 * | `auto.register.schemas` | true | register the record's schema under its subject (a new version when it is new) |
 * | `use.latest.version` | false | with auto-registration off: write with the subject's latest version |
 * | `latest.compatibility.strict` | true | with `use.latest.version`: refuse a latest version that is not backward compatible with the record's schema (it could not read it) |
 * | `normalize.schemas` | false | ask the registry to normalize schemas before registering or looking them up |
 *
 * With neither auto-registration nor `use.latest.version`, the record's schema must already be
 * registered under its subject: it is looked up.
 */
import { ConfigDef } from 'serverless-connect/connect';

export const AUTO_REGISTER_SCHEMAS_CONFIG = 'auto.register.schemas';
export const USE_LATEST_VERSION_CONFIG = 'use.latest.version';
export const LATEST_COMPATIBILITY_STRICT_CONFIG = 'latest.compatibility.strict';
export const NORMALIZE_SCHEMAS_CONFIG = 'normalize.schemas';

const GROUP = 'Schema Registry';

/** The four keys; a converter's ConfigDef adds them (`withAll`). */
export const SERIALIZER_CONFIG_DEF: ConfigDef = new ConfigDef()
  .define({
    name: AUTO_REGISTER_SCHEMAS_CONFIG,
    type: 'BOOLEAN',
    defaultValue: true,
    importance: 'MEDIUM',
    group: GROUP,
    documentation:
      'Specify if the converter should attempt to register the schema with the schema registry.',
  })
  .define({
    name: USE_LATEST_VERSION_CONFIG,
    type: 'BOOLEAN',
    defaultValue: false,
    importance: 'LOW',
    group: GROUP,
    documentation:
      'Use the latest version of the subject to write, rather than the record schema; only ' +
      'with auto.register.schemas=false.',
  })
  .define({
    name: LATEST_COMPATIBILITY_STRICT_CONFIG,
    type: 'BOOLEAN',
    defaultValue: true,
    importance: 'LOW',
    group: GROUP,
    documentation:
      'With use.latest.version: refuse the latest version unless it is backward compatible ' +
      "with the record schema (Avro and JSON Schema check it as Confluent's serializers do; " +
      'Protobuf asks the registry).',
  })
  .define({
    name: NORMALIZE_SCHEMAS_CONFIG,
    type: 'BOOLEAN',
    defaultValue: false,
    importance: 'LOW',
    group: GROUP,
    documentation: 'Whether to normalize schemas, when registering or looking them up.',
  });

/** Which schema a converter writes with. */
export type WriteSchemaMode = 'auto-register' | 'use-latest' | 'lookup';

/** The parsed serializer settings. */
export interface SerializerSettings {
  readonly mode: WriteSchemaMode;
  readonly latestCompatibilityStrict: boolean;
  readonly normalize: boolean;
}

/** The settings of config `values` parsed with {@link SERIALIZER_CONFIG_DEF}. */
export function serializerSettingsOf(
  values: Readonly<Record<string, unknown>>,
): SerializerSettings {
  const autoRegister = values[AUTO_REGISTER_SCHEMAS_CONFIG] !== false;
  const useLatest = values[USE_LATEST_VERSION_CONFIG] === true;
  return {
    mode: autoRegister ? 'auto-register' : useLatest ? 'use-latest' : 'lookup',
    latestCompatibilityStrict: values[LATEST_COMPATIBILITY_STRICT_CONFIG] !== false,
    normalize: values[NORMALIZE_SCHEMAS_CONFIG] === true,
  };
}
