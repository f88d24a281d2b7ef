/**
 * The verifiable source's plugin descriptor, and the only place it reads the wall clock and the
 * timer (through `globalThis`): everything else gets them injected.
 */
import type { PluginDescriptor } from 'serverless-connect/connect';
import { VERIFIABLE_SOURCE_VERSION } from './verifiable-source-config.js';
import { VerifiableSourceConnector } from './verifiable-source-connector.js';

/** Apache Kafka's class name, which configs written for Kafka Connect name. */
export const APACHE_VERIFIABLE_SOURCE_CLASS =
  'org.apache.kafka.connect.tools.VerifiableSourceConnector';

/**
 * Registers as `verifiable-source`, `VerifiableSource`, its full class name and Apache Kafka's
 * class name, whose configs it takes.
 */
export const verifiableSourceDescriptor: PluginDescriptor<'source'> = {
  className: 'dev.serverlessconnect.connectors.VerifiableSourceConnector',
  aliases: ['verifiable-source', 'VerifiableSource', APACHE_VERIFIABLE_SOURCE_CLASS],
  type: 'source',
  version: VERIFIABLE_SOURCE_VERSION,
  create: () =>
    new VerifiableSourceConnector({
      clock: { now: () => globalThis.Date.now() },
      sleep: (ms) => new Promise((resolve) => globalThis.setTimeout(resolve, ms)),
    }),
};
