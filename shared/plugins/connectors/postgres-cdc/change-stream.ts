/**
 * Turns the replication stream into change records, transaction by transaction:
 * - each change message of a transaction has an index; with the transaction's commit LSN it is
 *   the event's position, and events at or before the committed position are dropped (the
 *   server sends again every transaction after the slot's confirmed position);
 * - the records of the latest change are held until the next message shows whether it ends its
 *   transaction, so that the last event of a transaction carries, in `lsn_commit`, the end of
 *   that transaction (the slot may then be confirmed past it);
 * - between transactions, the server's WAL end (keepalives, commit ends) is where a heartbeat
 *   may put the offset.
 */
import { DataError, type SourceRecord } from 'serverless-connect/connect';
import { isDelivered, type StreamPosition, streamOffset } from './cdc-offsets.js';
import type { ChangeRecords, EventOrigin } from './change-records.js';
import { sequenceOf, type TableShape } from './debezium-schemas.js';
import { type Lsn, maxLsn } from './lsn.js';
import { decodePgoutput, type PgoutputMessage, postgresMicrosToUnixMicros } from './pgoutput.js';
import type { ServerMessage } from './replication-protocol.js';

type RelationMessage = Extract<PgoutputMessage, { tag: 'relation' }>;

/** The shape of a relation, or `null` when its changes are not captured. */
export type ShapeResolver = (relation: RelationMessage) => Promise<TableShape | null>;

interface OpenTransaction {
  readonly commitLsn: Lsn;
  readonly xid: number;
  readonly timeMicros: bigint;
  next: number;
}

export interface ChangeStreamOptions {
  readonly records: ChangeRecords;
  readonly resolve: ShapeResolver;
  /** The committed position: events at or before it are not emitted again. */
  readonly committed: StreamPosition | null;
  /** Where the slot stands (everything before it was delivered). */
  readonly confirmable: Lsn;
}

export class ChangeStream {
  readonly #options: ChangeStreamOptions;
  readonly #relations = new Map<number, TableShape | null>();
  #tx: OpenTransaction | null = null;
  #held: ((confirmable: Lsn) => SourceRecord[]) | null = null;
  #completeEnd: Lsn;
  #idleWalEnd: Lsn;
  #lastCommitLsn: Lsn | null = null;
  #lastTxId: number | null = null;
  #lastTimeMicros: bigint | null = null;

  constructor(options: ChangeStreamOptions) {
    this.#options = options;
    this.#completeEnd = options.confirmable;
    this.#idleWalEnd = options.confirmable;
    this.#lastTxId = options.committed?.txId ?? null;
    this.#lastTimeMicros = options.committed?.timeMicros ?? null;
  }

  /** The records `messages` complete, in order (the last change may be held for the next call). */
  async process(messages: readonly ServerMessage[]): Promise<SourceRecord[]> {
    const out: SourceRecord[] = [];
    for (const message of messages) {
      if (message.kind === 'keepalive') {
        if (this.#tx === null) this.#idleWalEnd = maxLsn(this.#idleWalEnd, message.walEnd);
        continue;
      }
      await this.#apply(decodePgoutput(message.payload), message.start, out);
    }
    return out;
  }

  /**
   * Where a heartbeat may put the offset now: between transactions, the furthest WAL position
   * known to be delivered; `null` inside a transaction.
   */
  heartbeatPosition(): StreamPosition | null {
    if (this.#tx !== null || this.#held !== null) return null;
    const lsn = maxLsn(this.#idleWalEnd, this.#completeEnd);
    return {
      kind: 'stream',
      lsn,
      event: -1,
      confirmable: lsn,
      eventLsn: lsn,
      txId: this.#lastTxId,
      timeMicros: this.#lastTimeMicros,
    };
  }

  #release(confirmable: Lsn, out: SourceRecord[]): void {
    const held = this.#held;
    this.#held = null;
    if (held !== null) out.push(...held(confirmable));
  }

  async #apply(message: PgoutputMessage, start: Lsn, out: SourceRecord[]): Promise<void> {
    switch (message.tag) {
      case 'begin':
        this.#tx = {
          commitLsn: message.finalLsn,
          xid: message.xid,
          timeMicros: postgresMicrosToUnixMicros(message.commitTimeMicros),
          next: 0,
        };
        return;
      case 'commit':
        this.#release(message.endLsn, out);
        this.#completeEnd = maxLsn(this.#completeEnd, message.endLsn);
        this.#lastCommitLsn = message.commitLsn;
        if (this.#tx !== null) {
          this.#lastTxId = this.#tx.xid;
          this.#lastTimeMicros = this.#tx.timeMicros;
        }
        this.#tx = null;
        return;
      case 'relation':
        this.#relations.set(message.relationOid, await this.#options.resolve(message));
        return;
      case 'insert':
      case 'update':
      case 'delete':
      case 'truncate':
        this.#change(message, start, out);
        return;
      default:
        // Type, Origin and logical decoding messages carry no row changes.
        return;
    }
  }

  #shape(oid: number): TableShape | null {
    const shape = this.#relations.get(oid);
    if (shape === undefined)
      throw new DataError(`pgoutput sent a change of relation ${oid} before describing it`);
    return shape;
  }

  #change(
    message: Extract<PgoutputMessage, { tag: 'insert' | 'update' | 'delete' | 'truncate' }>,
    start: Lsn,
    out: SourceRecord[],
  ): void {
    const tx = this.#tx;
    if (tx === null) throw new DataError(`pgoutput sent a ${message.tag} outside a transaction`);
    const index = tx.next++;
    this.#release(this.#completeEnd, out);
    const committed = this.#options.committed;
    if (committed !== null && isDelivered(tx.commitLsn, index, committed)) return;
    const origin: EventOrigin = {
      timeMicros: tx.timeMicros,
      snapshot: 'false',
      txId: tx.xid,
      lsn: start,
      sequence: sequenceOf(this.#lastCommitLsn, start),
    };
    const offset = (confirmable: Lsn) =>
      streamOffset({
        lsn: tx.commitLsn,
        event: index,
        confirmable,
        eventLsn: start,
        txId: tx.xid,
        timeMicros: tx.timeMicros,
      });
    const records = this.#options.records;
    if (message.tag === 'truncate') {
      const shapes = message.relationOids
        .map((oid) => this.#shape(oid))
        .filter((s): s is TableShape => s !== null);
      if (shapes.length > 0)
        this.#held = (c) => shapes.flatMap((s) => records.truncate(s, origin, offset(c)));
      return;
    }
    const shape = this.#shape(message.relationOid);
    if (shape === null) return;
    switch (message.tag) {
      case 'insert':
        this.#held = (c) => records.insert(shape, message.newTuple, origin, offset(c));
        return;
      case 'update':
        this.#held = (c) =>
          records.update(
            shape,
            message.oldKind,
            message.oldTuple,
            message.newTuple,
            origin,
            offset(c),
          );
        return;
      case 'delete':
        this.#held = (c) => records.delete(shape, message.oldTuple, origin, offset(c));
        return;
    }
  }
}
