import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localLambdaContext } from '../../../local/esm/lambda-context.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { proxyEvent } from '../../support/lambda-function.js';
import { testDynamo, uniqueName } from '../../support/services.js';

/** The value of AWS_SECRET_ACCESS_KEY here: it must never come back. */
const SECRET_PROBE = 'sc-lambda-secret-probe';

/** A Lambda context of the API function. */
const apiContext = () => localLambdaContext({ functionName: 'api', timeoutMs: 29_000 });

/** The Lambda entry point, composed from the environment as in AWS, against dynalite. */
describe('functions/api handler', () => {
  const table = uniqueName('api');
  let handler: typeof import('../../../functions/api/handler.js');
  let compose: typeof import('../../../functions/_compose.js');

  beforeAll(async () => {
    await ensureTable(testDynamo(), table);
    Object.assign(process.env, {
      STATE_TABLE: table,
      KAFKA_BROKERS: inject('kafkaBrokers').join(','),
      DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
      AWS_ACCESS_KEY_ID: 'local',
      // Stands for the role's credentials Lambda puts in the environment.
      AWS_SECRET_ACCESS_KEY: SECRET_PROBE,
      // The operator allows every variable: Lambda's reserved ones stay refused.
      CONFIG_PROVIDERS_ENV_PARAM_ALLOWLIST_PATTERN: '.*',
      SC_PROBE_TOPIC: 'probe-topic',
      AWS_REGION: 'us-east-1',
      LOG_LEVEL: 'error',
      KAFKA_CLUSTER_ID: 'lambda-cluster',
    });
    compose = await import('../../../functions/_compose.js');
    handler = await import('../../../functions/api/handler.js');
  });

  afterAll(async () => {
    await compose.composition().close();
  });

  it('answers GET / with the cluster id from the environment', async () => {
    // Act
    const result = await handler.handler(proxyEvent('GET', '/'), apiContext());
    // Assess
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body).kafka_cluster_id).toBe('lambda-cluster');
  });

  it('creates a connector named with "/" and reads its status through the stage path', async () => {
    // Prepare
    const name = `${uniqueName('team')}/orders`;
    const path = `/connectors/${encodeURIComponent(name)}`;
    // Act
    const created = await handler.handler(
      proxyEvent('POST', '/connectors', {
        name,
        config: { 'connector.class': 'datagen', 'kafka.topic': 'orders' },
      }),
      apiContext(),
    );
    const status = await handler.handler(proxyEvent('GET', `${path}/status`), apiContext());
    // Assess
    expect(created.statusCode).toBe(201);
    expect(created.headers?.Location).toBe(path);
    expect(status.statusCode).toBe(200);
    expect(JSON.parse(status.body)).toMatchObject({
      name,
      connector: { state: 'UNASSIGNED' },
      type: 'source',
    });
  });

  it('answers bad input with a 400 error body and the request id header', async () => {
    // Act
    const result = await handler.handler(
      proxyEvent('POST', '/connectors', '{not json'),
      apiContext(),
    );
    // Assess
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body).error_code).toBe(400);
    expect(result.headers?.['X-Request-Id']).toMatch(/^req-/);
  });

  it('refuses a placeholder of AWS_* with a 400 naming the key, even when the allowlist is .*', async () => {
    // Prepare
    const name = uniqueName('leak');
    const config = {
      'connector.class': 'datagen',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a config provider placeholder
      'kafka.topic': 'leak-${env:AWS_SECRET_ACCESS_KEY}',
    };
    // Act
    const put = await handler.handler(
      proxyEvent('PUT', `/connectors/${name}/config`, config),
      apiContext(),
    );
    const read = await handler.handler(proxyEvent('GET', `/connectors/${name}`), apiContext());
    // Assess
    expect(put.statusCode).toBe(400);
    const { error_code, message } = JSON.parse(put.body);
    expect(error_code).toBe(400);
    expect(message).toContain('contains the following 1 error(s)');
    expect(message).toContain(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a config provider placeholder
      "Config provider 'env' refuses ${env:AWS_SECRET_ACCESS_KEY} in configuration kafka.topic: environment variable AWS_SECRET_ACCESS_KEY is reserved by AWS Lambda",
    );
    expect(put.body).not.toContain(SECRET_PROBE);
    expect(read.statusCode).toBe(404);
  });

  it('reports the refusal on the field in config/validate, and lets allowed variables pass', async () => {
    // Prepare
    const config = (topic: string) => ({
      name: 'probe',
      'connector.class': 'datagen',
      'kafka.topic': topic,
    });
    // Act
    const refused = await handler.handler(
      proxyEvent(
        'PUT',
        '/connector-plugins/datagen/config/validate',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a config provider placeholder
        config('${env:_HANDLER}'),
      ),
      apiContext(),
    );
    const allowed = await handler.handler(
      proxyEvent(
        'PUT',
        '/connector-plugins/datagen/config/validate',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a config provider placeholder
        config('${env:SC_PROBE_TOPIC}'),
      ),
      apiContext(),
    );
    // Assess
    expect(refused.statusCode).toBe(200);
    const infos = JSON.parse(refused.body);
    expect(infos.error_count).toBe(1);
    const field = infos.configs.find(
      (c: { value: { name: string } | null }) => c.value?.name === 'kafka.topic',
    );
    expect(field.value.errors).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a config provider placeholder
      "Config provider 'env' refuses ${env:_HANDLER} in configuration kafka.topic: environment variable _HANDLER is reserved by AWS Lambda (the function’s credentials and the runtime’s own variables) and never readable by connector configs",
    ]);
    expect(JSON.parse(allowed.body).error_count).toBe(0);
  });
});
