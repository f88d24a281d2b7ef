import { describe, expect, it } from 'vitest';
import { jsonLogger } from '../../../../../shared/adapters/logging/json-logger.js';
import {
  addLogContext,
  currentLogContext,
  withLogContext,
} from '../../../../../shared/adapters/logging/log-context.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('log context', () => {
  it('puts the invocation fields on every line a JSON logger writes inside it, even one built before', async () => {
    // Prepare
    const lines: string[] = [];
    const logger = jsonLogger('info', { logger: 'serverless-connect.sink' }, (l) => lines.push(l));
    // Act
    await withLogContext({ function: 'sink-task', awsRequestId: 'req-1' }, async () => {
      await tick();
      addLogContext({ connector: 'orders' });
      logger.info('batch written', { records: 3 });
    });
    logger.info('outside');
    // Assess
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({
        message: 'batch written',
        function: 'sink-task',
        awsRequestId: 'req-1',
        connector: 'orders',
        records: 3,
      }),
      expect.not.objectContaining({ awsRequestId: expect.anything() }),
    ]);
  });

  it('keeps the fields of invocations running at once apart', async () => {
    // Act
    const seen = await Promise.all(
      ['req-a', 'req-b', 'req-c'].map((requestId) =>
        withLogContext({ requestId }, async () => {
          await tick();
          addLogContext({ task: requestId.slice(-1) });
          await tick();
          return currentLogContext();
        }),
      ),
    );
    // Assess
    expect(seen).toEqual([
      { requestId: 'req-a', task: 'a' },
      { requestId: 'req-b', task: 'b' },
      { requestId: 'req-c', task: 'c' },
    ]);
    expect(currentLogContext()).toEqual({});
  });

  it('lets the logger’s own fields win over the invocation’s', () => {
    // Prepare
    const lines: string[] = [];
    const logger = jsonLogger('info', { connector: 'from-logger' }, (l) => lines.push(l));
    // Act
    withLogContext({ connector: 'from-invocation', requestId: 'r' }, () => logger.info('x'));
    // Assess
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ connector: 'from-logger', requestId: 'r' });
  });
});
