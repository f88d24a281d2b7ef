import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { sinkTaskHandler } from '../../../../functions/sink-task/handler.js';
import { UnknownSinkAliasError } from '../../../../shared/runtime/sink/errors.js';
import { sinkFunctionAlias } from '../../../../shared/runtime/sink/function-alias.js';
import { recordingLogger } from '../../shared/runtime/pipeline/error-handling-fakes.js';
import { event, harness, records } from '../../shared/runtime/sink/fixtures.js';

const FUNCTION_ARN = 'arn:aws:lambda:eu-west-1:111122223333:function:sink-task';

function lambdaContext(invokedFunctionArn: string): Context {
  return {
    invokedFunctionArn,
    functionName: 'sink-task',
    logStreamName: '2026/01/01/[$LATEST]abc',
    awsRequestId: 'req-1',
    getRemainingTimeInMillis: () => 60_000,
  } as Context;
}

async function setup() {
  const h = await harness();
  const logger = recordingLogger();
  // The engine's sink runtime; the invocation middleware logs to a logger of its own.
  return { h, logger, handler: sinkTaskHandler(() => ({ sink: h.sink, loggers: () => logger })) };
}

describe('sink-task handler', () => {
  it('writes the batch of the connector named by the function alias and returns the summary', async () => {
    const { h, handler } = await setup();

    const summary = await handler(
      event(records(0, 0, 2)),
      lambdaContext(`${FUNCTION_ARN}:${sinkFunctionAlias(h.name)}`),
    );

    expect(summary).toMatchObject({ connector: h.name, records: 3, written: 3 });
    expect(await h.stored()).toEqual({ 'orders-0': 3 });
    const status = await h.store.status.getTaskStatus({ connector: h.name, task: 0 });
    expect(status?.workerId).toBe('2026/01/01/[$LATEST]abc');
  });

  it('refuses an invocation without a connector alias and writes nothing', async () => {
    const { h, handler } = await setup();

    await expect(handler(event(records(0, 0, 2)), lambdaContext(FUNCTION_ARN))).rejects.toThrow(
      UnknownSinkAliasError,
    );
    expect(h.system.puts).toEqual([]);
  });

  it('logs and rethrows a failed batch (the invocation middleware) so the event source mapping redelivers it', async () => {
    const { h, handler, logger } = await setup();
    await h.store.configs.setTargetState(h.name, 'PAUSED');

    await expect(
      handler(
        event(records(0, 0, 0)),
        lambdaContext(`${FUNCTION_ARN}:${sinkFunctionAlias(h.name)}`),
      ),
    ).rejects.toMatchObject({ retriable: true });
    expect(logger.lines.map((l) => [l.level, l.message])).toEqual([['warn', 'invocation failed']]);
  });
});
