/**
 * The integration tests' PostgreSQL server: `POSTGRES_URL` when set (a server someone else runs),
 * else the project's throwaway cluster started through `scripts/postgres/start.sh` (PG_PORT and
 * the other settings of scripts/postgres/common.sh apply). A server this call started is stopped
 * by `stop`; one that was already running is left alone.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const scripts = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'postgres');

export interface RunningPostgres {
  /** `postgres://user:password@127.0.0.1:port/database` */
  readonly url: string;
  stop(): Promise<void>;
}

function script(name: string, env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('bash', [join(scripts, name)], { env, timeout: 300_000 }, (error, stdout, stderr) => {
      if (error === null) resolve({ stdout, stderr });
      else {
        const tail = stderr.trim().split('\n').slice(-15).join('\n');
        reject(
          new Error(`scripts/postgres/${name} failed (${error.code ?? error.message}):\n${tail}`),
        );
      }
    });
  });
}

/** The server to test against, started when needed. */
export async function ensurePostgres(
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningPostgres> {
  const given = env.POSTGRES_URL?.trim();
  if (given !== undefined && given !== '') return { url: given, stop: async () => {} };
  const { stdout, stderr } = await script('start.sh', env);
  const url = stdout.trim().split('\n').pop() ?? '';
  if (!url.startsWith('postgres://')) {
    throw new Error(`scripts/postgres/start.sh printed no URL:\n${stderr}`);
  }
  const startedHere = !stderr.includes('already running');
  return {
    url,
    stop: async () => {
      if (startedHere) await script('stop.sh', env);
    },
  };
}
