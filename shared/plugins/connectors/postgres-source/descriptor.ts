/**
 * The PostgreSQL source connector's plugin descriptor, and the only place it reads the wall
 * clock (through `globalThis`): everything else gets it injected.
 */
import type { PluginDescriptor } from 'serverless-connect/connect';
import { systemPostgresPools } from '../postgres/pg-pool.js';
import { POSTGRES_SOURCE_VERSION } from './postgres-source-config.js';
import { PostgresSourceConnector } from './postgres-source-connector.js';
import type { PostgresSourceDeps } from './postgres-source-task.js';

let containerDeps: PostgresSourceDeps | undefined;

/** The source's dependencies in a container: the shared pools and the wall clock. */
export function systemPostgresSourceDeps(): PostgresSourceDeps {
  containerDeps ??= { pools: systemPostgresPools(), clock: { now: () => globalThis.Date.now() } };
  return containerDeps;
}

/**
 * Registers as `postgres-source`, `PostgresSource`, `PostgresSourceConnector`, the full class
 * name, and Confluent's `io.confluent.connect.jdbc.JdbcSourceConnector` (its PostgreSQL configs
 * run unchanged; other databases' URLs are refused on `connection.url`).
 */
export const postgresSourceDescriptor: PluginDescriptor<'source'> = {
  className: 'dev.serverlessconnect.connectors.PostgresSourceConnector',
  aliases: [
    'postgres-source',
    'PostgresSource',
    'io.confluent.connect.jdbc.JdbcSourceConnector',
    'JdbcSourceConnector',
  ],
  type: 'source',
  version: POSTGRES_SOURCE_VERSION,
  create: () => new PostgresSourceConnector(systemPostgresSourceDeps()),
};
