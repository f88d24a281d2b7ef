/**
 * The built-in predicates, registered under Apache Kafka Connect's class names
 * (`org.apache.kafka.connect.transforms.predicates.TopicNameMatches`, ...); the registry adds
 * the simple names as aliases.
 */
import type {
  AnyPluginDescriptor,
  ConnectRecord,
  PluginDescriptor,
  Predicate,
} from 'serverless-connect/connect';
import { BUILTIN_PLUGIN_VERSION } from '../transforms/descriptors.js';
import { HasHeaderKey } from './has-header-key.js';
import { RecordIsTombstone } from './record-is-tombstone.js';
import { TopicNameMatches } from './topic-name-matches.js';

const PACKAGE = 'org.apache.kafka.connect.transforms.predicates';

type PredicateClass = new <R extends ConnectRecord>() => Predicate<R>;

function descriptor(simpleName: string, Class: PredicateClass): PluginDescriptor<'predicate'> {
  return Object.freeze({
    className: `${PACKAGE}.${simpleName}`,
    aliases: [],
    type: 'predicate',
    version: BUILTIN_PLUGIN_VERSION,
    create: <R extends ConnectRecord>() => new Class<R>(),
  });
}

/** Every built-in predicate. */
export const predicateDescriptors: AnyPluginDescriptor[] = [
  descriptor('HasHeaderKey', HasHeaderKey),
  descriptor('RecordIsTombstone', RecordIsTombstone),
  descriptor('TopicNameMatches', TopicNameMatches),
];
