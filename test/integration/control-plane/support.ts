/**
 * The REST API as the contract tests see it: the local HTTP server over the DynamoDB state
 * store on dynalite (a table per test file), with the built-in plugins and the test sink.
 */

import { apiHandler } from '../../../functions/api/handler.js';
import { type ApiServerAuth, startApiServer } from '../../../local/api-server.js';
import type { TopicTrackingOptions } from '../../../shared/control-plane/connectors.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { testEngine } from '../../support/engine.js';
import { testPlugins } from '../../support/plugin-modules.js';
import { RecordingTrigger, testSinkDescriptor } from '../../unit/shared/control-plane/fixtures.js';

export interface HttpResult {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
  readonly body: any;
}

export interface TestServer {
  readonly url: string;
  readonly store: StateStore;
  readonly trigger: RecordingTrigger;
  http(
    method: string,
    path: string,
    options?: { readonly body?: unknown; readonly headers?: Record<string, string> },
  ): Promise<HttpResult>;
  close(): Promise<void>;
}

/**
 * Starts the local API server with the API function's handler over an engine of its own (a
 * fresh dynalite table, the built-in plugins and the test sink).
 */
export async function startTestServer(
  options: { readonly auth?: ApiServerAuth; readonly topicTracking?: TopicTrackingOptions } = {},
): Promise<TestServer> {
  const trigger = new RecordingTrigger();
  const { engine, store, close } = await testEngine({
    pluginModules: testPlugins(testSinkDescriptor),
    reconcile: trigger,
    settings: {
      topicTracking: {
        enabled: options.topicTracking?.enabled ?? true,
        allowReset: options.topicTracking?.allowReset ?? true,
      },
    },
  });
  const server = await startApiServer({
    host: '127.0.0.1',
    port: 0,
    handler: apiHandler(() => engine),
    ...(options.auth === undefined ? {} : { auth: options.auth }),
  });
  return {
    url: server.url,
    store,
    trigger,
    async http(method, path, options = {}) {
      const body =
        options.body === undefined
          ? undefined
          : typeof options.body === 'string'
            ? options.body
            : JSON.stringify(options.body);
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...options.headers,
        },
        ...(body === undefined ? {} : { body }),
      });
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        text,
        body: text === '' ? undefined : JSON.parse(text),
      };
    },
    async close() {
      await server.close();
      await close();
    },
  };
}
