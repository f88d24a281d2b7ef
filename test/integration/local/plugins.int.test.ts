import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { LocalRuntime } from '../../../local/runtime/start.js';
import { ACME_SOURCE_CLASS, ACME_VERSION } from '../../fixtures/plugins/acme-plugins.js';
import { uniqueName } from '../../support/services.js';
import { connectorPath, eventually, type Http, httpClient } from '../e2e/support.js';
import { startPluginRuntime } from './plugin-runtime.js';

const fixtures = 'test/fixtures/plugins';

/**
 * `npm start -- --plugins <module>`: the runtime started in this process from the same options
 * (`startPluginRuntime`), and `npm start`'s own process for a module that fails to load.
 */
describe('npm start with plugin packages', { timeout: 120_000 }, () => {
  let runtime: LocalRuntime;
  let http: Http;
  const logs: string[] = [];

  beforeAll(async () => {
    runtime = await startPluginRuntime(`${fixtures}/acme-plugins.ts`, logs);
    http = httpClient(runtime.url);
  });

  afterAll(async () => {
    await runtime?.close();
  });

  it('runs a connector of the plugin package, with its config provider, and lists it with its version', async () => {
    // Prepare
    const name = uniqueName('acme-quiet');
    // Act
    const created = await http('PUT', connectorPath(name, '/config'), {
      'connector.class': 'acme-quiet',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the plugin's config provider placeholder
      greeting: '${acme:hello}',
    });
    const status = await eventually(
      () => http('GET', connectorPath(name, '/status')),
      (res) =>
        res.body?.connector?.state === 'RUNNING' && res.body?.tasks?.[0]?.state === 'RUNNING',
      30_000,
      'the connector and its task RUNNING',
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${logs.slice(-20).join('\n')}`);
    });
    const listed = await http('GET', '/connector-plugins');
    // Assess
    expect(created.status).toBe(201);
    expect(status.body.type).toBe('source');
    expect(listed.body).toContainEqual({
      class: ACME_SOURCE_CLASS,
      type: 'source',
      version: ACME_VERSION,
    });
  });

  it('stops npm start before anything starts when a plugin module throws on load', async () => {
    // Prepare
    const dataDir = await mkdtemp(join(tmpdir(), 'plugins-'));
    try {
      // Act
      const exit = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        // npm start's command: node --import tsx local/main.ts
        execFile(
          process.execPath,
          [
            '--import',
            'tsx',
            'local/main.ts',
            '--data-dir',
            dataDir,
            '--port',
            '0',
            '--s3-port',
            '0',
          ],
          {
            env: {
              ...process.env,
              KAFKA_BROKERS: inject('kafkaBrokers').join(','),
              CONNECT_PLUGINS: `${fixtures}/throws-on-load.ts`,
            },
          },
          (error, _stdout, stderr) =>
            resolve({ code: error === null ? 0 : (error.code as number), stderr }),
        );
      });
      // Assess
      expect(exit.code).toBe(1);
      // The message is the last word: nothing was started, so nothing was stopped.
      expect(exit.stderr.trim().split('\n').at(-1)).toBe(
        `Plugin module ${fixtures}/throws-on-load.ts could not be loaded: acme license key missing`,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
