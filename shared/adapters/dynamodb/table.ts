import {
  type AttributeValue,
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { StoreUnavailableError } from '../../ports/errors.js';
import type { UsageRecorder } from '../../ports/metering.js';
import type { Item } from './attributes.js';
import { type MeterableCommand, metered } from './consumed-capacity.js';
import { isConditionalCheckFailed, mapDynamoError, oldItemOf } from './errors.js';
import { STATE_TABLE } from './table-schema.js';

/** An expression over `#attr` placeholders (each standing for the attribute of that name). */
export interface Expression {
  readonly update?: string;
  readonly condition?: string;
  readonly values?: Record<string, AttributeValue>;
}

/** A conditional write either happened (with the item after it) or did not (item before it). */
export type WriteResult =
  | { readonly ok: true; readonly item: Item }
  | { readonly ok: false; readonly old: Item | undefined };

export interface WriteOptions {
  /**
   * Fetch the old item when the condition fails and DynamoDB did not return it (dynalite
   * ignores `ReturnValuesOnConditionCheckFailure`). @default true
   */
  readonly readOldOnFailure?: boolean;
  /**
   * `ALL_OLD` returns the item before an update as `item`; `UPDATED_OLD` only the attributes
   * the update set, as they were (none when the item was new); `NONE` returns an empty `item`
   * (cheapest, for writes whose result is only success or failure). @default 'ALL_NEW'
   */
  readonly returnValues?: 'ALL_NEW' | 'ALL_OLD' | 'UPDATED_OLD' | 'NONE';
}

const BATCH_WRITE_MAX = 25;
const BATCH_RETRIES = 8;

/** `#name` placeholders of an expression → ExpressionAttributeNames. */
function namesOf(...expressions: (string | undefined)[]): Record<string, string> | undefined {
  const names: Record<string, string> = {};
  for (const expression of expressions) {
    for (const match of expression?.matchAll(/#(\w+)/g) ?? []) {
      const name = match[1];
      if (name !== undefined) names[`#${name}`] = name;
    }
  }
  return Object.keys(names).length === 0 ? undefined : names;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The condition, names and values parts shared by put, update and delete. */
function conditionParams(expression: Expression, names: Record<string, string> | undefined) {
  return {
    ...(expression.condition === undefined
      ? {}
      : {
          ConditionExpression: expression.condition,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
        }),
    ...(names === undefined ? {} : { ExpressionAttributeNames: names }),
    ...(expression.values === undefined ? {} : { ExpressionAttributeValues: expression.values }),
  };
}

/**
 * The adapter's only door to DynamoDB: single-item reads and conditional writes, queries by
 * partition, and batched deletes. Every SDK error is mapped here; a failed condition is a
 * result (`ok: false`), not an exception, so each store decides what it means. With a
 * `recorder`, every request is metered (consumed-capacity.ts).
 */
export class DynamoTable {
  readonly client: DynamoDBClient;
  readonly name: string;
  readonly #recorder: UsageRecorder | undefined;

  constructor(client: DynamoDBClient, name: string, recorder?: UsageRecorder) {
    this.client = client;
    this.name = name;
    this.#recorder = recorder;
  }

  /** `command`, metered as a `kind` request when the table has a recorder. */
  #metered<C extends MeterableCommand>(command: C, kind: 'read' | 'write'): C {
    return this.#recorder === undefined ? command : metered(command, kind, this.#recorder);
  }

  async get(key: Item, operation: string): Promise<Item | undefined> {
    try {
      const out = await this.client.send(
        this.#metered(
          new GetItemCommand({ TableName: this.name, Key: key, ConsistentRead: true }),
          'read',
        ),
      );
      return out.Item;
    } catch (error) {
      throw mapDynamoError(error, operation);
    }
  }

  /** Strongly consistent reads of several keys in one request (retrying unprocessed keys). */
  async getMany(keys: readonly Item[], operation: string): Promise<(Item | undefined)[]> {
    const found: Item[] = [];
    let pending: Item[] = [...keys];
    try {
      for (let attempt = 0; pending.length > 0; attempt += 1) {
        if (attempt > BATCH_RETRIES)
          throw new StoreUnavailableError(`Unprocessed keys (${operation})`);
        if (attempt > 0) await pause(2 ** attempt * 10);
        const out = await this.client.send(
          this.#metered(
            new BatchGetItemCommand({
              RequestItems: { [this.name]: { Keys: pending, ConsistentRead: true } },
            }),
            'read',
          ),
        );
        found.push(...(out.Responses?.[this.name] ?? []));
        pending = out.UnprocessedKeys?.[this.name]?.Keys ?? [];
      }
    } catch (error) {
      throw mapDynamoError(error, operation);
    }
    const { partitionKey, sortKey } = STATE_TABLE;
    return keys.map((key) =>
      found.find(
        (item) =>
          item[partitionKey.name]?.S === key[partitionKey.name]?.S &&
          item[sortKey.name]?.S === key[sortKey.name]?.S,
      ),
    );
  }

  async put(
    item: Item,
    expression: Expression,
    operation: string,
    options: WriteOptions = {},
  ): Promise<WriteResult> {
    const names = namesOf(expression.condition);
    return this.#write(item, operation, options, () =>
      this.client
        .send(
          this.#metered(
            new PutItemCommand({
              TableName: this.name,
              Item: item,
              ...conditionParams(expression, names),
            }),
            'write',
          ),
        )
        .then(() => item),
    );
  }

  async update(
    key: Item,
    expression: Expression,
    operation: string,
    options: WriteOptions = {},
  ): Promise<WriteResult> {
    const names = namesOf(expression.update, expression.condition);
    return this.#write(key, operation, options, async () => {
      const out = await this.client.send(
        this.#metered(
          new UpdateItemCommand({
            TableName: this.name,
            Key: key,
            ...(expression.update === undefined ? {} : { UpdateExpression: expression.update }),
            ...conditionParams(expression, names),
            ReturnValues: options.returnValues ?? 'ALL_NEW',
          }),
          'write',
        ),
      );
      return out.Attributes ?? {};
    });
  }

  async delete(
    key: Item,
    expression: Expression,
    operation: string,
    options: WriteOptions = {},
  ): Promise<WriteResult> {
    const names = namesOf(expression.condition);
    return this.#write(key, operation, options, async () => {
      const out = await this.client.send(
        this.#metered(
          new DeleteItemCommand({
            TableName: this.name,
            Key: key,
            ...conditionParams(expression, names),
            ReturnValues: 'ALL_OLD',
          }),
          'write',
        ),
      );
      return out.Attributes ?? {};
    });
  }

  /** Every item of partition `pk` whose sort key starts with `prefix` (all pages). */
  async query(
    pk: string,
    prefix: string | undefined,
    operation: string,
    projection?: readonly string[],
  ): Promise<Item[]> {
    const { partitionKey, sortKey } = STATE_TABLE;
    const condition =
      prefix === undefined
        ? `#${partitionKey.name} = :pk`
        : `#${partitionKey.name} = :pk AND begins_with(#${sortKey.name}, :prefix)`;
    return this.#queryAll(
      condition,
      { ':pk': { S: pk }, ...(prefix === undefined ? {} : { ':prefix': { S: prefix } }) },
      operation,
      projection === undefined ? {} : { projection },
    );
  }

  /**
   * Every item of partition `pk` whose sort key lies in `[from, to]` and that passes `filter`
   * (an expression over non-key attributes, with its `values`), in one Query per 1 MB page.
   * Items the filter drops are still read (and, in DynamoDB, billed).
   */
  async queryBetween(
    pk: string,
    range: { readonly from: string; readonly to: string },
    operation: string,
    options: {
      readonly projection?: readonly string[];
      readonly filter?: Expression['condition'];
      readonly values?: Record<string, AttributeValue>;
    } = {},
  ): Promise<Item[]> {
    const { partitionKey, sortKey } = STATE_TABLE;
    return this.#queryAll(
      `#${partitionKey.name} = :pk AND #${sortKey.name} BETWEEN :from AND :to`,
      { ':pk': { S: pk }, ':from': { S: range.from }, ':to': { S: range.to }, ...options.values },
      operation,
      options,
    );
  }

  async #queryAll(
    condition: string,
    values: Record<string, AttributeValue>,
    operation: string,
    options: { readonly projection?: readonly string[]; readonly filter?: string | undefined },
  ): Promise<Item[]> {
    const projectionExpression = options.projection?.map((name) => `#${name}`).join(', ');
    const names = namesOf(condition, projectionExpression, options.filter);
    const input: QueryCommandInput = {
      TableName: this.name,
      KeyConditionExpression: condition,
      ExpressionAttributeValues: values,
      ConsistentRead: true,
      ...(names === undefined ? {} : { ExpressionAttributeNames: names }),
      ...(projectionExpression === undefined ? {} : { ProjectionExpression: projectionExpression }),
      ...(options.filter === undefined ? {} : { FilterExpression: options.filter }),
    };
    const items: Item[] = [];
    try {
      let start: Item | undefined;
      do {
        const out = await this.client.send(
          this.#metered(
            new QueryCommand(start === undefined ? input : { ...input, ExclusiveStartKey: start }),
            'read',
          ),
        );
        items.push(...(out.Items ?? []));
        start = out.LastEvaluatedKey;
      } while (start !== undefined);
    } catch (error) {
      throw mapDynamoError(error, operation);
    }
    return items;
  }

  /** A raw Query (index listings); SDK errors mapped. */
  async rawQuery(input: QueryCommandInput, operation: string) {
    try {
      return await this.client.send(this.#metered(new QueryCommand(input), 'read'));
    } catch (error) {
      throw mapDynamoError(error, operation);
    }
  }

  /** Deletes items by key, 25 per request, retrying unprocessed ones. Unconditional. */
  async deleteAll(keys: readonly Item[], operation: string): Promise<void> {
    for (let start = 0; start < keys.length; start += BATCH_WRITE_MAX) {
      let pending = keys
        .slice(start, start + BATCH_WRITE_MAX)
        .map((key) => ({ DeleteRequest: { Key: key } }));
      try {
        for (let attempt = 0; pending.length > 0; attempt += 1) {
          if (attempt > BATCH_RETRIES) {
            throw new StoreUnavailableError(`Unprocessed deletes (${operation})`);
          }
          if (attempt > 0) await pause(2 ** attempt * 10);
          const out = await this.client.send(
            this.#metered(
              new BatchWriteItemCommand({ RequestItems: { [this.name]: pending } }),
              'write',
            ),
          );
          pending = (out.UnprocessedItems?.[this.name] ?? []).flatMap((request) =>
            request.DeleteRequest?.Key === undefined
              ? []
              : [{ DeleteRequest: { Key: request.DeleteRequest.Key } }],
          );
        }
      } catch (error) {
        throw mapDynamoError(error, operation);
      }
    }
  }

  async #write(
    key: Item,
    operation: string,
    options: WriteOptions,
    send: () => Promise<Item>,
  ): Promise<WriteResult> {
    try {
      return { ok: true, item: await send() };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw mapDynamoError(error, operation);
      const returned = oldItemOf(error);
      if (returned !== undefined || options.readOldOnFailure === false) {
        return { ok: false, old: returned };
      }
      const { partitionKey, sortKey } = STATE_TABLE;
      const itemKey: Item = {};
      for (const name of [partitionKey.name, sortKey.name]) {
        const value = key[name];
        if (value !== undefined) itemKey[name] = value;
      }
      return { ok: false, old: await this.get(itemKey, operation) };
    }
  }
}
