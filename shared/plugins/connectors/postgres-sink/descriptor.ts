/**
 * The PostgreSQL sink connector's plugin descriptor, and the only place it builds node-postgres
 * pools: everything else gets them through {@link PostgresPools}.
 */

import { Pool } from 'pg';
import type { PluginDescriptor } from 'serverless-connect/connect';
import type { ConnectionSettings } from './connection-url.js';
import { type PgPool, PostgresPools } from './pg-client.js';
import { POSTGRES_SINK_VERSION } from './postgres-sink-config.js';
import { PostgresSinkConnector } from './postgres-sink-connector.js';
import type { PostgresSinkDeps } from './postgres-sink-task.js';

/** How long an idle pooled connection is kept (across warm invocations). */
const IDLE_TIMEOUT_MS = 60_000;

/** A node-postgres pool of `settings`, at most `max` connections. */
export function pgPoolOf(settings: ConnectionSettings, max: number): PgPool {
  const searchPath = settings.searchPath?.replaceAll('\\', '\\\\').replaceAll(' ', '\\ ');
  const pool = new Pool({
    host: settings.host,
    port: settings.port,
    database: settings.database,
    ...(settings.user === undefined ? {} : { user: settings.user }),
    ...(settings.password === undefined ? {} : { password: settings.password }),
    ssl: settings.ssl === false ? false : { ...settings.ssl },
    application_name: settings.applicationName,
    ...(settings.connectTimeoutMs === undefined
      ? {}
      : { connectionTimeoutMillis: settings.connectTimeoutMs }),
    ...(searchPath === undefined ? {} : { options: `-c search_path=${searchPath}` }),
    max,
    idleTimeoutMillis: IDLE_TIMEOUT_MS,
    allowExitOnIdle: true,
  });
  // An idle connection the server or the network dropped: the pool replaces it on next use.
  pool.on('error', () => undefined);
  return pool;
}

let containerDeps: PostgresSinkDeps | undefined;

/** The container's pools, made on first use and shared by every connector and task. */
export function systemPostgresSinkDeps(): PostgresSinkDeps {
  containerDeps ??= { pools: new PostgresPools(pgPoolOf) };
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
