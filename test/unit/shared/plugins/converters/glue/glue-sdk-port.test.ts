/**
 * How AWS SDK errors of the Glue calls become the port's errors: which are record errors, which
 * are retried, which are neither. Shaped as the SDK throws them (`name`, `$fault`, `$metadata`).
 */
import { describe, expect, it } from 'vitest';
import {
  ConnectError,
  DataError,
  RetriableError,
} from '../../../../../../shared/connect/errors.js';
import {
  GlueAlreadyExistsError,
  GlueEntityNotFoundError,
  GlueRequestError,
} from '../../../../../../shared/plugins/converters/glue/glue-registry-port.js';
import { toGlueError } from '../../../../../../shared/plugins/converters/glue/glue-sdk-port.js';

function sdkError(name: string, message: string, status?: number, fault?: 'client' | 'server') {
  return Object.assign(new Error(message), {
    name,
    ...(fault === undefined ? {} : { $fault: fault }),
    $metadata: status === undefined ? {} : { httpStatusCode: status },
  });
}

describe('toGlueError', () => {
  it('makes an unknown schema version a record error that says which entity is missing', () => {
    // Act
    const error = toGlueError(
      sdkError(
        'EntityNotFoundException',
        'Schema version is not found. SchemaVersionId: x',
        400,
        'client',
      ),
      'GetSchemaVersion x',
    );

    // Assess
    expect(error).toBeInstanceOf(GlueEntityNotFoundError);
    expect(error).toBeInstanceOf(DataError);
    expect((error as GlueEntityNotFoundError).entity).toBe('schema-version');
    expect(error.message).toBe(
      'GetSchemaVersion x failed: EntityNotFoundException: Schema version is not found. SchemaVersionId: x',
    );
  });

  it('makes a missing registry a connector error, not a record error', () => {
    // Act
    const error = toGlueError(
      sdkError(
        'EntityNotFoundException',
        'Registry is not found. RegistryName: nope',
        400,
        'client',
      ),
      'CreateSchema t',
    );

    // Assess
    expect(error).toBeInstanceOf(ConnectError);
    expect(error).not.toBeInstanceOf(DataError);
    expect(error.retriable).toBe(false);
  });

  it.each([
    ['AlreadyExistsException', GlueAlreadyExistsError],
    ['InvalidInputException', GlueRequestError],
  ])('maps %s to its record error', (name, type) => {
    expect(toGlueError(sdkError(name, 'no', 400, 'client'), 'call')).toBeInstanceOf(type);
  });

  it.each([
    ['throttling', sdkError('ThrottlingException', 'Rate exceeded', 400, 'client')],
    ['a server fault', sdkError('InternalServiceException', 'oops', 500, 'server')],
    [
      'no answer',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    ],
  ])('retries %s', (_what, error) => {
    expect(toGlueError(error, 'call')).toBeInstanceOf(RetriableError);
  });

  it('makes access denied a non-retriable connector error', () => {
    // Act
    const error = toGlueError(
      sdkError('AccessDeniedException', 'not authorized', 400, 'client'),
      'call',
    );

    // Assess
    expect(error).not.toBeInstanceOf(DataError);
    expect(error.retriable).toBe(false);
  });
});
