/**
 * The OpenAPI 3.1 description of the REST API, served at `GET /openapi.json`. Hand-written;
 * a unit test checks that its paths and methods are exactly the router's.
 */
import { CONNECT_VERSION, SERVERLESS_CONNECT_VERSION } from './connect-service.js';
import { costPath, costSchemas } from './openapi-cost.js';
import { parameters, schemas } from './openapi-schemas.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });
const param = (name: string) => ({ $ref: `#/components/parameters/${name}` });

const error = (description: string) => ({ description, content: json(ref('ErrorMessage')) });
const E400 = error('Bad request: malformed JSON, wrong types, invalid config');
const E404 = error('Not found');
const E409 = error('Conflict: the name exists, or a concurrent change won');
const ok = (schema: unknown, description = 'OK') => ({ description, content: json(schema) });
const noBody = (description: string) => ({ description });
const body = (schema: unknown, required = true) => ({ required, content: json(schema) });

const connectorPath = (extra: Record<string, unknown>) => ({
  parameters: [param('connector')],
  ...extra,
});

const boolQuery = (name: string, fallback: boolean, description: string) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'boolean', default: fallback },
});

/** The OpenAPI document (`GET /openapi.json`). */
export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'serverless-connect: Kafka Connect REST API',
    version: SERVERLESS_CONNECT_VERSION,
    description: `Wire-compatible with the Apache Kafka Connect ${CONNECT_VERSION} REST API. Every error body is an ErrorMessage whose error_code equals the HTTP status. Operations and schemas marked x-serverless-connect-extension (GET /connectors/{connector}/cost, expand=cost) are ours, not Apache Kafka Connect's.`,
  },
  paths: {
    '/': { get: { summary: 'Server info', responses: { 200: ok(ref('ServerInfo')) } } },
    '/health': {
      get: {
        summary: 'Health',
        responses: {
          200: ok(ref('WorkerStatus')),
          500: error('Unhealthy (the body is also a WorkerStatus)'),
        },
      },
    },
    '/openapi.json': {
      get: { summary: 'This description', responses: { 200: ok({ type: 'object' }) } },
    },
    '/connectors': {
      get: {
        summary: 'List connectors',
        parameters: [
          {
            name: 'expand',
            in: 'query',
            required: false,
            style: 'form',
            explode: true,
            description:
              'status and info as in Apache Kafka Connect; cost is a serverless-connect extension',
            schema: {
              type: 'array',
              items: { type: 'string', enum: ['status', 'info', 'cost'] },
            },
          },
        ],
        responses: {
          200: ok({
            oneOf: [
              { type: 'array', items: { type: 'string' } },
              { type: 'object', additionalProperties: ref('ConnectorExpansion') },
            ],
          }),
        },
      },
      post: {
        summary: 'Create a connector',
        requestBody: body(ref('CreateConnectorRequest')),
        responses: {
          201: ok(ref('ConnectorInfo'), 'Created; Location names the connector'),
          400: E400,
          409: E409,
          413: error('Body or config too large'),
          415: error('Not JSON'),
        },
      },
    },
    '/connectors/{connector}': connectorPath({
      get: { summary: 'Connector info', responses: { 200: ok(ref('ConnectorInfo')), 404: E404 } },
      delete: {
        summary: 'Delete a connector (its offsets are kept)',
        responses: { 204: noBody('Deleted'), 404: E404 },
      },
    }),
    '/connectors/{connector}/config': connectorPath({
      get: { summary: 'Connector config', responses: { 200: ok(ref('ConfigMap')), 404: E404 } },
      put: {
        summary: 'Create or replace the config',
        requestBody: body(ref('ConfigInput')),
        responses: {
          200: ok(ref('ConnectorInfo'), 'Updated'),
          201: ok(ref('ConnectorInfo'), 'Created'),
          400: E400,
          409: E409,
        },
      },
      patch: {
        summary: 'Merge into the config (null removes a key)',
        requestBody: body(ref('ConfigInput')),
        responses: { 200: ok(ref('ConnectorInfo')), 400: E400, 404: E404 },
      },
    }),
    '/connectors/{connector}/status': connectorPath({
      get: { summary: 'Status', responses: { 200: ok(ref('ConnectorStateInfo')), 404: E404 } },
    }),
    '/connectors/{connector}/tasks': connectorPath({
      get: {
        summary: 'Task configs',
        responses: { 200: ok({ type: 'array', items: ref('TaskInfo') }), 404: E404 },
      },
    }),
    '/connectors/{connector}/tasks-config': connectorPath({
      get: {
        summary: 'Task configs by task id (deprecated in Kafka 3.7)',
        deprecated: true,
        responses: {
          200: ok({ type: 'object', additionalProperties: ref('ConfigMap') }),
          404: E404,
        },
      },
    }),
    '/connectors/{connector}/tasks/{task}/status': {
      parameters: [param('connector'), param('task')],
      get: { summary: 'Task status', responses: { 200: ok(ref('TaskState')), 404: E404 } },
    },
    '/connectors/{connector}/tasks/{task}/restart': {
      parameters: [param('connector'), param('task')],
      post: { summary: 'Restart a task', responses: { 204: noBody('Requested'), 404: E404 } },
    },
    '/connectors/{connector}/restart': connectorPath({
      post: {
        summary: 'Restart a connector and optionally its tasks (KIP-745)',
        parameters: [
          boolQuery('includeTasks', false, 'Restart the tasks too'),
          boolQuery('onlyFailed', false, 'Restart only FAILED instances'),
        ],
        responses: {
          202: ok(ref('ConnectorStateInfo'), 'Accepted; planned instances are RESTARTING'),
          204: noBody('Connector restart requested'),
          404: E404,
        },
      },
    }),
    '/connectors/{connector}/pause': connectorPath({
      put: { summary: 'Pause', responses: { 202: noBody('Accepted'), 404: E404, 409: E409 } },
    }),
    '/connectors/{connector}/resume': connectorPath({
      put: { summary: 'Resume', responses: { 202: noBody('Accepted'), 404: E404 } },
    }),
    '/connectors/{connector}/stop': connectorPath({
      put: { summary: 'Stop (KIP-875)', responses: { 204: noBody('Stopped'), 404: E404 } },
    }),
    '/connectors/{connector}/offsets': connectorPath({
      get: { summary: 'Offsets', responses: { 200: ok(ref('ConnectorOffsets')), 404: E404 } },
      patch: {
        summary: 'Alter offsets of a STOPPED connector',
        requestBody: body(ref('ConnectorOffsets')),
        responses: {
          200: ok(ref('Message')),
          400: E400,
          404: E404,
          409: error(
            "Conflict: a concurrent change won, or a stopped source connector's old tasks are still being fenced",
          ),
        },
      },
      delete: {
        summary: 'Reset offsets of a STOPPED connector',
        responses: {
          200: ok(ref('Message')),
          400: E400,
          404: E404,
          409: error(
            "Conflict: a concurrent change won, or a stopped source connector's old tasks are still being fenced",
          ),
        },
      },
    }),
    '/connectors/{connector}/topics': connectorPath({
      get: {
        summary: 'Active topics (KIP-558)',
        responses: {
          200: ok({
            type: 'object',
            additionalProperties: {
              type: 'object',
              properties: { topics: { type: 'array', items: { type: 'string' } } },
            },
          }),
          403: error('Topic tracking disabled'),
        },
      },
    }),
    '/connectors/{connector}/topics/reset': connectorPath({
      put: {
        summary: 'Forget active topics',
        responses: {
          202: noBody('Accepted'),
          403: error('Topic tracking reset disabled'),
          409: error('The connector is not STOPPED (stop it first)'),
        },
      },
    }),
    '/connectors/{connector}/cost': costPath({ connectorPath, ok, notFound: E404 }),
    '/connector-plugins': {
      get: {
        summary: 'Installed plugins',
        parameters: [boolQuery('connectorsOnly', true, 'Only source and sink connectors')],
        responses: { 200: ok({ type: 'array', items: ref('PluginInfo') }) },
      },
    },
    '/connector-plugins/{plugin}/config': {
      parameters: [param('plugin')],
      get: {
        summary: "A plugin's config definition",
        responses: { 200: ok({ type: 'array', items: ref('ConfigKeyInfo') }), 404: E404 },
      },
    },
    '/connector-plugins/{plugin}/config/validate': {
      parameters: [param('plugin')],
      put: {
        summary: 'Validate a connector config',
        requestBody: body(ref('ConfigInput')),
        responses: { 200: ok(ref('ConfigInfos')), 400: E400 },
      },
    },
    '/admin/loggers': {
      get: {
        summary: 'Logger levels',
        responses: { 200: ok({ type: 'object', additionalProperties: ref('LoggerLevel') }) },
      },
    },
    '/admin/loggers/{logger}': {
      parameters: [param('logger')],
      get: { summary: 'A logger level', responses: { 200: ok(ref('LoggerLevel')), 404: E404 } },
      put: {
        summary: 'Set a logger level (and of the loggers below it)',
        parameters: [
          {
            name: 'scope',
            in: 'query',
            required: false,
            schema: { type: 'string', enum: ['worker', 'cluster'], default: 'worker' },
          },
        ],
        requestBody: body(ref('LoggerLevelRequest')),
        responses: {
          200: ok({ type: 'array', items: { type: 'string' } }, 'Worker scope: affected loggers'),
          204: noBody('Cluster scope'),
          400: E400,
          404: error('Unknown level'),
        },
      },
    },
  },
  components: { schemas: { ...schemas, ...costSchemas }, parameters },
} as const;
