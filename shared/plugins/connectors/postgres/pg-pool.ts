/**
 * The only place node-postgres pools are built: every PostgreSQL connector and task gets them
 * through the container's {@link PostgresPools} ({@link systemPostgresPools}). Connections that
 * cannot be pooled (postgres-cdc's replication connection) take their settings from
 * {@link pgClientConfigOf}, the one mapping of connection settings to node-postgres's.
 */
import { type ClientConfig, Pool } from 'pg';
import type { ConnectionSettings } from './connection-url.js';
import { type PgPool, PostgresPools } from './pg-client.js';

/** How long an idle pooled connection is kept (across warm invocations). */
const IDLE_TIMEOUT_MS = 60_000;

/**
 * The node-postgres client settings of `settings`; `options` adds `-c name=value` session
 * settings to the search_path one.
 */
export function pgClientConfigOf(
  settings: ConnectionSettings,
  options: readonly string[] = [],
): ClientConfig {
  const searchPath = settings.searchPath?.replaceAll('\\', '\\\\').replaceAll(' ', '\\ ');
  const sessionOptions = [
    ...(searchPath === undefined ? [] : [`-c search_path=${searchPath}`]),
    ...options,
  ];
  return {
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
    ...(sessionOptions.length === 0 ? {} : { options: sessionOptions.join(' ') }),
  };
}

/** A node-postgres pool of `settings`, at most `max` connections. */
export function pgPoolOf(settings: ConnectionSettings, max: number): PgPool {
  const pool = new Pool({
    ...pgClientConfigOf(settings),
    max,
    idleTimeoutMillis: IDLE_TIMEOUT_MS,
    allowExitOnIdle: true,
  });
  // An idle connection the server or the network dropped: the pool replaces it on next use.
  pool.on('error', () => undefined);
  return pool;
}

let containerPools: PostgresPools | undefined;

/** The container's pools, made on first use and shared by every PostgreSQL connector and task. */
export function systemPostgresPools(): PostgresPools {
  containerPools ??= new PostgresPools(pgPoolOf);
  return containerPools;
}
