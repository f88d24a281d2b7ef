/**
 * The PostgreSQL CDC source connector's plugin descriptor, and the only place it reads the wall
 * clock (through `globalThis`): everything else gets it injected.
 */
import type { PluginDescriptor } from 'serverless-connect/connect';
import { POSTGRES_CDC_VERSION } from './cdc-config-def.js';
import { PostgresCdcSourceConnector } from './postgres-cdc-source-connector.js';
import type { PostgresCdcDeps } from './postgres-cdc-source-task.js';

/** The wall clock and real sleeps, for production use. */
export function systemPostgresCdcDeps(): PostgresCdcDeps {
  return {
    clock: { now: () => globalThis.Date.now() },
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
}

/**
 * Registers as `postgres-cdc`, `PostgresCdcSource`, `PostgresCdcSourceConnector`, the full class
 * name, and Debezium's `io.debezium.connector.postgresql.PostgresConnector` (its pgoutput
 * configs run unchanged).
 */
export const postgresCdcDescriptor: PluginDescriptor<'source'> = {
  className: 'dev.serverlessconnect.connectors.PostgresCdcSourceConnector',
  aliases: [
    'postgres-cdc',
    'PostgresCdcSource',
    'PostgresCdcSourceConnector',
    'io.debezium.connector.postgresql.PostgresConnector',
    'PostgresConnector',
  ],
  type: 'source',
  version: POSTGRES_CDC_VERSION,
  create: () => new PostgresCdcSourceConnector(systemPostgresCdcDeps()),
};
