/**
 * The integration tests' PostgreSQL server: `POSTGRES_URL` when set (a server someone else runs),
 * else the project's throwaway cluster started through `scripts/postgres/start.sh` (PG_PORT and
 * the other settings of scripts/postgres/common.sh apply). A server this call started is stopped
 * by `stop`; one that was already running is left alone.
 */
import { type ScriptedService, startScriptedService } from './service-script.js';

/** Its `url`: `postgres://user:password@127.0.0.1:port/database`. */
export type RunningPostgres = ScriptedService;

/** The server to test against, started when needed. */
export async function ensurePostgres(
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningPostgres> {
  const given = env.POSTGRES_URL?.trim();
  if (given !== undefined && given !== '') return { url: given, stop: async () => {} };
  return startScriptedService('postgres', 'postgres://', { env, timeoutMs: 300_000 });
}
