import type { ConnectorRecord, TaskConfigSet } from '../../ports/config-store.js';
import type { LoggerLevel, PendingRestart } from '../../ports/connector-meta-store.js';
import type { IdleStreak } from '../../ports/lease-store.js';
import type {
  CommittedSourceOffsets,
  OffsetsTopicWatermark,
  PendingSourceOffsets,
  SinkOffset,
} from '../../ports/offset-store.js';
import type { Status, TaskStatus } from '../../ports/status-store.js';

/** A task's record: lease, epoch, status and source offsets (one DynamoDB item `TASK#n`). */
export interface TaskRecord {
  epoch?: number;
  lease?: { owner: string; expiresAt: number; generation: number };
  /** The idle streak the last lease release recorded. */
  idle?: IdleStreak;
  status?: Omit<TaskStatus, 'connector' | 'task'>;
  committed?: CommittedSourceOffsets;
  pending?: PendingSourceOffsets;
  /** The Kafka entry's (task KAFKA_OFFSETS_TASK) watermark. */
  watermark?: OffsetsTopicWatermark;
}

/** A restart request, kept after completion so its seq keeps increasing. */
export interface RestartRecord extends PendingRestart {
  completed: boolean;
}

/** Everything stored under one connector name: the memory twin of one DynamoDB partition. */
export interface ConnectorItems {
  connector?: ConnectorRecord;
  tasks?: TaskConfigSet;
  readonly taskRecords: Map<number, TaskRecord>;
  status?: Status;
  readonly sinkOffsets: Map<string, SinkOffset>;
  readonly topics: Set<string>;
  restart?: RestartRecord;
}

/**
 * The in-memory tables behind the memory adapters. Each store method reads and writes it
 * synchronously (no `await` between a check and its write), which makes every method atomic,
 * as a conditional single-item write is in DynamoDB.
 */
export class MemoryDb {
  readonly #connectors = new Map<string, ConnectorItems>();
  readonly loggers = new Map<string, LoggerLevel>();

  /** The connector's items, created empty on first write. */
  items(connector: string): ConnectorItems {
    let items = this.#connectors.get(connector);
    if (items === undefined) {
      items = { taskRecords: new Map(), sinkOffsets: new Map(), topics: new Set() };
      this.#connectors.set(connector, items);
    }
    return items;
  }

  /** The connector's items if any were ever written. */
  peek(connector: string): ConnectorItems | undefined {
    return this.#connectors.get(connector);
  }

  drop(connector: string): void {
    this.#connectors.delete(connector);
  }

  /** Names of stored connectors (with a config), ascending. */
  connectorNames(): string[] {
    return [...this.#connectors.values()]
      .flatMap((items) => (items.connector === undefined ? [] : [items.connector.name]))
      .sort(compareNames);
  }

  /** How many DynamoDB items the connector's state would take; for the contract suite. */
  countItems(connector: string): number {
    const items = this.#connectors.get(connector);
    if (items === undefined) return 0;
    return (
      (items.connector === undefined ? 0 : 1) +
      (items.tasks === undefined ? 0 : 1) +
      items.taskRecords.size +
      (items.status === undefined ? 0 : 1) +
      items.sinkOffsets.size +
      items.topics.size +
      (items.restart === undefined ? 0 : 1)
    );
  }
}

/** Ascending by code point (the order of DynamoDB's UTF-8 sort keys). */
export function compareNames(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < Math.min(left.length, right.length); i += 1) {
    const diff = (left[i]?.codePointAt(0) ?? 0) - (right[i]?.codePointAt(0) ?? 0);
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}

/** A deep copy, so callers never share objects with the store. */
export function copy<T>(value: T): T {
  return structuredClone(value);
}

/** UTF-8 size of a value's JSON: the memory adapter's measure of an item. */
export function jsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}
