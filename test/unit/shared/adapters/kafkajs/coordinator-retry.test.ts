import { describe, expect, it } from 'vitest';
import { retryWhileCoordinatorMoves } from '../../../../../shared/adapters/kafkajs/coordinator-retry.js';

function answer(type: string) {
  return Object.assign(new Error(type), { name: 'KafkaJSProtocolError', type, retriable: true });
}

/** A call that fails with `errors` in turn, then resolves `done`; counts its attempts. */
function failing(errors: readonly Error[]) {
  const state = { attempts: 0 };
  const call = async () => {
    const error = errors[state.attempts];
    state.attempts += 1;
    if (error !== undefined) throw error;
    return 'done';
  };
  return { call, state };
}

describe('retryWhileCoordinatorMoves', () => {
  const policy = { initialRetryTime: 10, maxRetryTime: 50, retries: 5, multiplier: 2 };

  it('calls again after each coordinator answer, backing off as kafkajs does', async () => {
    // Prepare
    const waits: number[] = [];
    const { call, state } = failing([
      answer('NOT_COORDINATOR_FOR_GROUP'),
      answer('GROUP_LOAD_IN_PROGRESS'),
      answer('GROUP_COORDINATOR_NOT_AVAILABLE'),
      answer('GROUP_LOAD_IN_PROGRESS'),
    ]);
    // Act
    const result = await retryWhileCoordinatorMoves(call, policy, async (ms) => {
      waits.push(ms);
    });
    // Assess
    expect(result).toBe('done');
    expect(state.attempts).toBe(5);
    expect(waits).toEqual([10, 20, 40, 50]);
  });

  it('gives up after `retries` retries with the last answer', async () => {
    const last = answer('GROUP_LOAD_IN_PROGRESS');
    const before = Array.from({ length: 5 }, () => answer('NOT_COORDINATOR_FOR_GROUP'));
    const { call, state } = failing([...before, last]);

    await expect(retryWhileCoordinatorMoves(call, policy, async () => {})).rejects.toBe(last);
    expect(state.attempts).toBe(6);
  });

  it('does not retry other errors, nor a coordinator answer kafkajs already retried', async () => {
    const other = answer('INVALID_REQUEST');
    const exhausted = Object.assign(new Error('retries exceeded'), {
      name: 'KafkaJSNumberOfRetriesExceeded',
      originalError: answer('NOT_COORDINATOR_FOR_GROUP'),
    });

    for (const error of [other, exhausted]) {
      const { call, state } = failing([error]);
      await expect(retryWhileCoordinatorMoves(call, policy, async () => {})).rejects.toBe(error);
      expect(state.attempts).toBe(1);
    }
  });
});
