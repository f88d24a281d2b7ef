/**
 * The HTTP sink plugin package: `npm start -- --plugins examples/http-sink/src/index.ts` loads
 * it; the CDK construct's `plugins` prop bundles it. It imports nothing but the plugin API,
 * `serverless-connect/connect`.
 */
import type { PluginModule } from 'serverless-connect/connect';
import { HTTP_SINK_VERSION } from './http-sink-config.js';
import { HttpSinkConnector } from './http-sink-connector.js';

export { type HttpSinkDeps, systemHttpSinkDeps } from './http-client.js';
export * from './http-sink-config.js';
export { HttpSinkConnector } from './http-sink-connector.js';
export { HttpSinkTask, idempotencyKey } from './http-sink-task.js';

/** The connector's class name, as `connector.class` and `GET /connector-plugins` name it. */
export const HTTP_SINK_CLASS = 'com.example.http.HttpSinkConnector';

export const plugins: PluginModule['plugins'] = [
  {
    className: HTTP_SINK_CLASS,
    aliases: ['http-sink', 'HttpSinkConnector'],
    type: 'sink',
    version: HTTP_SINK_VERSION,
    create: () => new HttpSinkConnector(),
  },
];
