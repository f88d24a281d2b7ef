import { describe, expect, it } from 'vitest';
import { mapKafkaError } from '../../../../../shared/adapters/kafkajs/errors.js';
import { ConnectError, FencedError, RetriableError } from '../../../../../shared/connect/errors.js';
import { TransactionOutcomeUnknownError } from '../../../../../shared/ports/kafka-errors.js';

function kafkaJsError(name: string, fields: Record<string, unknown> = {}) {
  return Object.assign(new Error(String(fields.message ?? name)), { name, ...fields });
}

describe('mapKafkaError', () => {
  it('maps a fencing answer anywhere in the kafkajs error chain to FencedError', () => {
    const protocol = kafkaJsError('KafkaJSProtocolError', { type: 'INVALID_PRODUCER_EPOCH' });
    const wrapped = kafkaJsError('KafkaJSNumberOfRetriesExceeded', { originalError: protocol });
    expect(mapKafkaError(wrapped, 'send')).toBeInstanceOf(FencedError);
    expect(
      mapKafkaError(kafkaJsError('X', { type: 'PRODUCER_FENCED' }), 'commit', true),
    ).toBeInstanceOf(FencedError);
  });

  it('treats any other failure of a commit or abort as an unknown outcome, never retriable', () => {
    const timeout = kafkaJsError('KafkaJSRequestTimeoutError');
    const mapped = mapKafkaError(timeout, 'commit (tx-1)', true);
    expect(mapped).toBeInstanceOf(TransactionOutcomeUnknownError);
    expect(mapped.retriable).toBe(false);
    expect(mapped.message).toContain('commit (tx-1)');
  });

  it('makes a lost answer outside commit retriable', () => {
    const closed = kafkaJsError('KafkaJSConnectionClosedError');
    expect(mapKafkaError(closed, 'send')).toBeInstanceOf(RetriableError);
  });

  it.each([
    'GROUP_LOAD_IN_PROGRESS',
    'GROUP_COORDINATOR_NOT_AVAILABLE',
    'NOT_COORDINATOR_FOR_GROUP',
  ])('makes a coordinator answering %s retriable, bare or wrapped by kafkajs', (type) => {
    // kafkajs flags these retriable; the mapping does not depend on the flag.
    const answer = kafkaJsError('KafkaJSProtocolError', { type, retriable: false });
    const exhausted = kafkaJsError('KafkaJSNumberOfRetriesExceeded', { originalError: answer });
    const bailed = kafkaJsError('KafkaJSNonRetriableError', { retriable: false, cause: answer });

    for (const error of [answer, exhausted, bailed]) {
      const mapped = mapKafkaError(error, 'sendOffsets for group g (tx-1)');
      expect(mapped).toBeInstanceOf(RetriableError);
      expect(mapped.message).toContain(type);
    }
  });

  it('still reads a coordinator answer to a commit as an unknown outcome', () => {
    const answer = kafkaJsError('KafkaJSProtocolError', { type: 'NOT_COORDINATOR_FOR_GROUP' });
    const exhausted = kafkaJsError('KafkaJSNumberOfRetriesExceeded', { originalError: answer });
    expect(mapKafkaError(exhausted, 'commit (tx-1)', true)).toBeInstanceOf(
      TransactionOutcomeUnknownError,
    );
  });

  it('keeps other errors non-retriable and names the action', () => {
    const mapped = mapKafkaError(
      kafkaJsError('KafkaJSProtocolError', { type: 'INVALID_REQUEST' }),
      'send',
    );
    expect(mapped).toBeInstanceOf(ConnectError);
    expect(mapped.retriable).toBe(false);
    expect(mapped.message).toBe('send failed (INVALID_REQUEST)');
  });

  it('names each cause once when kafkajs repeats its cause message while wrapping it', () => {
    const tls = kafkaJsError('KafkaJSConnectionError', {
      message: 'Connection error: self-signed certificate in certificate chain',
    });
    const retried = kafkaJsError('KafkaJSNumberOfRetriesExceeded', {
      message: 'Connection error: self-signed certificate in certificate chain',
      originalError: tls,
    });

    expect(mapKafkaError(retried, 'connecting the admin client').message).toBe(
      'connecting the admin client failed (Connection error: self-signed certificate in certificate chain)',
    );
  });
});
