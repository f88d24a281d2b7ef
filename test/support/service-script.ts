/**
 * The project's services that tests start through their scripts (`scripts/<service>/start.sh`
 * and `stop.sh`: PostgreSQL, the schema registry), one way for all: run the script with bash,
 * read the service's URL from the last line it prints, stop only what this call started.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const scripts = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts');

/** A service the scripts started, or found running (then `stop` leaves it alone). */
export interface ScriptedService {
  readonly url: string;
  stop(): Promise<void>;
}

export interface ScriptOptions {
  /** The scripts' environment (their settings: ports, folders). */
  readonly env: NodeJS.ProcessEnv;
  /** How long a script may run (a first start may install or build the service). */
  readonly timeoutMs: number;
}

/**
 * Runs `scripts/<service>/<name>`. @throws Error naming the script, its exit code and the last
 * lines of its standard error.
 */
export function runServiceScript(
  service: string,
  name: string,
  { env, timeoutMs }: ScriptOptions,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const file = join(scripts, service, name);
    execFile('bash', [file], { env, timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error === null) resolve({ stdout, stderr });
      else {
        const tail = stderr.trim().split('\n').slice(-15).join('\n');
        reject(
          new Error(`scripts/${service}/${name} failed (${error.code ?? error.message}):\n${tail}`),
        );
      }
    });
  });
}

/**
 * Starts `service` through its `start.sh` (which says `already running` on its standard error
 * when it was) and reads its URL, which starts with `urlPrefix`, from the last line the script
 * prints. `stop` runs `stop.sh` when this call started it.
 */
export async function startScriptedService(
  service: string,
  urlPrefix: string,
  options: ScriptOptions,
): Promise<ScriptedService> {
  const { stdout, stderr } = await runServiceScript(service, 'start.sh', options);
  const url = stdout.trim().split('\n').pop() ?? '';
  if (!url.startsWith(urlPrefix)) {
    throw new Error(`scripts/${service}/start.sh printed no URL:\n${stderr}`);
  }
  const startedHere = !stderr.includes('already running');
  return {
    url,
    stop: async () => {
      if (startedHere) await runServiceScript(service, 'stop.sh', options);
    },
  };
}
