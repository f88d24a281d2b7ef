import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type Item, itemSize } from '../shared/adapters/dynamodb/attributes.js';

/** One DynamoDB request as the meter saw it. */
export interface MeteredRequest {
  /** The SDK command without `Command` (`Query`, `UpdateItem`, …). */
  readonly kind: string;
  /** Capacity units DynamoDB (here dynalite, by DynamoDB's rules) charged for it. */
  readonly units: number;
  /** Items returned (a Query page's or a BatchGetItem's). */
  readonly items: number;
  /** Bytes of the items returned, by DynamoDB's size rules (after any projection). */
  readonly bytes: number;
  readonly ms: number;
}

/** Requests grouped by kind: how many, and the units they consumed. */
export type RequestTally = Record<string, { count: number; units: number }>;

const CAPACITY_COMMANDS = new Set([
  'GetItemCommand',
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'QueryCommand',
  'BatchGetItemCommand',
  'BatchWriteItemCommand',
]);

interface CapacityOutput {
  readonly ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[];
  readonly Items?: Item[];
  readonly Item?: Item;
  readonly Responses?: Record<string, Item[]>;
}

function unitsOf(output: CapacityOutput): number {
  const consumed = output.ConsumedCapacity;
  if (consumed === undefined) return 0;
  const list = Array.isArray(consumed) ? consumed : [consumed];
  return list.reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
}

function itemsOf(output: CapacityOutput): Item[] {
  if (output.Items !== undefined) return output.Items;
  if (output.Item !== undefined) return [output.Item];
  if (output.Responses !== undefined) return Object.values(output.Responses).flat();
  return [];
}

/**
 * Meters every request a DynamoDB client sends: an SDK middleware asks for the consumed
 * capacity (`ReturnConsumedCapacity: TOTAL`, which changes nothing else; dynalite computes it by
 * DynamoDB's rules: 1 KB write units, 4 KB read units, the larger of the item before and after an
 * update, a Query's items summed before rounding) and records kind, units, items, bytes and
 * latency. The store code under measurement is the real one; only the client is instrumented.
 */
export class RequestMeter {
  readonly requests: MeteredRequest[] = [];

  constructor(client: DynamoDBClient) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = context.commandName ?? '';
        const metered = CAPACITY_COMMANDS.has(command);
        const input = args.input as Record<string, unknown>;
        if (metered && input.ReturnConsumedCapacity === undefined) {
          input.ReturnConsumedCapacity = 'TOTAL';
        }
        const started = performance.now();
        const result = await next(args);
        const ms = performance.now() - started;
        const output = result.output as CapacityOutput;
        const items = itemsOf(output);
        this.requests.push({
          kind: command.replace(/Command$/, ''),
          units: metered ? unitsOf(output) : 0,
          items: items.length,
          bytes: items.reduce((sum, item) => sum + itemSize(item), 0),
          ms,
        });
        return result;
      },
      { step: 'initialize', name: 'scaleBenchMeter' },
    );
  }

  /** Forgets what was recorded so far. */
  reset(): void {
    this.requests.length = 0;
  }

  /** The requests recorded since the last reset, then resets. */
  take(): MeteredRequest[] {
    const taken = [...this.requests];
    this.reset();
    return taken;
  }
}

export function tally(requests: readonly MeteredRequest[]): RequestTally {
  const out: RequestTally = {};
  for (const request of requests) {
    const entry = out[request.kind] ?? { count: 0, units: 0 };
    entry.count += 1;
    entry.units += request.units;
    out[request.kind] = entry;
  }
  return out;
}

export function sumUnits(requests: readonly MeteredRequest[]): number {
  return requests.reduce((sum, r) => sum + r.units, 0);
}
