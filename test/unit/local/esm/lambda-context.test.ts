import { describe, expect, it } from 'vitest';
import { DEFAULT_SIZES } from '../../../../infra/lib/functions.js';
import {
  LOCAL_FUNCTION_MEMORY_MB,
  localLambdaContext,
} from '../../../../local/esm/lambda-context.js';

describe('localLambdaContext', () => {
  it('carries the connector alias at the end of the invoked function ARN', () => {
    // Act
    const context = localLambdaContext({ alias: 'orders-sink', timeoutMs: 1_000 });

    // Assess
    expect(context.invokedFunctionArn).toBe(
      'arn:aws:lambda:local:000000000000:function:sink-task:orders-sink',
    );
    expect(context.functionName).toBe('sink-task');
  });

  it('counts the remaining time down from the timeout and stops at 0', () => {
    // Prepare
    let now = 1_000;
    const context = localLambdaContext({ alias: 'a', timeoutMs: 500, now: () => now });

    // Act
    const atStart = context.getRemainingTimeInMillis();
    now += 200;
    const later = context.getRemainingTimeInMillis();
    now += 1_000;
    const pastTimeout = context.getRemainingTimeInMillis();

    // Assess
    expect([atStart, later, pastTimeout]).toEqual([500, 300, 0]);
  });

  it('gives every invocation its own request id', () => {
    // Act
    const first = localLambdaContext({ alias: 'a', timeoutMs: 1 });
    const second = localLambdaContext({ alias: 'a', timeoutMs: 1 });

    // Assess
    expect(first.awsRequestId).not.toBe(second.awsRequestId);
  });

  it('carries the memory the CDK app gives each function by default (what the metering prices)', () => {
    // Act
    const memory = Object.fromEntries(
      (['api', 'enumerator', 'source-task', 'sink-task'] as const).map((functionName) => [
        functionName,
        Number(localLambdaContext({ functionName, timeoutMs: 1 }).memoryLimitInMB),
      ]),
    );

    // Assess
    expect(memory).toEqual({
      api: DEFAULT_SIZES.api.memorySize,
      enumerator: DEFAULT_SIZES.enumerator.memorySize,
      'source-task': DEFAULT_SIZES['source-task'].memorySize,
      'sink-task': DEFAULT_SIZES['sink-task'].memorySize,
    });
    expect(memory).toEqual(LOCAL_FUNCTION_MEMORY_MB);
    expect(localLambdaContext({ timeoutMs: 1, memoryMb: 2048 }).memoryLimitInMB).toBe('2048');
  });
});
