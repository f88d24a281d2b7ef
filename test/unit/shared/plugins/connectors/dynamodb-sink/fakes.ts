import type {
  ErrantRecordReporter,
  SinkTaskContext,
} from '../../../../../../shared/connect/context.js';
import { SinkRecord, type SinkRecordInit } from '../../../../../../shared/connect/records.js';
import {
  type AttributeMap,
  type AttributeValue,
  scalarIdentity,
} from '../../../../../../shared/plugins/connectors/dynamodb-sink/attribute-value.js';
import type { DynamoDbSinkDeps } from '../../../../../../shared/plugins/connectors/dynamodb-sink/dynamodb-sink-task.js';
import type {
  DynamoDbSinkClient,
  ItemWrite,
  TableKeySchema,
  WriteOutcome,
} from '../../../../../../shared/plugins/connectors/dynamodb-sink/sink-client.js';

/** An error shaped like the AWS SDK's service exceptions. */
export function sdkError(name: string, status = 400, message = `${name} raised`): Error {
  const error = new Error(message) as Error & { $metadata: { httpStatusCode: number } };
  error.name = name;
  error.$metadata = { httpStatusCode: status };
  return error;
}

/** A network failure as Node reports it. */
export function networkError(code = 'ECONNRESET'): Error {
  return Object.assign(new Error(`socket hang up (${code})`), { code });
}

function num(value: AttributeValue | undefined): number | null {
  return value !== undefined && 'N' in value ? Number(value.N) : null;
}

function text(value: AttributeValue | undefined): string | null {
  return value !== undefined && 'S' in value ? value.S : null;
}

/**
 * An in-memory DynamoDB behind {@link DynamoDbSinkClient}, with the guard semantics of
 * `WriteGuard`, ValidationException for items without their key (or with a `poison`
 * attribute), and failures to inject.
 */
export class FakeDynamoDb implements DynamoDbSinkClient {
  readonly tables = new Map<string, { schema: TableKeySchema; items: Map<string, AttributeMap> }>();
  readonly writes: ItemWrite[] = [];
  describes = 0;
  destroyed = false;
  /** Rejects the next calls (describe or write) with these errors, in order. */
  readonly failures: unknown[] = [];
  /** After this many more successful writes, every write fails (a crash). */
  crashAfter = Number.POSITIVE_INFINITY;
  inFlight = 0;
  maxInFlight = 0;

  createTable(schema: TableKeySchema): this {
    this.tables.set(schema.table, { schema, items: new Map() });
    return this;
  }

  /** The items of `table`, sorted by key, as plain objects. */
  items(table: string): AttributeMap[] {
    const stored = this.tables.get(table);
    if (stored === undefined) return [];
    return [...stored.items.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, v]) => v);
  }

  /** A snapshot of every table, comparable with `toEqual`. */
  snapshot(): Record<string, Record<string, AttributeMap>> {
    const out: Record<string, Record<string, AttributeMap>> = {};
    for (const [name, { items }] of this.tables) out[name] = Object.fromEntries(items);
    return out;
  }

  async describeTable(table: string): Promise<TableKeySchema> {
    this.describes += 1;
    await Promise.resolve();
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
    const stored = this.tables.get(table);
    if (stored === undefined) throw sdkError('ResourceNotFoundException');
    return stored.schema;
  }

  async write(write: ItemWrite): Promise<WriteOutcome> {
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise((resolve) => setImmediate(resolve));
      return this.#apply(write);
    } finally {
      this.inFlight -= 1;
    }
  }

  #apply(write: ItemWrite): WriteOutcome {
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
    if (this.crashAfter <= 0) throw sdkError('SimulatedCrash', 400, 'the invocation died');
    const stored = this.tables.get(write.table);
    if (stored === undefined) throw sdkError('ResourceNotFoundException');
    const attributes = write.kind === 'put' ? write.item : write.key;
    if (write.kind === 'put' && 'poison' in write.item) {
      throw sdkError('ValidationException', 400, 'Item size has exceeded the maximum allowed size');
    }
    const keyNames = [stored.schema.partitionKey, stored.schema.sortKey].flatMap((k) =>
      k === null ? [] : [k],
    );
    const parts = keyNames.map((k) => {
      const value = attributes[k.name];
      if (value === undefined || !(k.type in value)) {
        throw sdkError('ValidationException', 400, `Missing the key ${k.name} in the item`);
      }
      return scalarIdentity(value);
    });
    const id = JSON.stringify(parts);
    const current = stored.items.get(id);
    const { names, topic, partition, offset } = write.guard;
    if (
      current !== undefined &&
      current[names.offset] !== undefined &&
      text(current[names.topic]) === topic &&
      num(current[names.partition]) === partition &&
      (num(current[names.offset]) ?? 0) >= offset
    ) {
      return 'stale';
    }
    this.writes.push(write);
    this.crashAfter -= 1;
    if (write.kind === 'put') stored.items.set(id, write.item);
    else stored.items.delete(id);
    return 'applied';
  }

  destroy(): void {
    this.destroyed = true;
  }
}

/** An errant record reporter that keeps what it is given. */
export class RecordingReporter implements ErrantRecordReporter {
  readonly reported: { record: SinkRecord; error: Error }[] = [];
  async report(record: SinkRecord, error: Error): Promise<void> {
    this.reported.push({ record, error });
  }
}

/** A sink task context with `reporter` (or none). */
export function sinkContext(
  props: Readonly<Record<string, string>>,
  reporter: ErrantRecordReporter | null = null,
): SinkTaskContext {
  return {
    configs: () => props,
    offset: () => {},
    timeout: () => {},
    assignment: () => [],
    pause: () => {},
    resume: () => {},
    requestCommit: () => {},
    errantRecordReporter: reporter,
  };
}

/** Deps over `fake`, a fixed clock, instant sleeps (recorded) and fixed randomness. */
export function fakeDeps(
  fake: FakeDynamoDb,
  sleeps: number[] = [],
  now = 1_700_000_000_000,
): DynamoDbSinkDeps {
  return {
    clock: { now: () => now },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    createClient: () => fake,
  };
}

/** A sink record on `topic` partition 0 unless given. */
export function sinkRecord(init: Partial<SinkRecordInit> & { kafkaOffset: number }): SinkRecord {
  return new SinkRecord({ topic: 'orders', kafkaPartition: 0, ...init });
}

/** A table keyed by `id` (a string). */
export const ORDERS_TABLE: TableKeySchema = {
  table: 'orders',
  partitionKey: { name: 'id', type: 'S' },
  sortKey: null,
};
