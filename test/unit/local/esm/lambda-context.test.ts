import { describe, expect, it } from 'vitest';
import { localLambdaContext } from '../../../../local/esm/lambda-context.js';

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
});
