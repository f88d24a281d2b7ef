import {
  ExpiredIteratorException,
  LimitExceededException,
  ResourceNotFoundException,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import { describe, expect, it } from 'vitest';
import { ConnectError, RetriableError } from '../../../../../../shared/connect/errors.js';
import {
  ExpiredIteratorError,
  StreamNotFoundError,
  TrimmedDataError,
  toStreamsError,
} from '../../../../../../shared/plugins/connectors/dynamodb-streams-source/streams-client.js';

const metadata = { $metadata: { httpStatusCode: 400 } };

describe('toStreamsError', () => {
  it('maps the SDK exceptions the task acts on to typed errors', () => {
    // Act
    const expired = toStreamsError(
      new ExpiredIteratorException({ message: 'Iterator expired', ...metadata }),
      'GetRecords',
    );
    const trimmed = toStreamsError(
      new TrimmedDataAccessException({ message: 'trimmed', ...metadata }),
      'GetRecords',
    );
    const missing = toStreamsError(
      new ResourceNotFoundException({ message: 'no stream', ...metadata }),
      'DescribeStream s',
    );

    // Assess
    expect(expired).toBeInstanceOf(ExpiredIteratorError);
    expect(expired.retriable).toBe(true);
    expect(trimmed).toBeInstanceOf(TrimmedDataError);
    expect(trimmed.retriable).toBe(false);
    expect(missing).toBeInstanceOf(StreamNotFoundError);
    expect(missing.message).toBe('DescribeStream s failed: ResourceNotFoundException: no stream');
  });

  it('retries throttling, server faults and network failures, not other client faults', () => {
    // Act
    const throttled = toStreamsError(
      new LimitExceededException({ message: 'slow down', ...metadata }),
      'GetRecords',
    );
    const network = toStreamsError(new Error('socket hang up'), 'GetRecords');
    const denied = toStreamsError(
      Object.assign(new Error('not allowed'), {
        name: 'AccessDeniedException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      }),
      'GetRecords',
    );

    // Assess
    expect(throttled).toBeInstanceOf(RetriableError);
    expect(network).toBeInstanceOf(RetriableError);
    expect(denied).toBeInstanceOf(ConnectError);
    expect(denied.retriable).toBe(false);
  });
});
