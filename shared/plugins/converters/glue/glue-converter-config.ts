/**
 * The keys every Glue converter takes, as the AWS Glue Schema Registry library keys them
 * (`AWSSchemaRegistryConstants`, read by `GlueSchemaRegistryConfiguration`, with its defaults),
 * plus the explicit AWS credentials every AWS plugin here takes; parsed into {@link GlueSettings}.
 * Each converter adds its format's keys (`glue-avro-converter-config.ts`, ...).
 */
import {
  CaseInsensitiveValidString,
  ConfigDef,
  invalidValue,
  Range,
  type Validator,
} from 'serverless-connect/connect';
import {
  type AwsConnection,
  awsConnectionOf,
  awsCredentialsConfigDef,
} from '../../connectors/aws-connection-config.js';
import type { GlueCompression } from './glue-wire-format.js';

/** The library's data formats (`DataFormat`). */
export type GlueDataFormat = 'AVRO' | 'JSON' | 'PROTOBUF';

export const REGION_CONFIG = 'region';
export const ENDPOINT_CONFIG = 'endpoint';
export const REGISTRY_NAME_CONFIG = 'registry.name';
export const SCHEMA_NAME_CONFIG = 'schemaName';
export const SCHEMA_NAMING_CLASS_CONFIG = 'schemaNameGenerationClass';
export const AUTO_REGISTRATION_CONFIG = 'schemaAutoRegistrationEnabled';
export const COMPATIBILITY_CONFIG = 'compatibility';
export const DESCRIPTION_CONFIG = 'description';
export const COMPRESSION_CONFIG = 'compression';
export const DATA_FORMAT_CONFIG = 'dataFormat';
export const CACHE_SIZE_CONFIG = 'cacheSize';
export const TIME_TO_LIVE_CONFIG = 'timeToLiveMillis';
export const SECONDARY_DESERIALIZER_CONFIG = 'secondaryDeserializer';

export const DEFAULT_REGISTRY_NAME = 'default-registry';

const STRATEGY_PACKAGE = 'com.amazonaws.services.schemaregistry.common';
/** The library's schema naming strategies, by simple name. */
export type SchemaNamingStrategy =
  | 'AWSSchemaNamingStrategyDefaultImpl'
  | 'AWSSchemaNamingStrategyConnectNameImpl';
const STRATEGIES: readonly SchemaNamingStrategy[] = [
  'AWSSchemaNamingStrategyDefaultImpl',
  'AWSSchemaNamingStrategyConnectNameImpl',
];

export const COMPATIBILITIES = [
  'NONE',
  'DISABLED',
  'BACKWARD',
  'BACKWARD_ALL',
  'FORWARD',
  'FORWARD_ALL',
  'FULL',
  'FULL_ALL',
] as const;

const AWS = 'AWS';
const REGISTRY = 'Schema registry';
const SERIALIZATION = 'Serialization';
const CACHE = 'Cache';

function strategyOf(value: string): SchemaNamingStrategy | undefined {
  const simple = value.startsWith(`${STRATEGY_PACKAGE}.`)
    ? value.slice(STRATEGY_PACKAGE.length + 1)
    : value;
  return STRATEGIES.find((s) => s === simple);
}

const STRATEGY_VALIDATOR: Validator = {
  ensureValid(name, value) {
    if (value === null || (typeof value === 'string' && strategyOf(value) !== undefined)) return;
    throw invalidValue(
      name,
      value,
      `Unable to locate the naming strategy class: only ${STRATEGIES.map((s) => `${STRATEGY_PACKAGE}.${s}`).join(' and ')} exist here (no custom classes)`,
    );
  },
  toString: () => `[${STRATEGIES.join(', ')}]`,
};

/** A key the library reads that this port accepts only unset. */
function unsupported(why: string): Validator {
  return {
    ensureValid(name, value) {
      if (value !== null) throw invalidValue(name, value, why);
    },
    toString: () => '[unset]',
  };
}

/**
 * The Glue Schema Registry keys (`GlueSchemaRegistryConfiguration`'s, with its defaults) of a
 * converter of `dataFormat`: `dataFormat` defaults to it and accepts only it.
 */
export function glueRegistryConfigDef(dataFormat: GlueDataFormat): ConfigDef {
  return new ConfigDef()
    .define({
      name: REGION_CONFIG,
      type: 'STRING',
      defaultValue: null,
      importance: 'HIGH',
      group: AWS,
      documentation:
        "The AWS region of the Glue Schema Registry. Unset: the AWS SDK's default (AWS_REGION, which Lambda sets).",
    })
    .define({
      name: ENDPOINT_CONFIG,
      type: 'STRING',
      defaultValue: null,
      importance: 'LOW',
      group: AWS,
      documentation:
        'An endpoint override for the AWS Glue API (e.g. a VPC endpoint or a local stand-in). Unset: the regional endpoint.',
    })
    .withAll(awsCredentialsConfigDef(AWS, 'Glue-compatible servers'))
    .define({
      name: REGISTRY_NAME_CONFIG,
      type: 'STRING',
      defaultValue: DEFAULT_REGISTRY_NAME,
      importance: 'MEDIUM',
      group: REGISTRY,
      documentation: 'The name of the registry that holds the schemas (it must exist).',
    })
    .define({
      name: SCHEMA_NAME_CONFIG,
      type: 'STRING',
      defaultValue: null,
      importance: 'MEDIUM',
      group: REGISTRY,
      documentation:
        'The schema to write under. Unset: the schema naming strategy names it (by default, the topic).',
    })
    .define({
      name: SCHEMA_NAMING_CLASS_CONFIG,
      type: 'STRING',
      defaultValue: null,
      validator: STRATEGY_VALIDATOR,
      importance: 'LOW',
      group: REGISTRY,
      documentation:
        `How the schema is named when ${SCHEMA_NAME_CONFIG} is unset: ${STRATEGY_PACKAGE}.AWSSchemaNamingStrategyDefaultImpl ` +
        "(the default: the topic, for keys and values alike) or AWSSchemaNamingStrategyConnectNameImpl (the record's name: the Avro record's or Protobuf message's full name, the JSON Schema's title; the topic when there is none).",
    })
    .define({
      name: AUTO_REGISTRATION_CONFIG,
      type: 'BOOLEAN',
      defaultValue: false,
      importance: 'HIGH',
      group: REGISTRY,
      documentation:
        'Register a schema or schema version the registry does not have. When false, writing a record whose schema is not registered fails (a record error).',
    })
    .define({
      name: COMPATIBILITY_CONFIG,
      type: 'STRING',
      defaultValue: 'BACKWARD',
      validator: CaseInsensitiveValidString.in(...COMPATIBILITIES),
      importance: 'MEDIUM',
      group: REGISTRY,
      documentation: `The compatibility mode of a schema this converter creates (with ${AUTO_REGISTRATION_CONFIG}).`,
    })
    .define({
      name: DESCRIPTION_CONFIG,
      type: 'STRING',
      defaultValue: null,
      importance: 'LOW',
      group: REGISTRY,
      documentation:
        'The description of a schema this converter creates. Unset: DEFAULT-DESCRIPTION-<region>-<registry name>.',
    })
    .define({
      name: COMPRESSION_CONFIG,
      type: 'STRING',
      defaultValue: 'NONE',
      validator: CaseInsensitiveValidString.in('NONE', 'ZLIB'),
      importance: 'MEDIUM',
      group: SERIALIZATION,
      documentation:
        'ZLIB compresses the payload of each record written (the header says so; reading takes either).',
    })
    .define({
      name: DATA_FORMAT_CONFIG,
      type: 'STRING',
      defaultValue: dataFormat,
      validator: CaseInsensitiveValidString.in(dataFormat),
      importance: 'HIGH',
      group: SERIALIZATION,
      documentation: `The data format of the records: ${dataFormat} for this converter.`,
    })
    .define({
      name: SECONDARY_DESERIALIZER_CONFIG,
      type: 'STRING',
      defaultValue: null,
      validator: unsupported('no secondary deserializer can be loaded here'),
      importance: 'LOW',
      group: SERIALIZATION,
      documentation:
        'Not supported: bytes that are not on the Glue wire format are a record error.',
    })
    .define({
      name: CACHE_SIZE_CONFIG,
      type: 'INT',
      defaultValue: 200,
      validator: Range.atLeast(0),
      importance: 'LOW',
      group: CACHE,
      documentation:
        'The most entries each registry cache holds (schema definition to version id, version id to schema), per container.',
    })
    .define({
      name: TIME_TO_LIVE_CONFIG,
      type: 'LONG',
      defaultValue: 86_400_000,
      validator: Range.atLeast(1),
      importance: 'LOW',
      group: CACHE,
      documentation:
        'After this many milliseconds a cached entry is fetched again on its next use (kept when that fails).',
    });
}

/** The registry settings a container's Glue client is made from. */
export interface GlueRegistrySettings {
  readonly connection: AwsConnection;
  readonly registryName: string;
  readonly autoRegistration: boolean;
  readonly compatibility: (typeof COMPATIBILITIES)[number];
  readonly description: string | null;
  readonly cacheSize: number;
  readonly timeToLiveMs: number;
}

/** How the schema of a record is named. */
export type SchemaNaming =
  | { readonly kind: 'fixed'; readonly name: string }
  | { readonly kind: 'strategy'; readonly strategy: SchemaNamingStrategy };

/** What every Glue converter is configured with. */
export interface GlueSettings {
  readonly registry: GlueRegistrySettings;
  readonly naming: SchemaNaming;
  readonly compression: GlueCompression;
}

/** The {@link GlueSettings} of config `values` parsed with {@link glueRegistryConfigDef}'s keys. */
export function glueSettingsOf(values: Readonly<Record<string, unknown>>): GlueSettings {
  const schemaName = values[SCHEMA_NAME_CONFIG] as string | null;
  const strategyName = values[SCHEMA_NAMING_CLASS_CONFIG] as string | null;
  return {
    registry: {
      connection: awsConnectionOf(values, { region: REGION_CONFIG, endpoint: ENDPOINT_CONFIG }),
      registryName: values[REGISTRY_NAME_CONFIG] as string,
      autoRegistration: values[AUTO_REGISTRATION_CONFIG] as boolean,
      compatibility: (
        values[COMPATIBILITY_CONFIG] as string
      ).toUpperCase() as GlueRegistrySettings['compatibility'],
      description: values[DESCRIPTION_CONFIG] as string | null,
      cacheSize: values[CACHE_SIZE_CONFIG] as number,
      timeToLiveMs: Number(values[TIME_TO_LIVE_CONFIG]),
    },
    naming:
      schemaName !== null
        ? { kind: 'fixed', name: schemaName }
        : {
            kind: 'strategy',
            strategy:
              strategyName === null
                ? 'AWSSchemaNamingStrategyDefaultImpl'
                : (strategyOf(strategyName) as SchemaNamingStrategy),
          },
    compression: (values[COMPRESSION_CONFIG] as string).toUpperCase() as GlueCompression,
  };
}

/**
 * The schema name of a record written to `topic` (the library's `getSchemaName`): `schemaName`
 * when set; else the strategy's, which is the topic for the default (keys and values alike:
 * set `schemaName` on one side to keep them apart) and the record's name for the Connect-name
 * strategy (the Avro record's or Protobuf message's full name, the JSON Schema's title; the
 * topic when the schema has none).
 */
export function schemaNameFor(naming: SchemaNaming, topic: string, recordName: string | null) {
  if (naming.kind === 'fixed') return naming.name;
  return naming.strategy === 'AWSSchemaNamingStrategyConnectNameImpl' && recordName !== null
    ? recordName
    : topic;
}
