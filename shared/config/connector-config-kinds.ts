/**
 * The kind-specific framework keys: Connect's `SinkConnectorConfig` and
 * `SourceConnectorConfig` on top of the common keys of connector-config-defs.ts.
 */
import type { ConfigDef } from '../connect/config-def.js';
import {
  CaseInsensitiveValidString,
  LambdaValidator,
  NonEmptyString,
  Range,
  RegexValidator,
  uniqueAliases,
} from '../connect/config-validators.js';
import { type ConnectorKind, commonConnectorConfigDef, G, N } from './connector-config-defs.js';
import { defineKafkaSubscription } from './kafka-subscription-config.js';

function defineDeadLetterQueue(def: ConfigDef, processedBy: string): ConfigDef {
  return def
    .define({
      name: N.DLQ_TOPIC_NAME,
      type: 'STRING',
      defaultValue: '',
      importance: 'MEDIUM',
      documentation:
        'The name of the topic to be used as the dead letter queue (DLQ) for messages that ' +
        `result in an error when processed by ${processedBy}. The topic name is blank by default, ` +
        'which means that no messages are to be recorded in the DLQ.',
      group: G.ERROR,
      orderInGroup: 6,
      width: 'MEDIUM',
      displayName: 'Dead Letter Queue Topic Name',
    })
    .define({
      name: N.DLQ_TOPIC_REPLICATION_FACTOR,
      type: 'SHORT',
      defaultValue: 3,
      importance: 'MEDIUM',
      documentation:
        "Replication factor used to create the dead letter queue topic when it doesn't already exist.",
      group: G.ERROR,
      orderInGroup: 7,
      width: 'MEDIUM',
      displayName: 'Dead Letter Queue Topic Replication Factor',
    })
    .define({
      name: N.DLQ_CONTEXT_HEADERS_ENABLE,
      type: 'BOOLEAN',
      defaultValue: false,
      importance: 'MEDIUM',
      documentation:
        'If true, add headers containing error context to the messages ' +
        'written to the dead letter queue. To avoid clashing with headers from the original record, all error context header ' +
        'keys, all error context header keys will start with <code>__connect.errors.</code>',
      group: G.ERROR,
      orderInGroup: 8,
      width: 'MEDIUM',
      displayName: 'Enable Error Context Headers',
    });
}

/** Connect's `SinkConnectorConfig.configDef()`: the common keys plus topics and the DLQ. */
export function sinkConnectorConfigDef(): ConfigDef {
  const def = commonConnectorConfigDef()
    .define({
      name: N.TOPICS,
      type: 'LIST',
      defaultValue: '',
      importance: 'HIGH',
      documentation: 'List of topics to consume, separated by commas',
      group: G.COMMON,
      orderInGroup: 4,
      width: 'LONG',
      displayName: 'Topics',
    })
    .define({
      name: N.TOPICS_REGEX,
      type: 'STRING',
      defaultValue: '',
      validator: new RegexValidator(),
      importance: 'HIGH',
      documentation:
        'Regular expression giving topics to consume. ' +
        'Under the hood, the regex is compiled to a <code>java.util.regex.Pattern</code>. ' +
        'Only one of topics or topics.regex should be specified.',
      group: G.COMMON,
      orderInGroup: 4,
      width: 'LONG',
      displayName: 'Topics regex',
    });
  return defineKafkaSubscription(
    defineDeadLetterQueue(def, 'this sink connector, or its transformations or converters'),
  );
}

const EXACTLY_ONCE_SUPPORT_DOC =
  'Permitted values are requested, required. ' +
  'If set to "required", forces a preflight check for the connector to ensure that it can provide exactly-once semantics ' +
  'with the given configuration. Some connectors may be capable of providing exactly-once semantics but not signal to ' +
  'Connect that they support this; in that case, documentation for the connector should be consulted carefully before ' +
  'creating it, and the value for this property should be set to "requested". ' +
  'Additionally, if the value is set to "required" but the worker that performs preflight validation does not have ' +
  'exactly-once support enabled for source connectors, requests to create or validate the connector will fail.';

const TRANSACTION_BOUNDARY_DOC =
  'Permitted values are: poll, interval, connector. ' +
  "If set to 'poll', a new producer transaction will be started and committed for every batch of records that each task from " +
  "this connector provides to Connect. If set to 'connector', relies on connector-defined transaction boundaries; note that " +
  'not all connectors are capable of defining their own transaction boundaries, and in that case, attempts to instantiate a connector with ' +
  "this value will fail. Finally, if set to 'interval', commits transactions only after a user-defined time interval has passed.";

const OFFSETS_TOPIC_DOC =
  'The name of a separate offsets topic to use for this connector. ' +
  'If empty or not specified, the worker’s global offsets topic name will be used. ' +
  'If specified, the offsets topic will be created if it does not already exist on the Kafka cluster targeted by this connector ' +
  "(which may be different from the one used for the worker's global offsets topic if the bootstrap.servers property of the connector's producer " +
  "has been overridden from the worker's). Only applicable in distributed mode; in standalone mode, setting this property will have no effect.";

/**
 * Connect's `SourceConnectorConfig.configDef()`: the common keys plus topic creation groups,
 * exactly-once settings and the offsets topic, plus (unlike Connect) the DLQ keys.
 */
export function sourceConnectorConfigDef(): ConfigDef {
  const atLeastZero = Range.atLeast(0);
  let order = 0;
  const def = commonConnectorConfigDef()
    .define({
      name: N.TOPIC_CREATION_GROUPS,
      type: 'LIST',
      defaultValue: [],
      validator: uniqueAliases('topic creation groups'),
      importance: 'LOW',
      documentation: 'Groups of configurations for topics created by source connectors',
      group: G.TOPIC_CREATION,
      orderInGroup: ++order,
      width: 'LONG',
      displayName: 'Topic Creation Groups',
    })
    .define({
      name: N.EXACTLY_ONCE_SUPPORT,
      type: 'STRING',
      defaultValue: 'requested',
      validator: CaseInsensitiveValidString.in('requested', 'required'),
      importance: 'MEDIUM',
      documentation: EXACTLY_ONCE_SUPPORT_DOC,
      group: G.EXACTLY_ONCE_SUPPORT,
      orderInGroup: ++order,
      width: 'SHORT',
      displayName: 'Exactly once support',
    })
    .define({
      name: N.TRANSACTION_BOUNDARY,
      type: 'STRING',
      defaultValue: 'poll',
      validator: CaseInsensitiveValidString.in('poll', 'interval', 'connector'),
      importance: 'MEDIUM',
      documentation: TRANSACTION_BOUNDARY_DOC,
      group: G.EXACTLY_ONCE_SUPPORT,
      orderInGroup: ++order,
      width: 'SHORT',
      displayName: 'Transaction Boundary',
    })
    .define({
      name: N.TRANSACTION_BOUNDARY_INTERVAL,
      type: 'LONG',
      defaultValue: null,
      validator: LambdaValidator.with(
        (name, value) => {
          if (value !== null && value !== undefined) atLeastZero.ensureValid(name, value);
        },
        () => atLeastZero.toString(),
      ),
      importance: 'LOW',
      documentation:
        "If 'transaction.boundary' is set to 'interval', determines the interval for producer transaction commits by connector tasks. " +
        "If unset, defaults to the value of the worker-level 'offset.flush.interval.ms' property. " +
        'It has no effect if a different transaction.boundary is specified.',
      group: G.EXACTLY_ONCE_SUPPORT,
      orderInGroup: ++order,
      width: 'SHORT',
      displayName: 'Transaction boundary interval',
    })
    .define({
      name: N.OFFSETS_STORAGE_TOPIC,
      type: 'STRING',
      defaultValue: null,
      validator: new NonEmptyString(),
      importance: 'LOW',
      documentation: OFFSETS_TOPIC_DOC,
      group: G.OFFSETS_TOPIC,
      orderInGroup: 1,
      width: 'LONG',
      displayName: 'Offsets topic',
    });
  return defineDeadLetterQueue(
    def,
    "this source connector's transformations or converters (serverless-connect only; Apache Kafka Connect has no DLQ for sources)",
  );
}

/** The framework keys for a connector kind. A fresh, mutable instance per call. */
export function connectorConfigDef(kind: ConnectorKind): ConfigDef {
  return kind === 'sink' ? sinkConnectorConfigDef() : sourceConnectorConfigDef();
}
