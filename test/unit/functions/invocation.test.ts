import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  inLogContext,
  invocation,
  invocationOf,
} from '../../../functions/_middleware/invocation.js';
import { LoggerLevels } from '../../../shared/adapters/logging/logger-levels.js';
import { createMemoryStateStore } from '../../../shared/adapters/memory/memory-state-store.js';
import { LOGGERS } from '../../../shared/ports/logger.js';

function lambdaContext(awsRequestId: string): Context {
  return {
    functionName: 'sink-task',
    awsRequestId,
    getRemainingTimeInMillis: () => 60_000,
  } as Context;
}

/** A handler that logs one debug line through a logger built before any invocation. */
function setup(options: { failReads?: boolean } = {}) {
  const store = createMemoryStateStore();
  const clock = { now: 0 };
  const lines: Record<string, unknown>[] = [];
  const levels = new LoggerLevels(
    {
      listLoggerLevels: async () => {
        if (options.failReads === true) throw new Error('DynamoDB unavailable');
        return store.loggers.listLoggerLevels();
      },
    },
    {
      fallback: 'info',
      refreshEveryMs: 30_000,
      now: () => clock.now,
      write: (line) => lines.push(JSON.parse(line)),
    },
  );
  const loggers = levels.factory();
  const early = loggers(LOGGERS.sink, { task: 0 });
  const handler = middy(
    inLogContext(async (_event: unknown, context: Context) => {
      early.debug('debug line');
      return invocationOf(context).deadline;
    }),
  ).use(invocation({ logger: LOGGERS.sink, loggers: () => loggers }));
  const debugLines = () => lines.filter((l) => l.message === 'debug line');
  return { store, clock, handler, debugLines };
}

describe('invocation middleware', () => {
  it('applies the /admin/loggers levels at the first invocation and a change once the interval has passed', async () => {
    // Prepare
    const { store, clock, handler, debugLines } = setup();
    await store.loggers.setLoggerLevel('serverless-connect.sink', 'DEBUG');
    // Act + Assess: cold start reads the stored level.
    await handler({}, lambdaContext('req-1'));
    expect(debugLines()).toHaveLength(1);
    // A change within the interval is not seen yet...
    await store.loggers.setLoggerLevel('serverless-connect.sink', 'INFO');
    clock.now = 10_000;
    await handler({}, lambdaContext('req-2'));
    expect(debugLines()).toHaveLength(2);
    // ...and is once the interval has passed.
    clock.now = 30_000;
    await handler({}, lambdaContext('req-3'));
    expect(debugLines()).toHaveLength(2);
  });

  it('puts the function name and request id on lines of loggers built before the invocation', async () => {
    // Prepare
    const { store, handler, debugLines } = setup();
    await store.loggers.setLoggerLevel('root', 'DEBUG');
    // Act
    await handler({}, lambdaContext('req-7'));
    // Assess
    expect(debugLines()).toEqual([
      expect.objectContaining({
        logger: LOGGERS.sink,
        function: 'sink-task',
        awsRequestId: 'req-7',
        task: 0,
      }),
    ]);
  });

  it('runs the invocation with the start-up level when the levels cannot be read', async () => {
    // Prepare
    const { handler, debugLines } = setup({ failReads: true });
    // Act
    const deadline = await handler({}, lambdaContext('req-1'));
    // Assess
    expect(deadline).toBeGreaterThan(Date.now());
    expect(debugLines()).toEqual([]);
  });
});
