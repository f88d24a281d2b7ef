/**
 * The built-in transformations, registered under Apache Kafka Connect's class names
 * (`org.apache.kafka.connect.transforms.InsertField$Value`, ...). The registry adds the simple
 * names (`InsertField$Value`, `RegexRouter`) as aliases.
 *
 * @example
 * const registry = new PluginRegistry();
 * for (const d of transformDescriptors) registry.register(d);
 */
import type {
  AnyPluginDescriptor,
  ConnectRecord,
  PluginDescriptor,
  Transformation,
} from 'serverless-connect/connect';
import { CastKey, CastValue } from './cast.js';
import { DropHeaders } from './drop-headers.js';
import { ExtractFieldKey, ExtractFieldValue } from './extract-field.js';
import { Filter } from './filter.js';
import { FlattenKey, FlattenValue } from './flatten.js';
import { HeaderFromKey, HeaderFromValue } from './header-from.js';
import { HoistFieldKey, HoistFieldValue } from './hoist-field.js';
import { InsertFieldKey, InsertFieldValue } from './insert-field.js';
import { InsertHeader } from './insert-header.js';
import { MaskFieldKey, MaskFieldValue } from './mask-field.js';
import { RegexRouter } from './regex-router.js';
import { ReplaceFieldKey, ReplaceFieldValue } from './replace-field.js';
import { SetSchemaMetadataKey, SetSchemaMetadataValue } from './set-schema-metadata.js';
import { TimestampConverterKey, TimestampConverterValue } from './timestamp-converter.js';
import { TimestampRouter } from './timestamp-router.js';
import { ValueToKey } from './value-to-key.js';

/** The version reported for every built-in transformation and predicate. */
export const BUILTIN_PLUGIN_VERSION = '0.1.0';

const PACKAGE = 'org.apache.kafka.connect.transforms';

type TransformationClass = new <R extends ConnectRecord>() => Transformation<R>;

function descriptor(
  simpleName: string,
  Class: TransformationClass,
): PluginDescriptor<'transformation'> {
  return Object.freeze({
    className: `${PACKAGE}.${simpleName}`,
    aliases: [],
    type: 'transformation',
    version: BUILTIN_PLUGIN_VERSION,
    create: <R extends ConnectRecord>() => new Class<R>(),
  });
}

/** Every built-in transformation, one descriptor per Connect class name. */
export const transformDescriptors: AnyPluginDescriptor[] = [
  descriptor('Cast$Key', CastKey),
  descriptor('Cast$Value', CastValue),
  descriptor('DropHeaders', DropHeaders),
  descriptor('ExtractField$Key', ExtractFieldKey),
  descriptor('ExtractField$Value', ExtractFieldValue),
  descriptor('Filter', Filter),
  descriptor('Flatten$Key', FlattenKey),
  descriptor('Flatten$Value', FlattenValue),
  descriptor('HeaderFrom$Key', HeaderFromKey),
  descriptor('HeaderFrom$Value', HeaderFromValue),
  descriptor('HoistField$Key', HoistFieldKey),
  descriptor('HoistField$Value', HoistFieldValue),
  descriptor('InsertField$Key', InsertFieldKey),
  descriptor('InsertField$Value', InsertFieldValue),
  descriptor('InsertHeader', InsertHeader),
  descriptor('MaskField$Key', MaskFieldKey),
  descriptor('MaskField$Value', MaskFieldValue),
  descriptor('RegexRouter', RegexRouter),
  descriptor('ReplaceField$Key', ReplaceFieldKey),
  descriptor('ReplaceField$Value', ReplaceFieldValue),
  descriptor('SetSchemaMetadata$Key', SetSchemaMetadataKey),
  descriptor('SetSchemaMetadata$Value', SetSchemaMetadataValue),
  descriptor('TimestampConverter$Key', TimestampConverterKey),
  descriptor('TimestampConverter$Value', TimestampConverterValue),
  descriptor('TimestampRouter', TimestampRouter),
  descriptor('ValueToKey', ValueToKey),
];
