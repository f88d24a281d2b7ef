/**
 * The framework keys every connector gets, as Connect's `ConnectorConfig`,
 * `SinkConnectorConfig`, `SourceConnectorConfig` and `TopicCreationConfig` (Kafka 3.9):
 * same names, types, defaults, documentation, groups and orders.
 *
 * Differences from Apache Kafka Connect, on purpose:
 * - `key.converter`, `value.converter` and `header.converter` default to
 *   {@link DEFAULT_CONVERTERS} (the JSON converter for keys and values, Connect's
 *   `SimpleHeaderConverter` for headers) instead of inheriting a worker config: there is no
 *   worker config.
 * - Source connectors also get the `errors.deadletterqueue.*` keys: records that fail in
 *   conversion or transformation under `errors.tolerance=all` can go to a DLQ topic.
 */
import { ConfigDef } from '../connect/config-def.js';
import {
  NonEmptyStringWithoutControlChars,
  Range,
  uniqueAliases,
  ValidString,
} from '../connect/config-validators.js';

/** Which framework keys apply. */
export type ConnectorKind = 'source' | 'sink';

/** Names of the framework keys. */
export const ConnectorConfigNames = {
  NAME: 'name',
  CONNECTOR_CLASS: 'connector.class',
  TASKS_MAX: 'tasks.max',
  TASKS_MAX_ENFORCE: 'tasks.max.enforce',
  KEY_CONVERTER: 'key.converter',
  VALUE_CONVERTER: 'value.converter',
  HEADER_CONVERTER: 'header.converter',
  TRANSFORMS: 'transforms',
  PREDICATES: 'predicates',
  CONFIG_ACTION_RELOAD: 'config.action.reload',
  ERRORS_RETRY_TIMEOUT: 'errors.retry.timeout',
  ERRORS_RETRY_MAX_DELAY: 'errors.retry.delay.max.ms',
  ERRORS_TOLERANCE: 'errors.tolerance',
  ERRORS_LOG_ENABLE: 'errors.log.enable',
  ERRORS_LOG_INCLUDE_MESSAGES: 'errors.log.include.messages',
  TOPICS: 'topics',
  TOPICS_REGEX: 'topics.regex',
  DLQ_TOPIC_NAME: 'errors.deadletterqueue.topic.name',
  DLQ_TOPIC_REPLICATION_FACTOR: 'errors.deadletterqueue.topic.replication.factor',
  DLQ_CONTEXT_HEADERS_ENABLE: 'errors.deadletterqueue.context.headers.enable',
  EXACTLY_ONCE_SUPPORT: 'exactly.once.support',
  TRANSACTION_BOUNDARY: 'transaction.boundary',
  TRANSACTION_BOUNDARY_INTERVAL: 'transaction.boundary.interval.ms',
  OFFSETS_STORAGE_TOPIC: 'offsets.storage.topic',
  TOPIC_CREATION_GROUPS: 'topic.creation.groups',
} as const;

/** Prefixes of the pass-through and per-alias keys. */
export const ConnectorConfigPrefixes = {
  TRANSFORMS: 'transforms.',
  PREDICATES: 'predicates.',
  TOPIC_CREATION: 'topic.creation.',
  TOPIC_CREATION_DEFAULT: 'topic.creation.default.',
  KEY_CONVERTER: 'key.converter.',
  VALUE_CONVERTER: 'value.converter.',
  HEADER_CONVERTER: 'header.converter.',
  PRODUCER_OVERRIDE: 'producer.override.',
  CONSUMER_OVERRIDE: 'consumer.override.',
  ADMIN_OVERRIDE: 'admin.override.',
} as const;

/** Group names, as Connect shows them in ConfigInfos. */
export const ConnectorConfigGroups = {
  COMMON: 'Common',
  TRANSFORMS: 'Transforms',
  PREDICATES: 'Predicates',
  ERROR: 'Error Handling',
  TOPIC_CREATION: 'Topic Creation',
  EXACTLY_ONCE_SUPPORT: 'Exactly Once Support',
  OFFSETS_TOPIC: 'offsets.topic',
} as const;

const JSON_CONVERTER = 'org.apache.kafka.connect.json.JsonConverter';

/** Converter classes used when a connector config names none (see the module notes). */
export const DEFAULT_CONVERTERS = {
  key: JSON_CONVERTER,
  value: JSON_CONVERTER,
  // Kafka Connect's worker default: header values as plain strings, not JSON.
  header: 'org.apache.kafka.connect.storage.SimpleHeaderConverter',
} as const;

export const N = ConnectorConfigNames;
export const G = ConnectorConfigGroups;

const CONVERTER_DOC = (part: string, by: string) =>
  'Converter class used to convert between Kafka Connect format and the serialized form that is written to Kafka.' +
  ` This controls the format of the ${part} in messages written to or read from Kafka, and since this is` +
  ' independent of connectors it allows any connector to work with any serialization format.' +
  ` Examples of common formats include JSON and Avro. ${by}`;

const RELOAD_DOC =
  'The action that Connect should take on the connector when changes in external ' +
  "configuration providers result in a change in the connector's configuration properties. " +
  "A value of 'none' indicates that Connect will do nothing. " +
  "A value of 'restart' indicates that Connect should restart/reload the connector with the " +
  'updated configuration properties.' +
  'The restart may actually be scheduled in the future if the external configuration provider ' +
  'indicates that a configuration value will expire in the future.';

const TASKS_MAX_ENFORCE_DOC =
  '(Deprecated) Whether to enforce that the tasks.max property is respected by the connector. ' +
  'By default, connectors that generate too many tasks will fail, and existing sets of tasks that exceed the tasks.max property will also be failed. ' +
  'If this property is set to false, then connectors will be allowed to generate more than the maximum number of tasks, and existing sets of ' +
  'tasks that exceed the tasks.max property will be allowed to run. ' +
  'This property is deprecated and will be removed in an upcoming major release.';

const ERRORS_LOG_INCLUDE_MESSAGES_DOC =
  'Whether to include in the log the Connect record that resulted in a failure. ' +
  'For sink records, the topic, partition, offset, and timestamp will be logged. ' +
  'For source records, the key and value (and their schemas), all headers, and the timestamp, Kafka topic, Kafka partition, source partition, ' +
  'and source offset will be logged. ' +
  "This is 'false' by default, which will prevent record keys, values, and headers from being written to log files.";

/** The keys of Connect's `ConnectorConfig`, shared by sources and sinks. A fresh instance per call. */
export function commonConnectorConfigDef(): ConfigDef {
  let order = 0;
  let errorOrder = 0;
  return new ConfigDef()
    .define({
      name: N.NAME,
      type: 'STRING',
      validator: new NonEmptyStringWithoutControlChars(),
      importance: 'HIGH',
      documentation: 'Globally unique name to use for this connector.',
      group: G.COMMON,
      orderInGroup: ++order,
      width: 'MEDIUM',
      displayName: 'Connector name',
    })
    .define({
      name: N.CONNECTOR_CLASS,
      type: 'STRING',
      importance: 'HIGH',
      documentation:
        'Name or alias of the class for this connector. Must be a subclass of org.apache.kafka.connect.connector.Connector. ' +
        'If the connector is org.apache.kafka.connect.file.FileStreamSinkConnector, you can either specify this full name, ' +
        ' or use "FileStreamSink" or "FileStreamSinkConnector" to make the configuration a bit shorter',
      group: G.COMMON,
      orderInGroup: ++order,
      width: 'LONG',
      displayName: 'Connector class',
    })
    .define({
      name: N.TASKS_MAX,
      type: 'INT',
      defaultValue: 1,
      validator: Range.atLeast(1),
      importance: 'HIGH',
      documentation: 'Maximum number of tasks to use for this connector.',
      group: G.COMMON,
      orderInGroup: ++order,
      width: 'SHORT',
      displayName: 'Tasks max',
    })
    .define({
      name: N.TASKS_MAX_ENFORCE,
      type: 'BOOLEAN',
      defaultValue: true,
      importance: 'LOW',
      documentation: TASKS_MAX_ENFORCE_DOC,
      group: G.COMMON,
      orderInGroup: ++order,
      width: 'SHORT',
      displayName: 'Enforce tasks max',
    })
    .define({
      name: N.KEY_CONVERTER,
      type: 'CLASS',
      defaultValue: DEFAULT_CONVERTERS.key,
      importance: 'LOW',
      documentation: CONVERTER_DOC('keys', 'By default, the JsonConverter is used.'),
      group: G.COMMON,
      orderInGroup: ++order,
      width: 'SHORT',
      displayName: 'Key converter class',
    })
    .define({
      name: N.VALUE_CONVERTER,
      type: 'CLASS',
      defaultValue: DEFAULT_CONVERTERS.value,
      importance: 'LOW',
      documentation: CONVERTER_DOC('values', 'By default, the JsonConverter is used.'),
      group: G.COMMON,
      orderInGroup: ++order,
      width: 'SHORT',
      displayName: 'Value converter class',
    })
    .define({
      name: N.HEADER_CONVERTER,
      type: 'CLASS',
      defaultValue: DEFAULT_CONVERTERS.header,
      importance: 'LOW',
      documentation: `Header${CONVERTER_DOC('header values', 'By default, the JsonConverter is used.')}`,
      group: G.COMMON,
      orderInGroup: ++order,
      width: 'SHORT',
      displayName: 'Header converter class',
    })
    .define({
      name: N.TRANSFORMS,
      type: 'LIST',
      defaultValue: [],
      validator: uniqueAliases('transformation aliases'),
      importance: 'LOW',
      documentation: 'Aliases for the transformations to be applied to records.',
      group: G.TRANSFORMS,
      orderInGroup: ++order,
      width: 'LONG',
      displayName: 'Transforms',
    })
    .define({
      name: N.PREDICATES,
      type: 'LIST',
      defaultValue: [],
      validator: uniqueAliases('predicate aliases'),
      importance: 'LOW',
      documentation: 'Aliases for the predicates used by transformations.',
      group: G.PREDICATES,
      orderInGroup: ++order,
      width: 'LONG',
      displayName: 'Predicates',
    })
    .define({
      name: N.CONFIG_ACTION_RELOAD,
      type: 'STRING',
      defaultValue: 'restart',
      validator: ValidString.in('none', 'restart'),
      importance: 'LOW',
      documentation: RELOAD_DOC,
      group: G.COMMON,
      orderInGroup: ++order,
      width: 'MEDIUM',
      displayName: 'Reload Action',
    })
    .define({
      name: N.ERRORS_RETRY_TIMEOUT,
      type: 'LONG',
      defaultValue: 0,
      importance: 'MEDIUM',
      documentation:
        'The maximum duration in milliseconds that a failed operation will be reattempted. ' +
        'The default is 0, which means no retries will be attempted. Use -1 for infinite retries.',
      group: G.ERROR,
      orderInGroup: ++errorOrder,
      width: 'MEDIUM',
      displayName: 'Retry Timeout for Errors',
    })
    .define({
      name: N.ERRORS_RETRY_MAX_DELAY,
      type: 'LONG',
      defaultValue: 60000,
      importance: 'MEDIUM',
      documentation:
        'The maximum duration in milliseconds between consecutive retry attempts. ' +
        'Jitter will be added to the delay once this limit is reached to prevent thundering herd issues.',
      group: G.ERROR,
      orderInGroup: ++errorOrder,
      width: 'MEDIUM',
      displayName: 'Maximum Delay Between Retries for Errors',
    })
    .define({
      name: N.ERRORS_TOLERANCE,
      type: 'STRING',
      defaultValue: 'none',
      validator: ValidString.in('none', 'all'),
      importance: 'MEDIUM',
      documentation:
        "Behavior for tolerating errors during connector operation. 'none' is the default value " +
        "and signals that any error will result in an immediate connector task failure; 'all' changes the behavior to skip over problematic records.",
      group: G.ERROR,
      orderInGroup: ++errorOrder,
      width: 'SHORT',
      displayName: 'Error Tolerance',
    })
    .define({
      name: N.ERRORS_LOG_ENABLE,
      type: 'BOOLEAN',
      defaultValue: false,
      importance: 'MEDIUM',
      documentation:
        'If true, write each error and the details of the failed operation and problematic record ' +
        "to the Connect application log. This is 'false' by default, so that only errors that are not tolerated are reported.",
      group: G.ERROR,
      orderInGroup: ++errorOrder,
      width: 'SHORT',
      displayName: 'Log Errors',
    })
    .define({
      name: N.ERRORS_LOG_INCLUDE_MESSAGES,
      type: 'BOOLEAN',
      defaultValue: false,
      importance: 'MEDIUM',
      documentation: ERRORS_LOG_INCLUDE_MESSAGES_DOC,
      group: G.ERROR,
      orderInGroup: ++errorOrder,
      width: 'SHORT',
      displayName: 'Log Error Details',
    });
}
