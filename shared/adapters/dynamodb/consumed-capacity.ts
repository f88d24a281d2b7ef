/**
 * The state store's metering, in one place: every command `DynamoTable` sends carries this
 * middleware, which asks DynamoDB for the capacity it consumed (`ReturnConsumedCapacity:
 * 'TOTAL'`) and reports the request and its units to the {@link UsageRecorder}. A write whose condition failed is reported as one write
 * unit: DynamoDB bills it (by the item's size) but sends no consumed capacity with the error.
 */
import type { UsageRecorder } from '../../ports/metering.js';
import { isConditionalCheckFailed } from './errors.js';

/** The middleware's name on a command's stack. */
export const CONSUMED_CAPACITY_MIDDLEWARE = 'serverlessConnectConsumedCapacity';

/** The input field the metering sets. */
interface MeteredInput {
  ReturnConsumedCapacity?: string;
}

interface CapacityOutput {
  readonly ConsumedCapacity?:
    | { readonly CapacityUnits?: number }
    | readonly { readonly CapacityUnits?: number }[];
}

type Handler = (args: { readonly input: object }) => Promise<{ readonly output: object }>;

/**
 * A command's middleware stack, as far as the metering adds to it. Every SDK command's stack
 * takes an initialize-step middleware; the input and output types differ per command and the
 * metering reads them only structurally, so the stack is seen through this one type.
 */
interface InitializeStack {
  add(
    middleware: (next: Handler) => Handler,
    options: { readonly step: 'initialize'; readonly name: string },
  ): void;
}

/** An SDK command (anything with a middleware stack of its own). */
export interface MeterableCommand {
  readonly middlewareStack: object;
}

/** The units of a command's `ConsumedCapacity` (a batch's is one entry per table). */
export function unitsOf(output: object): number {
  const consumed = (output as CapacityOutput).ConsumedCapacity;
  if (consumed === undefined) return 0;
  const entries = Array.isArray(consumed) ? consumed : [consumed];
  return entries.reduce(
    (sum: number, entry: { CapacityUnits?: number }) => sum + (entry.CapacityUnits ?? 0),
    0,
  );
}

/**
 * `command` with the metering middleware on its own stack (the client's is left alone), as a
 * `kind` request. Returns the command.
 */
export function metered<C extends MeterableCommand>(
  command: C,
  kind: 'read' | 'write',
  recorder: UsageRecorder,
): C {
  (command.middlewareStack as InitializeStack).add(
    (next) => async (args) => {
      (args.input as MeteredInput).ReturnConsumedCapacity = 'TOTAL';
      try {
        const result = await next(args);
        recorder.dynamoRequest({ kind, units: unitsOf(result.output) });
        return result;
      } catch (error) {
        if (isConditionalCheckFailed(error)) recorder.dynamoRequest({ kind, units: 1 });
        throw error;
      }
    },
    { step: 'initialize', name: CONSUMED_CAPACITY_MIDDLEWARE },
  );
  return command;
}
