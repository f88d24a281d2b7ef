import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  type ApiRequest,
  type ApiResponse,
  applyConnectorEvent,
  CREATE_FAILED,
} from '../../../../functions/connector-resource/connector-requests.js';
import { CONFIG, common, createEvent, deleteEvent, props, updateEvent } from './cfn-events.js';

/** A control plane answering each request with the next of `answers`, recording the requests. */
function fakeApi(...answers: ApiResponse[]) {
  const requests: ApiRequest[] = [];
  const api = async (request: ApiRequest) => {
    requests.push(request);
    const answer = answers.shift();
    if (answer === undefined) throw new Error(`unexpected ${request.method} ${request.path}`);
    return answer;
  };
  return { api, requests };
}

const answer = (status: number, body: unknown = '') => ({
  status,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('applyConnectorEvent', () => {
  it('creates the connector with its initial state and names it as the physical id', async () => {
    // Prepare
    const { api, requests } = fakeApi(answer(201, { name: 'orders' }));
    // Act
    const outcome = await applyConnectorEvent(createEvent('orders', 'PAUSED'), api);
    // Assess
    expect(requests).toEqual([
      {
        method: 'POST',
        path: '/connectors',
        body: { name: 'orders', config: CONFIG, initial_state: 'PAUSED' },
      },
    ]);
    expect(outcome).toEqual({
      status: 'SUCCESS',
      physicalResourceId: 'orders',
      data: { Name: 'orders' },
    });
  });

  it("fails a create with Connect's validation message, under an id its rollback never deletes", async () => {
    // Prepare
    const message =
      'Connector configuration is invalid and contains the following 1 error(s):\nMissing required configuration "kafka.topic" which has no default value.';
    const { api } = fakeApi(answer(400, { error_code: 400, message }));
    // Act
    const outcome = await applyConnectorEvent(createEvent('orders'), api);
    const rollback = await applyConnectorEvent(deleteEvent(CREATE_FAILED), fakeApi().api);
    // Assess
    expect(outcome).toEqual({
      status: 'FAILED',
      physicalResourceId: CREATE_FAILED,
      reason: `Kafka Connect REST API answered 400 to POST /connectors: ${message}`,
    });
    expect(rollback.status).toBe('SUCCESS');
  });

  it('fails a create whose name is taken rather than adopting that connector', async () => {
    const { api } = fakeApi(
      answer(409, { error_code: 409, message: 'Connector orders already exists' }),
    );
    const outcome = await applyConnectorEvent(createEvent('orders'), api);
    expect(outcome).toMatchObject({ status: 'FAILED', physicalResourceId: CREATE_FAILED });
    expect(outcome.status === 'FAILED' && outcome.reason).toMatch(/409.*already exists/);
  });

  it('puts a changed config and keeps the physical id', async () => {
    // Prepare
    const changed = { ...CONFIG, 'rate.per.second': '10' };
    const { api, requests } = fakeApi(answer(200, {}));
    // Act
    const outcome = await applyConnectorEvent(
      updateEvent('orders', props('orders', changed), props('orders')),
      api,
    );
    // Assess
    expect(requests).toEqual([{ method: 'PUT', path: '/connectors/orders/config', body: changed }]);
    expect(outcome).toMatchObject({ status: 'SUCCESS', physicalResourceId: 'orders' });
  });

  it('calls nothing when only the initial state changed: it applies on create only', async () => {
    const { api, requests } = fakeApi();
    const outcome = await applyConnectorEvent(
      updateEvent('orders', props('orders', CONFIG, 'STOPPED'), props('orders')),
      api,
    );
    expect(requests).toEqual([]);
    expect(outcome).toMatchObject({ status: 'SUCCESS', physicalResourceId: 'orders' });
  });

  it('fails a refused update under the unchanged physical id', async () => {
    const { api } = fakeApi(answer(400, { error_code: 400, message: 'bad value' }));
    const outcome = await applyConnectorEvent(
      updateEvent('orders', props('orders', { ...CONFIG, 'tasks.max': '0' }), props('orders')),
      api,
    );
    expect(outcome).toEqual({
      status: 'FAILED',
      physicalResourceId: 'orders',
      reason: 'Kafka Connect REST API answered 400 to PUT /connectors/orders/config: bad value',
    });
  });

  it('creates the connector under a new name and reports it as the new physical id', async () => {
    const { api, requests } = fakeApi(answer(201, {}));
    const outcome = await applyConnectorEvent(
      updateEvent('orders', props('orders-v2'), props('orders')),
      api,
    );
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /connectors']);
    expect(outcome).toMatchObject({ status: 'SUCCESS', physicalResourceId: 'orders-v2' });
  });

  it('rolls a rename back by putting the old config on the connector that still exists', async () => {
    // Prepare: the rollback of orders → orders-v2 asks for orders again.
    const { api, requests } = fakeApi(
      answer(409, { error_code: 409, message: 'Connector orders already exists' }),
      answer(200, {}),
    );
    // Act
    const outcome = await applyConnectorEvent(
      updateEvent('orders-v2', props('orders'), props('orders-v2')),
      api,
    );
    // Assess
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /connectors',
      'PUT /connectors/orders/config',
    ]);
    expect(outcome).toMatchObject({ status: 'SUCCESS', physicalResourceId: 'orders' });
  });

  it('deletes the connector, percent-encoding its name, and takes a 404 as done', async () => {
    const { api, requests } = fakeApi(
      answer(204),
      answer(404, { error_code: 404, message: 'gone' }),
    );
    const first = await applyConnectorEvent(deleteEvent('team/orders'), api);
    const second = await applyConnectorEvent(deleteEvent('team/orders'), api);
    expect(requests).toEqual([
      { method: 'DELETE', path: '/connectors/team%2Forders' },
      { method: 'DELETE', path: '/connectors/team%2Forders' },
    ]);
    expect([first.status, second.status]).toEqual(['SUCCESS', 'SUCCESS']);
  });

  it('fails a delete the API refuses, and any request whose call throws', async () => {
    const refused = await applyConnectorEvent(
      deleteEvent('orders'),
      fakeApi(answer(500, { error_code: 500, message: 'Request failed.' })).api,
    );
    const thrown = await applyConnectorEvent(createEvent('orders'), async () => {
      throw new Error('the api function failed (Unhandled) on POST /connectors: boom');
    });
    expect(refused).toMatchObject({ status: 'FAILED', physicalResourceId: 'orders' });
    expect(thrown).toEqual({
      status: 'FAILED',
      physicalResourceId: CREATE_FAILED,
      reason: 'the api function failed (Unhandled) on POST /connectors: boom',
    });
  });

  it('refuses malformed properties before calling anything', async () => {
    const { api, requests } = fakeApi();
    const event = {
      ...common,
      RequestType: 'Create',
      ResourceProperties: { ...props('orders'), InitialState: 'SLEEPING' },
    } as CloudFormationCustomResourceEvent;
    const outcome = await applyConnectorEvent(event, api);
    expect(requests).toEqual([]);
    expect(outcome.status === 'FAILED' && outcome.reason).toBe(
      'InitialState must be one of RUNNING, PAUSED, STOPPED (got SLEEPING)',
    );
  });
});
