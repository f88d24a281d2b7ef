/** The PostgreSQL sink connector's plugin descriptor. */
import type { PluginDescriptor } from 'serverless-connect/connect';
import { systemPostgresPools } from '../postgres/pg-pool.js';
import { POSTGRES_SINK_VERSION } from './postgres-sink-config.js';
import { PostgresSinkConnector } from './postgres-sink-connector.js';
import type { PostgresSinkDeps } from './postgres-sink-task.js';

let containerDeps: PostgresSinkDeps | undefined;

/** The sink's dependencies in a container: the shared pools. */
export function systemPostgresSinkDeps(): PostgresSinkDeps {
  containerDeps ??= { pools: systemPostgresPools() };
  return containerDeps;
}

/**
 * Registers as `postgres-sink`, `PostgresSink`, `PostgresSinkConnector`, the full class name,
 * and Confluent's `io.confluent.connect.jdbc.JdbcSinkConnector` (its PostgreSQL configs run
 * unchanged; other databases' URLs are refused on `connection.url`).
 */
export const postgresSinkDescriptor: PluginDescriptor<'sink'> = {
  className: 'dev.serverlessconnect.connectors.PostgresSinkConnector',
  aliases: [
    'postgres-sink',
    'PostgresSink',
    'io.confluent.connect.jdbc.JdbcSinkConnector',
    'JdbcSinkConnector',
  ],
  type: 'sink',
  version: POSTGRES_SINK_VERSION,
  create: () => new PostgresSinkConnector(systemPostgresSinkDeps()),
};
