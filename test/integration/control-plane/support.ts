/**
 * The REST API as the contract tests see it: the local HTTP server over the DynamoDB state
 * store on dynalite (a table per test file), with the built-in plugins and the test sink.
 */

import { type ApiServerAuth, startApiServer } from '../../../local/api-server.js';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import type { ConnectServiceOptions } from '../../../shared/control-plane/connect-service.js';
import { builtinRegistry } from '../../../shared/plugins/registry.js';
import { systemClock } from '../../../shared/ports/clock.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { testDynamo, uniqueName } from '../../support/services.js';
import {
  RecordingLogger,
  RecordingTrigger,
  testSinkDescriptor,
} from '../../unit/shared/control-plane/fixtures.js';

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

/** Starts the local API server over a fresh dynalite table. */
export async function startTestServer(
  options: Partial<ConnectServiceOptions> & { readonly auth?: ApiServerAuth } = {},
): Promise<TestServer> {
  const client = testDynamo();
  const tableName = uniqueName('rest');
  await ensureTable(client, tableName);
  const store = createDynamoDbStateStore({ client, tableName });
  const trigger = new RecordingTrigger();
  const { auth, ...service } = options;
  const server = await startApiServer({
    host: '127.0.0.1',
    port: 0,
    deps: {
      store,
      plugins: builtinRegistry([testSinkDescriptor]),
      reconcile: trigger,
      clock: systemClock,
      logger: new RecordingLogger(),
    },
    service: { kafkaClusterId: 'it-cluster', ...service },
    ...(auth === undefined ? {} : { auth }),
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
      client.destroy();
    },
  };
}
