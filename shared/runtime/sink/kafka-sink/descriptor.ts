/**
 * The Kafka sink connector's plugin descriptor. It needs Kafka clients, so it lives in the
 * runtime (plugins may import only the plugin API) and the composition root registers it next to
 * the built-in plugins.
 */
import type { PluginDescriptor, PluginRegistry } from '../../../connect/plugin.js';
import type { KafkaAdminPort, KafkaClientFactory } from '../../../ports/kafka.js';
import { type Logger, silentLogger } from '../../../ports/logger.js';
import { KAFKA_SINK_VERSION } from './kafka-sink-config.js';
import { KafkaSinkConnector } from './kafka-sink-connector.js';
import { OutputTopics } from './output-topics.js';

export const KAFKA_SINK_CLASS = 'dev.serverlessconnect.connectors.KafkaSinkConnector';

/** What the Kafka sink needs from the container. */
export interface KafkaSinkDescriptorDeps {
  /** Builds the transactional producers (one per input partition, kept by the task instance). */
  readonly kafka: Pick<KafkaClientFactory, 'transactionalProducer'>;
  /** Group offsets, record fates, partition counts and output topic creation. */
  readonly admin: KafkaAdminPort;
  /** Resolves the connector's converters (the registry this descriptor is registered in). */
  readonly plugins: PluginRegistry;
  /** The worker's transactional id prefix (`TRANSACTIONAL_ID_PREFIX`). */
  readonly transactionalIdPrefix: string;
  /** @default silentLogger */
  readonly logger?: Logger;
}

/**
 * The descriptor of `dev.serverlessconnect.connectors.KafkaSinkConnector`, registered as
 * `kafka-sink`, `KafkaSink` and `KafkaSinkConnector`. Output topics are checked (and created)
 * once per container, by every connector it creates.
 *
 * @example
 * const plugins = builtinRegistry();
 * plugins.register(kafkaSinkDescriptor({ kafka, admin, plugins, transactionalIdPrefix }));
 */
export function kafkaSinkDescriptor(deps: KafkaSinkDescriptorDeps): PluginDescriptor<'sink'> {
  const logger = deps.logger ?? silentLogger;
  const connectorDeps = {
    kafka: deps.kafka,
    admin: deps.admin,
    plugins: deps.plugins,
    transactionalIdPrefix: deps.transactionalIdPrefix,
    logger,
    outputTopics: new OutputTopics(deps.admin, logger),
  };
  return {
    className: KAFKA_SINK_CLASS,
    aliases: ['kafka-sink'],
    type: 'sink',
    version: KAFKA_SINK_VERSION,
    create: () => new KafkaSinkConnector(connectorDeps),
  };
}
