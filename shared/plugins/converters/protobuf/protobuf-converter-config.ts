/**
 * The ProtobufConverter's keys (Confluent's `ProtobufConverterConfig`): `converter.type`, the
 * registry client's, the subject name strategies, the serializer's and the mapping's
 * (`ProtobufDataConfig`).
 */
import { ConfigDef, invalidValue } from 'serverless-connect/connect';
import {
  parseRegistryConverterConfig,
  type RegistryConverterSettings,
  registryConverterConfigDef,
} from '../schema-registry/registry-converter-config.js';
import type { ProtobufDataSettings } from './protobuf-data.js';
import {
  DEFAULT_PROTOBUF_DATA_OPTIONS,
  type ProtobufDataOptions,
} from './protobuf-data-options.js';

const GROUP = 'Protobuf';

/** Each mapping key, its option and its documentation (defaults as Confluent's). */
const DATA_KEYS: readonly (readonly [string, keyof ProtobufDataOptions, string])[] = [
  [
    'enhanced.protobuf.schema.support',
    'enhancedSchemaSupport',
    'Enable enhanced schema support to preserve package information: full names for structs, enums, maps and unions.',
  ],
  [
    'scrub.invalid.names',
    'scrubInvalidNames',
    'Whether to scrub invalid names by replacing invalid characters with valid ones.',
  ],
  ['int.for.enums', 'intForEnums', 'Whether to represent enums as integers.'],
  [
    'optional.for.nullables',
    'optionalForNullables',
    'Whether nullable fields should be specified with an optional label.',
  ],
  ['optional.for.proto2', 'optionalForProto2', 'Whether proto2 optionals are supported.'],
  [
    'wrapper.for.nullables',
    'wrapperForNullables',
    'Whether nullable fields should use primitive wrapper messages.',
  ],
  [
    'wrapper.for.raw.primitives',
    'wrapperForRawPrimitives',
    'Whether a wrapper message should be interpreted as a raw primitive at the root level.',
  ],
  [
    'generate.index.for.unions',
    'generateIndexForUnions',
    'Whether to suffix union names with an underscore and index.',
  ],
  ['flatten.unions', 'flattenUnions', 'Whether to flatten unions (oneofs).'],
];

/** Confluent's mapping keys that this port does not implement, refused when set to true. */
const UNSUPPORTED_TRUE = ['generalized.sum.type.support', 'generate.struct.for.nulls'];

function dataConfigDef(): ConfigDef {
  const def = new ConfigDef();
  for (const [name, option, documentation] of DATA_KEYS) {
    def.define({
      name,
      type: 'BOOLEAN',
      defaultValue: DEFAULT_PROTOBUF_DATA_OPTIONS[option],
      importance: 'LOW',
      group: GROUP,
      documentation,
    });
  }
  for (const name of UNSUPPORTED_TRUE) {
    def.define({
      name,
      type: 'BOOLEAN',
      defaultValue: false,
      importance: 'LOW',
      group: GROUP,
      documentation: 'Not supported: only false is accepted.',
    });
  }
  return def;
}

/** Every key of the ProtobufConverter. */
export const PROTOBUF_CONVERTER_CONFIG_DEF: ConfigDef = registryConverterConfigDef(dataConfigDef());

/** The parsed configuration of one ProtobufConverter. */
export interface ProtobufConverterSettings extends RegistryConverterSettings {
  readonly data: ProtobufDataSettings;
}

/**
 * Parses a ProtobufConverter config for keys (`isKey`) or values.
 * @throws ConfigError naming the offending key, or a key of Confluent's this port refuses.
 */
export function parseProtobufConverterSettings(
  props: Readonly<Record<string, string>>,
  isKey: boolean,
): ProtobufConverterSettings {
  const { settings, values } = parseRegistryConverterConfig(
    PROTOBUF_CONVERTER_CONFIG_DEF,
    props,
    isKey,
  );
  for (const name of UNSUPPORTED_TRUE) {
    if (values[name] === true) {
      throw invalidValue(name, true, 'not supported by this converter');
    }
  }
  const options: Record<string, unknown> = {};
  for (const [name, option] of DATA_KEYS) options[option] = values[name] === true;
  return {
    ...settings,
    data: { ...(options as unknown as ProtobufDataOptions), cacheSize: settings.cacheSize },
  };
}
