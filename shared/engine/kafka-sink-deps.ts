/**
 * What the engine gives the Kafka sink plugin (`shared/plugins/connectors/kafka-sink/`): its
 * Kafka clients over the engine's ports, and the worker's side of a connector config, so the
 * plugin itself imports only the plugin API.
 *
 * - `producers(props)`: transactional producers with the connector's `producer.override.*`
 *   settings (`producerOptionsOf`), refused ones rejected as the runtime rejects them;
 * - `producerOverrideErrors(props)`: the validate endpoint's rules for those keys;
 * - `admin`: the engine's admin client; `isTransactionOutcomeUnknown`: the port's
 *   `TransactionOutcomeUnknownError`;
 * - `frameworkConfig` and `converters`: the connector config as the worker parses it
 *   (`parseConnectorConfig`), its converters resolved in the engine's plugin registry.
 */
import { clientOverrideErrors } from '../config/client-overrides.js';
import { parseConnectorConfig } from '../config/connector-config.js';
import { ConnectorConfigPrefixes } from '../config/connector-config-defs.js';
import type { PluginRegistry } from '../connect/plugin.js';
import type { KafkaSinkDeps } from '../plugins/connectors/kafka-sink/kafka-sink-deps.js';
import type { KafkaAdminPort, KafkaClientFactory } from '../ports/kafka.js';
import { TransactionOutcomeUnknownError } from '../ports/kafka-errors.js';
import type { Logger } from '../ports/logger.js';
import { createConverterSet } from '../runtime/pipeline/converter-set.js';
import { mapLimit } from '../runtime/task/concurrency.js';
import { producerOptionsOf } from '../runtime/task/producer-overrides.js';

/** The ports and settings the Kafka sink's dependencies are built from. */
export interface KafkaSinkPorts {
  readonly kafka: Pick<KafkaClientFactory, 'transactionalProducer'>;
  readonly admin: KafkaAdminPort;
  /** Resolves the connector's converters (the registry the sink is registered in). */
  readonly plugins: PluginRegistry;
  /** The worker's transactional id prefix (`TRANSACTIONAL_ID_PREFIX`). */
  readonly transactionalIdPrefix: string;
  readonly logger: Logger;
}

/**
 * The Kafka sink's dependencies over `ports`.
 *
 * @example
 * plugins.register(kafkaSinkDescriptor(kafkaSinkDeps({ kafka, admin, plugins, transactionalIdPrefix, logger })));
 */
export function kafkaSinkDeps(ports: KafkaSinkPorts): KafkaSinkDeps {
  const { kafka, plugins } = ports;
  return {
    kafka: {
      producers: (props) => {
        const options = producerOptionsOf(parseConnectorConfig(props, 'sink'));
        return (transactionalId) => kafka.transactionalProducer(transactionalId, options);
      },
      // A sink's client overrides are checked only with a dead letter queue (its producer);
      // the Kafka sink's producers obey the source connectors' rules.
      producerOverrideErrors: (props) =>
        clientOverrideErrors(props, 'source').filter((v) =>
          v.name.startsWith(ConnectorConfigPrefixes.PRODUCER_OVERRIDE),
        ),
      admin: ports.admin,
      isTransactionOutcomeUnknown: (error) => error instanceof TransactionOutcomeUnknownError,
    },
    worker: {
      transactionalIdPrefix: ports.transactionalIdPrefix,
      frameworkConfig: (props) => {
        const config = parseConnectorConfig(props, 'sink');
        return {
          name: config.name,
          topics: config.topics,
          topicsRegex: config.topicsRegex,
          hasTransforms: config.transforms.length > 0,
        };
      },
      converters: (props) => createConverterSet(parseConnectorConfig(props, 'sink'), plugins),
      mapLimit,
    },
    logger: ports.logger,
  };
}
