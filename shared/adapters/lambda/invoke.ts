import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { RetriableError } from '../../connect/errors.js';
import type {
  ReconcileTrigger,
  SourceTaskInvocation,
  SourceTaskInvoker,
} from '../../ports/dispatch.js';

const encoder = new TextEncoder();

/** Throttling and service-side failures of the Invoke API are worth another try. */
function invokeError(error: unknown, what: string): Error {
  const name = error instanceof Error ? error.name : '';
  const retriable =
    name === 'TooManyRequestsException' ||
    name === 'ServiceException' ||
    name === 'EC2ThrottledException' ||
    name === 'ResourceNotReadyException' ||
    name === 'TimeoutError';
  const message = `${what}: ${error instanceof Error ? error.message : String(error)}`;
  return retriable
    ? new RetriableError(message, { cause: error })
    : new Error(message, { cause: error });
}

/** Queues one asynchronous invocation (`InvocationType: Event`) of `functionName`. */
async function invokeAsync(
  client: LambdaClient,
  functionName: string,
  payload: unknown,
  what: string,
): Promise<void> {
  try {
    await client.send(
      new InvokeCommand({
        FunctionName: functionName,
        InvocationType: 'Event',
        Payload: encoder.encode(JSON.stringify(payload)),
      }),
    );
  } catch (error) {
    throw invokeError(error, what);
  }
}

/** Source tasks invoked through Lambda's asynchronous Invoke API. */
export class LambdaSourceTaskInvoker implements SourceTaskInvoker {
  constructor(
    private readonly client: LambdaClient,
    private readonly functionName: string,
  ) {}

  invoke(invocation: SourceTaskInvocation): Promise<void> {
    return invokeAsync(
      this.client,
      this.functionName,
      invocation,
      `invoke source task ${invocation.connector}-${invocation.task}`,
    );
  }
}

/** Nudges the enumerator function with `{"connector": name}` (or `{}` for all connectors). */
export class LambdaReconcileTrigger implements ReconcileTrigger {
  constructor(
    private readonly client: LambdaClient,
    private readonly functionName: string,
  ) {}

  nudge(connector?: string): Promise<void> {
    return invokeAsync(
      this.client,
      this.functionName,
      connector === undefined ? {} : { connector },
      'nudge the enumerator',
    );
  }
}
