import { describe, expect, it } from 'vitest';
import { ConnectError, RetriableError } from '../../../../../../shared/connect/errors.js';
import {
  backoffDelay,
  classifyWriteError,
  fatalError,
  type RetryPolicy,
  withRetries,
} from '../../../../../../shared/plugins/connectors/dynamodb-sink/write-errors.js';
import { networkError, sdkError } from './fakes.js';

function policy(sleeps: number[], maxRetries = 3, random = () => 0.5): RetryPolicy {
  return {
    maxRetries,
    backoffMs: 100,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random,
  };
}

describe('classifyWriteError', () => {
  it.each([
    ['throttling', sdkError('ProvisionedThroughputExceededException'), 'retriable'],
    ['ThrottlingException', sdkError('ThrottlingException'), 'retriable'],
    ['RequestLimitExceeded', sdkError('RequestLimitExceeded'), 'retriable'],
    ['an internal error', sdkError('InternalServerError', 500), 'retriable'],
    ['any 5xx', sdkError('SomethingNew', 503), 'retriable'],
    ['a 429', sdkError('TooMany', 429), 'retriable'],
    ['a reset connection', networkError('ECONNRESET'), 'retriable'],
    ['a network error as the cause', new Error('x', { cause: networkError('EPIPE') }), 'retriable'],
    ['a bad item', sdkError('ValidationException'), 'invalid'],
    ['a full item collection', sdkError('ItemCollectionSizeLimitExceededException'), 'invalid'],
    ['a missing table', sdkError('ResourceNotFoundException'), 'missing-table'],
    ['access denied', sdkError('AccessDeniedException'), 'fatal'],
    ['a programming error', new TypeError('x is undefined'), 'fatal'],
    ['a non-error', 'boom', 'fatal'],
  ])('classifies %s', (_name, error, kind) => {
    // Act
    const classified = classifyWriteError(error);

    // Assess
    expect(classified).toBe(kind);
  });

  it('treats SDK errors marked $retryable as retriable', () => {
    // Prepare
    const error = Object.assign(sdkError('Unknown', 400), { $retryable: { throttling: true } });

    // Act
    const kind = classifyWriteError(error);

    // Assess
    expect(kind).toBe('retriable');
  });
});

describe('withRetries', () => {
  it('retries transient failures with growing, capped, jittered waits', async () => {
    // Prepare
    const sleeps: number[] = [];
    const failures = [1, 2, 3, 4, 5, 6].map(() => sdkError('ThrottlingException'));
    let calls = 0;

    // Act
    const result = await withRetries(
      'Writing',
      policy(sleeps, 6, () => 0.999),
      async () => {
        calls += 1;
        const failure = failures.shift();
        if (failure !== undefined) throw failure;
        return 'done';
      },
    );

    // Assess
    expect(result).toBe('done');
    expect(calls).toBe(7);
    expect(sleeps).toEqual([99, 199, 399, 799, 1598, 1998]);
  });

  it('fails with RetriableError once the retries are spent', async () => {
    // Prepare
    const sleeps: number[] = [];
    const call = async () => {
      throw sdkError('ProvisionedThroughputExceededException');
    };

    // Act
    const act = withRetries('Writing record orders-0@1', policy(sleeps, 2), call);

    // Assess
    await expect(act).rejects.toThrow(RetriableError);
    await expect(act).rejects.toThrow(
      'Writing record orders-0@1 failed after 2 retries: ProvisionedThroughputExceededException: ',
    );
    expect(sleeps).toHaveLength(2);
  });

  it('rethrows other failures at once', async () => {
    // Prepare
    const sleeps: number[] = [];
    const invalid = sdkError('ValidationException');

    // Act
    const act = withRetries('Writing', policy(sleeps), async () => {
      throw invalid;
    });

    // Assess
    await expect(act).rejects.toBe(invalid);
    expect(sleeps).toEqual([]);
  });
});

describe('backoffDelay', () => {
  it('stays within [0, min(backoff * 2^retry, 20 * backoff))', () => {
    // Act
    const low = backoffDelay(
      policy([], 3, () => 0),
      5,
    );
    const high = backoffDelay(
      policy([], 3, () => 0.9999),
      10,
    );

    // Assess
    expect(low).toBe(0);
    expect(high).toBe(1999);
  });
});

describe('fatalError', () => {
  it('names a missing table', () => {
    // Act
    const error = fatalError('orders', 'Writing', sdkError('ResourceNotFoundException'));

    // Assess
    expect(error).toBeInstanceOf(ConnectError);
    expect(error.retriable).toBe(false);
    expect(error.message).toBe('DynamoDB table orders does not exist');
  });

  it('keeps ConnectErrors as they are and wraps the others', () => {
    // Prepare
    const retriable = new RetriableError('later');

    // Act
    const kept = fatalError('t', 'Writing', retriable);
    const wrapped = fatalError('t', 'Writing', sdkError('AccessDeniedException', 400, 'no'));

    // Assess
    expect(kept).toBe(retriable);
    expect(wrapped.message).toBe('Writing failed: AccessDeniedException: no');
  });
});
