/**
 * The Kafka sink connector's plugin descriptor. It writes through Kafka clients it is given
 * (kafka-sink-deps.ts), so the engine registers it next to the built-in plugins, over its own
 * clients (`shared/engine/kafka-sink-deps.ts`).
 */
import type { PluginDescriptor } from 'serverless-connect/connect';
import { KAFKA_SINK_VERSION } from './kafka-sink-config.js';
import { KafkaSinkConnector } from './kafka-sink-connector.js';
import type { KafkaSinkDeps, KafkaSinkLogger } from './kafka-sink-deps.js';
import { OutputTopics } from './output-topics.js';

export const KAFKA_SINK_CLASS = 'dev.serverlessconnect.connectors.KafkaSinkConnector';

const silentLogger: KafkaSinkLogger = { info: () => {} };

/**
 * The descriptor of `dev.serverlessconnect.connectors.KafkaSinkConnector`, registered as
 * `kafka-sink`, `KafkaSink` and `KafkaSinkConnector`. Output topics are checked (and created)
 * once per container, by every connector it creates.
 *
 * @example
 * const plugins = builtinRegistry();
 * plugins.register(kafkaSinkDescriptor(kafkaSinkDeps({ kafka, admin, plugins, ... })));
 */
export function kafkaSinkDescriptor(deps: KafkaSinkDeps): PluginDescriptor<'sink'> {
  const logger = deps.logger ?? silentLogger;
  const connectorDeps = {
    kafka: deps.kafka,
    worker: deps.worker,
    logger,
    outputTopics: new OutputTopics(deps.kafka.admin, logger),
  };
  return {
    className: KAFKA_SINK_CLASS,
    aliases: ['kafka-sink'],
    type: 'sink',
    version: KAFKA_SINK_VERSION,
    create: () => new KafkaSinkConnector(connectorDeps),
  };
}
