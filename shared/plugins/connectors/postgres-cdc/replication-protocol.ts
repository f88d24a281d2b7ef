/**
 * The streaming replication protocol's CopyData messages
 * (https://www.postgresql.org/docs/current/protocol-replication.html): the server's XLogData
 * (`w`) and primary keepalive (`k`) messages, and the standby status update (`r`) the client
 * sends to confirm a flushed position. Pure.
 */
import { DataError } from 'serverless-connect/connect';
import type { Lsn } from './lsn.js';
import { POSTGRES_EPOCH_OFFSET_MICROS } from './pgoutput.js';

export type ServerMessage =
  /** A pgoutput message starting at WAL position `start`. */
  | {
      readonly kind: 'xlogdata';
      readonly start: Lsn;
      readonly walEnd: Lsn;
      readonly payload: Uint8Array;
    }
  /** The server's WAL end; `replyRequested` asks for a status update at once. */
  | { readonly kind: 'keepalive'; readonly walEnd: Lsn; readonly replyRequested: boolean };

const XLOGDATA_HEADER = 1 + 8 + 8 + 8;

/** Reads one CopyData payload the server sent. @throws DataError for anything else. */
export function parseServerMessage(chunk: Uint8Array): ServerMessage {
  const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  const type = chunk[0];
  if (type === 0x77 && chunk.length >= XLOGDATA_HEADER) {
    return {
      kind: 'xlogdata',
      start: view.getBigUint64(1),
      walEnd: view.getBigUint64(9),
      payload: chunk.subarray(XLOGDATA_HEADER),
    };
  }
  if (type === 0x6b && chunk.length >= 18) {
    return { kind: 'keepalive', walEnd: view.getBigUint64(1), replyRequested: chunk[17] === 1 };
  }
  throw new DataError(
    `Unexpected replication message (type 0x${(type ?? 0).toString(16)}, ${chunk.length} bytes)`,
  );
}

/**
 * A standby status update confirming `flushed` as written, flushed and applied: the slot's
 * `confirmed_flush_lsn` moves up to it (never down). `nowMicros`: the client's clock, Unix
 * microseconds.
 */
export function standbyStatusUpdate(
  flushed: Lsn,
  nowMicros: bigint,
  replyRequested = false,
): Uint8Array {
  const message = new Uint8Array(1 + 8 + 8 + 8 + 8 + 1);
  const view = new DataView(message.buffer);
  message[0] = 0x72; // 'r'
  view.setBigUint64(1, flushed);
  view.setBigUint64(9, flushed);
  view.setBigUint64(17, flushed);
  view.setBigInt64(25, nowMicros - POSTGRES_EPOCH_OFFSET_MICROS);
  message[33] = replyRequested ? 1 : 0;
  return message;
}
