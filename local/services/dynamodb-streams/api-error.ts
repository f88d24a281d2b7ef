/**
 * Errors of the DynamoDB Streams stand-in, in the AWS JSON 1.0 wire form the AWS SDK parses
 * (`__type` names the exception after the `#`).
 */

/** An error answered to the client as `{"__type": …, "message": …}` with an HTTP status. */
export class ApiError extends Error {
  constructor(
    /** The exception name, e.g. `ResourceNotFoundException`. */
    readonly type: string,
    message: string,
    readonly status = 400,
    /** Extra members of the error body (e.g. `CancellationReasons`). */
    readonly extra: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = type;
  }

  /** The JSON body of the error response. */
  body(): Record<string, unknown> {
    const namespace =
      this.type === 'ValidationException'
        ? 'com.amazon.coral.validate'
        : 'com.amazonaws.dynamodb.v20120810';
    return { __type: `${namespace}#${this.type}`, message: this.message, ...this.extra };
  }
}

/** A `ValidationException` (HTTP 400). */
export function validationError(message: string): ApiError {
  return new ApiError('ValidationException', message);
}

/** A `ResourceNotFoundException` (HTTP 400). */
export function notFound(message: string): ApiError {
  return new ApiError('ResourceNotFoundException', `Requested resource not found: ${message}`);
}
