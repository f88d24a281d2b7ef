/** `GET /connectors/{c}/topics` and `PUT /connectors/{c}/topics/reset` (KIP-558). */
import { describe, expect, it } from 'vitest';
import { call, connectorPath, runTasks, sourceConfig, testApi } from './fixtures.js';

/** A source connector `name` with one running task and the active topic `orders`. */
async function runningWithTopic(api: ReturnType<typeof testApi>, name: string) {
  await call(api.router, 'POST', '/connectors', { body: { name, config: sourceConfig() } });
  await runTasks(api.store, name, 1);
  await api.store.topics.recordActiveTopic(name, 'orders');
}

describe('ConnectorsApi: active topics', () => {
  it.each(['RUNNING', 'PAUSED'])(
    'refuses the reset with 409 while %s and keeps the topics',
    async (state) => {
      // Prepare
      const api = testApi();
      await runningWithTopic(api, 'src');
      if (state === 'PAUSED') await call(api.router, 'PUT', connectorPath('src', '/pause'));
      // Act
      const reset = await call(api.router, 'PUT', connectorPath('src', '/topics/reset'));
      const topics = await call(api.router, 'GET', connectorPath('src', '/topics'));
      // Assess
      expect(reset.status).toBe(409);
      expect(reset.body).toEqual({
        error_code: 409,
        message: `Connector src is ${state}: its active topics can be reset only while it is STOPPED. Stop it first with a 'PUT' request to the '/connectors/src/stop' endpoint`,
      });
      expect(topics.body).toEqual({ src: { topics: ['orders'] } });
    },
  );

  it('resets a STOPPED connector with 202: the topics list is empty afterwards', async () => {
    // Prepare
    const api = testApi();
    await runningWithTopic(api, 'src');
    await call(api.router, 'PUT', connectorPath('src', '/stop'));
    // Act
    const reset = await call(api.router, 'PUT', connectorPath('src', '/topics/reset'));
    const topics = await call(api.router, 'GET', connectorPath('src', '/topics'));
    // Assess
    expect(reset.status).toBe(202);
    expect(reset.body).toBeUndefined();
    expect(topics.body).toEqual({ src: { topics: [] } });
  });

  it('refuses the reset with 409 while a STOPPED connector still has task configs', async () => {
    // Prepare: the target changed, the task configs not removed yet
    const api = testApi();
    await runningWithTopic(api, 'src');
    await api.store.configs.setTargetState('src', 'STOPPED');
    // Act
    const reset = await call(api.router, 'PUT', connectorPath('src', '/topics/reset'));
    // Assess
    expect(reset.status).toBe(409);
    expect(reset.body.message).toMatch(/^Connector src is still stopping its tasks; retry/);
    expect(await api.store.topics.listActiveTopics('src')).toEqual(['orders']);
  });

  it('resets an unknown connector with 202, as Kafka Connect does', async () => {
    // Prepare
    const api = testApi();
    // Act
    const reset = await call(api.router, 'PUT', connectorPath('ghost', '/topics/reset'));
    // Assess
    expect(reset.status).toBe(202);
  });

  it('answers 403 before looking at the state when tracking or its reset is disabled', async () => {
    // Prepare
    const disabled = testApi(undefined, { topicTracking: { enabled: false, allowReset: true } });
    const noReset = testApi(undefined, { topicTracking: { enabled: true, allowReset: false } });
    await runningWithTopic(noReset, 'src');
    // Act
    const reset = await call(disabled.router, 'PUT', connectorPath('src', '/topics/reset'));
    const refused = await call(noReset.router, 'PUT', connectorPath('src', '/topics/reset'));
    const listed = await call(noReset.router, 'GET', connectorPath('src', '/topics'));
    // Assess
    expect(reset.status).toBe(403);
    expect(reset.body.message).toBe('Topic tracking is disabled.');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Topic tracking reset is disabled.');
    expect(listed.body).toEqual({ src: { topics: ['orders'] } });
  });

  it('forgets the topics of a deleted connector, so a new one by that name starts with none', async () => {
    // Prepare
    const api = testApi();
    await runningWithTopic(api, 'src');
    // Act
    const deleted = await call(api.router, 'DELETE', connectorPath('src'));
    await call(api.router, 'POST', '/connectors', {
      body: { name: 'src', config: sourceConfig() },
    });
    const topics = await call(api.router, 'GET', connectorPath('src', '/topics'));
    // Assess
    expect(deleted.status).toBe(204);
    expect(topics.body).toEqual({ src: { topics: [] } });
  });
});
