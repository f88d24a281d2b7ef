/**
 * The only place node-postgres pools are built: every PostgreSQL connector and task gets them
 * through the container's {@link PostgresPools} ({@link systemPostgresPools}).
 */
import { Pool } from 'pg';
import type { ConnectionSettings } from './connection-url.js';
import { type PgPool, PostgresPools } from './pg-client.js';

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

let containerPools: PostgresPools | undefined;

/** The container's pools, made on first use and shared by every PostgreSQL connector and task. */
export function systemPostgresPools(): PostgresPools {
  containerPools ??= new PostgresPools(pgPoolOf);
  return containerPools;
}
