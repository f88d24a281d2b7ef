/**
 * The integration tests' schema registry (Confluent's REST API): `SCHEMA_REGISTRY_URL` when set
 * (a registry someone else runs, its base URL, e.g. `http://host:8081`), else the project's
 * Apicurio Registry started through `scripts/schema-registry/start.sh` (SCHEMA_REGISTRY_PORT
 * and the other settings of scripts/schema-registry/common.sh apply; the first start builds
 * it). A registry this call started is stopped by `stop`; one already running is left alone.
 *
 * The registry costs a JVM (about 200 MB) and seconds of start-up on two cores, so the global
 * setup starts it only when a selected test file uses it: {@link SCHEMA_REGISTRY_MARKER}.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ScriptedService, startScriptedService } from './service-script.js';

/** A test file that names this (as in `inject('schemaRegistryUrl')`) gets the registry. */
export const SCHEMA_REGISTRY_MARKER = 'schemaRegistryUrl';

/**
 * Its `url`: the base URL of Confluent's REST API, e.g. `http://127.0.0.1:18081/apis/ccompat/v7`;
 * `tlsUrl` the same API on the HTTPS port (a private CA's certificate) and `tlsDir` the folder
 * of its certificates (scripts/schema-registry/tls.sh), both '' for a registry given by URL.
 */
export type RunningSchemaRegistry = ScriptedService & {
  readonly tlsUrl: string;
  readonly tlsDir: string;
};

/** The registry to test against, started when needed. */
export async function ensureSchemaRegistry(
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningSchemaRegistry> {
  const given = env.SCHEMA_REGISTRY_URL?.trim();
  if (given !== undefined && given !== '') {
    return { url: given.replace(/\/+$/, ''), stop: async () => {}, tlsUrl: '', tlsDir: '' };
  }
  // The first start builds the registry: minutes on busy cores.
  const started = await startScriptedService('schema-registry', 'http://', {
    env,
    timeoutMs: 900_000,
  });
  const home = resolve(
    env.SCHEMA_REGISTRY_HOME_DIR ??
      fileURLToPath(new URL('../../.schema-registry', import.meta.url)),
  );
  const tlsUrl = (await readFile(join(home, 'tls-url'), 'utf8').catch(() => '')).trim();
  return { ...started, tlsUrl, tlsDir: tlsUrl === '' ? '' : join(home, 'tls') };
}

/** True when one of `files` (test file paths) names {@link SCHEMA_REGISTRY_MARKER}. */
export async function someFileUsesSchemaRegistry(files: readonly string[]): Promise<boolean> {
  const texts = await Promise.all(files.map((file) => readFile(file, 'utf8')));
  return texts.some((text) => text.includes(SCHEMA_REGISTRY_MARKER));
}
