/**
 * What the stand-in's DynamoDB handlers share: the dynalite client, the stream store, the key
 * schema of each table (cached), and per-table write locks so that the images read around a
 * write are exactly the item's state before and after it.
 */
import type { DynaliteClient, DynaliteResponse } from './dynalite-client.js';
import type { KeySchemaElement, StreamStore, WireItem } from './stream-store.js';

/** An HTTP answer of the stand-in: status and JSON text. */
export type Answer = DynaliteResponse;

/** A JSON answer. */
export function json(body: unknown, status = 200): Answer {
  return { status, text: JSON.stringify(body) };
}

/** The request as it reached the stand-in, for forwarding unchanged. */
export interface RawRequest {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

export class CaptureContext {
  readonly #keySchemas = new Map<string, readonly KeySchemaElement[]>();
  readonly #locks = new Map<string, Promise<void>>();

  constructor(
    readonly dynalite: DynaliteClient,
    readonly streams: StreamStore,
  ) {}

  /** The key schema of `tableName` (DescribeTable once); rejects when the table is missing. */
  async keySchema(tableName: string): Promise<readonly KeySchemaElement[]> {
    const cached = this.#keySchemas.get(tableName);
    if (cached !== undefined) return cached;
    const out = await this.dynalite.call('DescribeTable', { TableName: tableName });
    const table = out.Table as { KeySchema?: KeySchemaElement[] } | undefined;
    const schema = table?.KeySchema ?? [];
    this.#keySchemas.set(tableName, schema);
    return schema;
  }

  /** Forgets the cached key schema of `tableName` (after it was created or deleted). */
  forget(tableName: string): void {
    this.#keySchemas.delete(tableName);
  }

  /** The key attributes of `item` in key-schema order; `null` when one is missing. */
  keyOf(schema: readonly KeySchemaElement[], item: unknown): WireItem | null {
    if (typeof item !== 'object' || item === null) return null;
    const key: WireItem = {};
    for (const { AttributeName } of schema) {
      const value = (item as WireItem)[AttributeName];
      if (value === undefined) return null;
      key[AttributeName] = value;
    }
    return key;
  }

  /** Runs `fn` holding the write locks of `tables` (taken in name order, so never deadlocking). */
  async withLocks<T>(tables: readonly string[], fn: () => Promise<T>): Promise<T> {
    const releases: (() => void)[] = [];
    try {
      for (const name of [...new Set(tables)].sort()) releases.push(await this.#acquire(name));
      return await fn();
    } finally {
      for (const release of releases.reverse()) release();
    }
  }

  async #acquire(name: string): Promise<() => void> {
    const previous = this.#locks.get(name) ?? Promise.resolve();
    let release: () => void = () => {};
    const current = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => current);
    this.#locks.set(name, tail);
    await previous;
    return () => {
      release();
      if (this.#locks.get(name) === tail) this.#locks.delete(name);
    };
  }
}
