/**
 * `TransactWriteItems`, which dynalite lacks, emulated on top of its single-item operations
 * while holding the write locks of every table involved:
 * 1. read every item's current image;
 * 2. evaluate each condition with a conditional no-op write (the item put back as it is, or a
 *    delete of the absent item), so dynalite's own expression engine decides;
 * 3. if any condition fails, answer `TransactionCanceledException` with per-item reasons and
 *    change nothing;
 * 4. apply the writes unconditionally; if one fails, restore the earlier ones and cancel;
 * 5. record the changes of stream-enabled tables, in request order.
 * Isolation holds against writers that go through the stand-in (they wait for the locks), not
 * against readers or writers talking to dynalite directly.
 */
import { ApiError, validationError } from './api-error.js';
import { type Answer, type CaptureContext, json } from './capture-context.js';
import { DynaliteError } from './dynalite-client.js';
import type { WireItem } from './stream-store.js';

type Input = Record<string, unknown>;
type Kind = 'ConditionCheck' | 'Put' | 'Delete' | 'Update';
const KINDS: readonly Kind[] = ['ConditionCheck', 'Put', 'Delete', 'Update'];

interface Action {
  readonly kind: Kind;
  readonly table: string;
  readonly key: WireItem;
  readonly spec: Input;
  before: WireItem | null;
}

interface Reason {
  readonly Code: string;
  readonly Message?: string;
}

/** The attribute names and values of `spec` that `expressions` use (DynamoDB rejects unused ones). */
function placeholdersFor(spec: Input, expressions: readonly unknown[]): Input {
  const text = expressions.filter((e): e is string => typeof e === 'string').join(' ');
  const pick = (map: unknown, pattern: RegExp): Input | undefined => {
    if (typeof map !== 'object' || map === null) return undefined;
    const used = new Set(text.match(pattern) ?? []);
    const kept = Object.entries(map).filter(([k]) => used.has(k));
    return kept.length === 0 ? undefined : Object.fromEntries(kept);
  };
  const names = pick(spec.ExpressionAttributeNames, /#[A-Za-z0-9_]+/g);
  const values = pick(spec.ExpressionAttributeValues, /:[A-Za-z0-9_]+/g);
  return {
    ...(names === undefined ? {} : { ExpressionAttributeNames: names }),
    ...(values === undefined ? {} : { ExpressionAttributeValues: values }),
  };
}

function cancelled(reasons: readonly Reason[]): ApiError {
  return new ApiError(
    'TransactionCanceledException',
    `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
    400,
    { CancellationReasons: reasons },
  );
}

async function parseActions(context: CaptureContext, input: Input): Promise<Action[]> {
  const items = input.TransactItems;
  if (!Array.isArray(items) || items.length === 0 || items.length > 100) {
    throw validationError(
      "1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length between 1 and 100",
    );
  }
  const actions: Action[] = [];
  const seen = new Set<string>();
  for (const item of items as Input[]) {
    const kind = KINDS.find((k) => item[k] !== undefined);
    const spec = kind === undefined ? undefined : (item[kind] as Input);
    if (kind === undefined || spec === undefined || typeof spec.TableName !== 'string') {
      throw validationError(
        'TransactItems must each have exactly one of ConditionCheck, Put, Delete, Update with a TableName',
      );
    }
    if (kind === 'ConditionCheck' && typeof spec.ConditionExpression !== 'string') {
      throw validationError('ConditionCheck requires a ConditionExpression');
    }
    const schema = await context.keySchema(spec.TableName);
    const key = context.keyOf(schema, kind === 'Put' ? spec.Item : spec.Key);
    if (key === null) {
      throw validationError('The provided key element does not match the schema');
    }
    const id = `${spec.TableName}\u0000${JSON.stringify(key)}`;
    if (seen.has(id)) {
      throw validationError('Transaction request cannot include multiple operations on one item');
    }
    seen.add(id);
    actions.push({ kind, table: spec.TableName, key, spec, before: null });
  }
  return actions;
}

/** Whether `action`'s condition holds now (true when it has none). */
async function conditionHolds(context: CaptureContext, action: Action): Promise<boolean> {
  const condition = action.spec.ConditionExpression;
  if (typeof condition !== 'string') return true;
  const check = {
    TableName: action.table,
    ConditionExpression: condition,
    ...placeholdersFor(action.spec, [condition]),
  };
  try {
    if (action.before === null) {
      await context.dynalite.call('DeleteItem', { ...check, Key: action.key });
    } else {
      await context.dynalite.call('PutItem', { ...check, Item: action.before });
    }
    return true;
  } catch (error) {
    if (error instanceof DynaliteError && error.type === 'ConditionalCheckFailedException') {
      return false;
    }
    throw error;
  }
}

async function apply(context: CaptureContext, action: Action): Promise<void> {
  const { spec, table, key } = action;
  switch (action.kind) {
    case 'Put':
      await context.dynalite.call('PutItem', { TableName: table, Item: spec.Item });
      return;
    case 'Delete':
      await context.dynalite.call('DeleteItem', { TableName: table, Key: key });
      return;
    case 'Update':
      await context.dynalite.call('UpdateItem', {
        TableName: table,
        Key: key,
        UpdateExpression: spec.UpdateExpression,
        ...placeholdersFor(spec, [spec.UpdateExpression]),
      });
      return;
    case 'ConditionCheck':
      return;
  }
}

/** Puts `action`'s item back as it was before the transaction. */
async function restore(context: CaptureContext, action: Action): Promise<void> {
  if (action.before === null) {
    await context.dynalite.call('DeleteItem', { TableName: action.table, Key: action.key });
  } else {
    await context.dynalite.call('PutItem', { TableName: action.table, Item: action.before });
  }
}

export async function transactWriteItems(context: CaptureContext, input: Input): Promise<Answer> {
  const actions = await parseActions(context, input);
  return context.withLocks(
    actions.map((a) => a.table),
    async () => {
      for (const action of actions) {
        action.before = await context.dynalite.getItem(action.table, action.key);
      }
      const holds: boolean[] = [];
      for (const action of actions) holds.push(await conditionHolds(context, action));
      if (holds.includes(false)) {
        throw cancelled(
          holds.map((ok) =>
            ok
              ? { Code: 'None' }
              : { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' },
          ),
        );
      }
      const applied: Action[] = [];
      for (const [index, action] of actions.entries()) {
        try {
          await apply(context, action);
          applied.push(action);
        } catch (error) {
          for (const done of applied.reverse()) await restore(context, done);
          const message = error instanceof Error ? error.message : String(error);
          throw cancelled(
            actions.map((_, i) =>
              i === index ? { Code: 'ValidationError', Message: message } : { Code: 'None' },
            ),
          );
        }
      }
      for (const action of actions) {
        if (action.kind === 'ConditionCheck') continue;
        const after = await context.dynalite.getItem(action.table, action.key);
        context.streams.append(action.table, {
          keys: action.key,
          oldImage: action.before,
          newImage: after,
        });
      }
      return json({});
    },
  );
}
