/**
 * The DynamoDB operations the stand-in handles itself before or after dynalite: stream
 * settings on CreateTable/UpdateTable (dynalite ignores StreamSpecification), the stream
 * fields of DescribeTable, and the capture of item writes (PutItem, UpdateItem, DeleteItem,
 * BatchWriteItem) into change records. Every other operation is forwarded untouched.
 */
import { validationError } from './api-error.js';
import { type Answer, type CaptureContext, json, type RawRequest } from './capture-context.js';
import { STREAM_VIEW_TYPES, type StreamViewType, type WireItem } from './stream-store.js';

type Input = Record<string, unknown>;

/** The parsed StreamSpecification of a request, `undefined` when absent. */
function streamSpecOf(
  input: Input,
): { enabled: boolean; viewType: StreamViewType | null } | undefined {
  const spec = input.StreamSpecification as
    | { StreamEnabled?: unknown; StreamViewType?: unknown }
    | undefined;
  if (spec === undefined || spec === null) return undefined;
  if (typeof spec.StreamEnabled !== 'boolean') {
    throw validationError('StreamSpecification.StreamEnabled is required');
  }
  const viewType = spec.StreamViewType;
  if (spec.StreamEnabled && !STREAM_VIEW_TYPES.includes(viewType as StreamViewType)) {
    throw validationError(
      `One or more parameter values were invalid: StreamViewType must be one of ${STREAM_VIEW_TYPES.join(', ')} when StreamEnabled is true`,
    );
  }
  return {
    enabled: spec.StreamEnabled,
    viewType: spec.StreamEnabled ? (viewType as StreamViewType) : null,
  };
}

function without(input: Input, key: string): Input {
  const { [key]: _dropped, ...rest } = input;
  return rest;
}

/** Adds the stream fields to a table description (in place). */
function describeStream(context: CaptureContext, table: Input): Input {
  const name = String(table.TableName);
  const enabled = context.streams.enabled(name);
  const latest = context.streams.latest(name);
  if (enabled !== null) {
    table.StreamSpecification = { StreamEnabled: true, StreamViewType: enabled.viewType };
  }
  if (latest !== null) {
    table.LatestStreamArn = latest.arn;
    table.LatestStreamLabel = latest.label;
  }
  return table;
}

export async function createTable(context: CaptureContext, input: Input): Promise<Answer> {
  const spec = streamSpecOf(input);
  const out = await context.dynalite.call('CreateTable', without(input, 'StreamSpecification'));
  const table = out.TableDescription as Input;
  const name = String(table.TableName);
  context.forget(name);
  if (spec?.enabled === true && spec.viewType !== null) {
    context.streams.enable(
      {
        tableName: name,
        tableArn: String(table.TableArn),
        keySchema: (table.KeySchema as { AttributeName: string; KeyType: string }[]) ?? [],
      },
      spec.viewType,
    );
  }
  return json({ ...out, TableDescription: describeStream(context, table) });
}

export async function describeTable(context: CaptureContext, input: Input): Promise<Answer> {
  const out = await context.dynalite.call('DescribeTable', input);
  return json({ ...out, Table: describeStream(context, out.Table as Input) });
}

export async function deleteTable(context: CaptureContext, input: Input): Promise<Answer> {
  const out = await context.dynalite.call('DeleteTable', input);
  const name = String(input.TableName);
  context.streams.disable(name);
  context.forget(name);
  return json(out);
}

/**
 * Applies a StreamSpecification change itself and forwards the rest of the update (when there
 * is more than the table name) to dynalite.
 */
export async function updateTable(context: CaptureContext, input: Input): Promise<Answer> {
  const spec = streamSpecOf(input);
  const rest = without(input, 'StreamSpecification');
  const described = await context.dynalite.call('DescribeTable', { TableName: input.TableName });
  const table = described.Table as Input;
  const name = String(table.TableName);
  if (spec !== undefined) {
    const current = context.streams.enabled(name);
    if (spec.enabled && current !== null) {
      throw validationError(`Table already has an enabled stream: ${current.arn}`);
    }
    if (!spec.enabled && current === null) {
      throw validationError(`Table ${name} does not have an enabled stream to disable`);
    }
  }
  const updated =
    Object.keys(rest).length > 1
      ? ((await context.dynalite.call('UpdateTable', rest)).TableDescription as Input)
      : table;
  if (spec?.enabled === true && spec.viewType !== null) {
    context.streams.enable(
      {
        tableName: name,
        tableArn: String(table.TableArn),
        keySchema: (table.KeySchema as { AttributeName: string; KeyType: string }[]) ?? [],
      },
      spec.viewType,
    );
  } else if (spec?.enabled === false) {
    context.streams.disable(name);
  }
  return json({ TableDescription: describeStream(context, updated) });
}

/**
 * PutItem, UpdateItem, DeleteItem: on a table with an enabled stream, reads the item before
 * and after the forwarded write (holding the table's write lock) and records the change.
 */
export async function writeItem(
  context: CaptureContext,
  operation: 'PutItem' | 'UpdateItem' | 'DeleteItem',
  input: Input,
  raw: RawRequest,
): Promise<Answer> {
  const tableName = input.TableName;
  if (typeof tableName !== 'string' || context.streams.enabled(tableName) === null) {
    return context.dynalite.forward(raw.headers, raw.body);
  }
  return context.withLocks([tableName], async () => {
    const schema = await context.keySchema(tableName);
    const key = context.keyOf(schema, operation === 'PutItem' ? input.Item : input.Key);
    const before = key === null ? null : await readOrNull(context, tableName, key);
    const response = await context.dynalite.forward(raw.headers, raw.body);
    if (response.status === 200 && key !== null && before !== undefined) {
      const after = await context.dynalite.getItem(tableName, key);
      context.streams.append(tableName, { keys: key, oldImage: before, newImage: after });
    }
    return response;
  });
}

/** The item, `null` when absent, `undefined` when the read fails (the write will fail too). */
async function readOrNull(
  context: CaptureContext,
  tableName: string,
  key: WireItem,
): Promise<WireItem | null | undefined> {
  try {
    return await context.dynalite.getItem(tableName, key);
  } catch {
    return undefined;
  }
}

interface BatchEntry {
  readonly table: string;
  readonly key: WireItem;
  before: WireItem | null | undefined;
}

/** BatchWriteItem: records a change for every processed request on a stream-enabled table. */
export async function batchWriteItem(
  context: CaptureContext,
  input: Input,
  raw: RawRequest,
): Promise<Answer> {
  const requestItems = (input.RequestItems ?? {}) as Record<string, unknown>;
  const tables = Object.keys(requestItems).filter((t) => context.streams.enabled(t) !== null);
  if (tables.length === 0) return context.dynalite.forward(raw.headers, raw.body);
  return context.withLocks(tables, async () => {
    const entries: BatchEntry[] = [];
    for (const table of tables) {
      const schema = await context.keySchema(table);
      const requests = Array.isArray(requestItems[table]) ? (requestItems[table] as Input[]) : [];
      for (const request of requests) {
        const put = request.PutRequest as { Item?: unknown } | undefined;
        const del = request.DeleteRequest as { Key?: unknown } | undefined;
        const key = context.keyOf(schema, put?.Item ?? del?.Key);
        if (key !== null) entries.push({ table, key, before: undefined });
      }
    }
    for (const entry of entries) entry.before = await readOrNull(context, entry.table, entry.key);
    const response = await context.dynalite.forward(raw.headers, raw.body);
    if (response.status !== 200) return response;
    const unprocessed = (JSON.parse(response.text) as Input).UnprocessedItems as
      | Record<string, Input[]>
      | undefined;
    for (const entry of entries) {
      if (entry.before === undefined || isUnprocessed(context, unprocessed, entry)) continue;
      const after = await context.dynalite.getItem(entry.table, entry.key);
      context.streams.append(entry.table, {
        keys: entry.key,
        oldImage: entry.before,
        newImage: after,
      });
    }
    return response;
  });
}

function isUnprocessed(
  context: CaptureContext,
  unprocessed: Record<string, Input[]> | undefined,
  entry: BatchEntry,
): boolean {
  const requests = unprocessed?.[entry.table] ?? [];
  const wanted = JSON.stringify(entry.key);
  return requests.some((request) => {
    const put = request.PutRequest as { Item?: Input } | undefined;
    const del = request.DeleteRequest as { Key?: Input } | undefined;
    const item = put?.Item ?? del?.Key;
    const key =
      item === undefined
        ? null
        : context.keyOf(
            Object.keys(entry.key).map((n) => ({ AttributeName: n, KeyType: '' })),
            item,
          );
    return key !== null && JSON.stringify(key) === wanted;
  });
}
