/**
 * The OpenAPI description of our own extension, `GET /connectors/{connector}/cost` and
 * `expand=cost` (cost-report.ts): not part of Apache Kafka Connect's REST API, marked so in the
 * document (`x-serverless-connect-extension` and the descriptions).
 */

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const dollars = { type: 'number', description: 'US dollars' };
const count = { type: 'number', minimum: 0 };

/** What marks an operation or schema as ours, not Apache Kafka Connect's. */
export const EXTENSION_MARK = {
  'x-serverless-connect-extension': true,
} as const;

const NOT_APACHE = 'serverless-connect extension, not part of the Apache Kafka Connect REST API.';

export const costSchemas = {
  CostLines: {
    type: 'object',
    description: 'Dollars by resource line.',
    required: ['lambda_compute', 'lambda_requests', 'dynamodb', 's3', 'api_gateway'],
    properties: {
      lambda_compute: dollars,
      lambda_requests: dollars,
      dynamodb: dollars,
      s3: dollars,
      api_gateway: dollars,
    },
  },
  CostUsage: {
    type: 'object',
    description: 'What the window counts, in the units the lines are priced in.',
    properties: {
      invocations: count,
      lambda_gb_seconds: count,
      dynamodb_read_units: count,
      dynamodb_write_units: count,
      dynamodb_requests: count,
      s3_tier1_requests: count,
      s3_tier2_requests: count,
      api_calls: count,
    },
  },
  CostWindow: {
    type: 'object',
    required: ['from', 'to', 'hours', 'lines', 'total_dollars', 'records'],
    properties: {
      from: { type: 'string', format: 'date-time' },
      to: { type: 'string', format: 'date-time' },
      hours: count,
      usage: ref('CostUsage'),
      lines: ref('CostLines'),
      total_dollars: dollars,
      shared_dollars: {
        ...dollars,
        description: "The part of total_dollars that is the connector's share of the shared line",
      },
      records: {
        type: 'object',
        properties: { in: count, out: count, moved: count },
      },
      bytes: { type: 'object', properties: { in: count, out: count } },
      dollars_per_million_records: { type: ['number', 'null'] },
      msk_connect: {
        type: 'object',
        description: 'MSK Connect over the same hours: at least one worker of one MCU',
        properties: { mcus: { type: 'integer', minimum: 1 }, dollars },
      },
    },
  },
  ConnectorCost: {
    type: 'object',
    description: `What a connector cost, from the metering (docs/rest-api.md). ${NOT_APACHE}`,
    ...EXTENSION_MARK,
    required: ['name', 'currency', 'month_to_date', 'last_24_hours', 'projected_month', 'prices'],
    properties: {
      name: { type: 'string' },
      currency: { type: 'string', enum: ['USD'] },
      as_of: { type: 'string', format: 'date-time' },
      month_to_date: ref('CostWindow'),
      last_24_hours: ref('CostWindow'),
      projected_month: {
        type: 'object',
        properties: {
          total_dollars: dollars,
          msk_connect_dollars: dollars,
          basis: { type: 'string' },
        },
      },
      shared: {
        type: 'object',
        properties: { connectors: { type: 'integer' }, basis: { type: 'string' } },
      },
      prices: {
        type: 'object',
        description: 'The price table used (COST_PRICES overrides the us-east-1 defaults)',
        additionalProperties: { type: ['number', 'string'] },
      },
    },
  },
} as const;

/** `GET /connectors/{connector}/cost`, given the document's helpers. */
export function costPath<TPath, TResponse>(helpers: {
  readonly connectorPath: (extra: Record<string, unknown>) => TPath;
  readonly ok: (schema: unknown) => TResponse;
  readonly notFound: TResponse;
}): TPath {
  return helpers.connectorPath({
    get: {
      summary: 'What the connector cost (serverless-connect extension)',
      description: `Month to date, the last 24 hours and the projected month, by resource line, with MSK Connect for comparison. ${NOT_APACHE}`,
      ...EXTENSION_MARK,
      responses: { 200: helpers.ok(ref('ConnectorCost')), 404: helpers.notFound },
    },
  });
}
