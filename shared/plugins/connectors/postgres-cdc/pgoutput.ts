/**
 * A decoder of PostgreSQL's `pgoutput` logical replication messages, protocol version 1
 * (https://www.postgresql.org/docs/current/protocol-logicalrep-message-formats.html): Begin,
 * Commit, Origin, Relation, Type, Insert, Update, Delete, Truncate and Message. Pure; values stay
 * in PostgreSQL's text form (see `text-values.ts` for their meaning).
 */
import { DataError } from 'serverless-connect/connect';
import type { Lsn } from './lsn.js';

/** Microseconds between the Unix epoch and PostgreSQL's (2000-01-01T00:00:00Z). */
export const POSTGRES_EPOCH_OFFSET_MICROS = 946_684_800_000_000n;

/** One column of a tuple: its text, `null`, or an unchanged TOASTed value the server did not send. */
export type TupleValue = string | null | typeof UNCHANGED_TOAST;

/** Marks a TOASTed value the update did not change (pgoutput's `u`). */
export const UNCHANGED_TOAST: unique symbol = Symbol('unchanged TOAST value');

/** A relation column as the Relation message describes it. */
export interface RelationColumn {
  /** Part of the replica identity (the primary key under REPLICA IDENTITY DEFAULT). */
  readonly key: boolean;
  readonly name: string;
  readonly typeOid: number;
  /** The type modifier (`atttypmod`), -1 when none. */
  readonly typmod: number;
}

export type ReplicaIdentity = 'default' | 'nothing' | 'full' | 'index';

export type PgoutputMessage =
  | {
      readonly tag: 'begin';
      readonly finalLsn: Lsn;
      readonly commitTimeMicros: bigint;
      readonly xid: number;
    }
  | {
      readonly tag: 'commit';
      readonly flags: number;
      readonly commitLsn: Lsn;
      readonly endLsn: Lsn;
      readonly commitTimeMicros: bigint;
    }
  | { readonly tag: 'origin'; readonly originLsn: Lsn; readonly name: string }
  | {
      readonly tag: 'relation';
      readonly relationOid: number;
      readonly namespace: string;
      readonly name: string;
      readonly replicaIdentity: ReplicaIdentity;
      readonly columns: readonly RelationColumn[];
    }
  | {
      readonly tag: 'type';
      readonly typeOid: number;
      readonly namespace: string;
      readonly name: string;
    }
  | {
      readonly tag: 'insert';
      readonly relationOid: number;
      readonly newTuple: readonly TupleValue[];
    }
  | {
      readonly tag: 'update';
      readonly relationOid: number;
      /** `key`: the old replica identity columns (the key changed); `old`: the whole old row (REPLICA IDENTITY FULL). */
      readonly oldKind: 'key' | 'old' | null;
      readonly oldTuple: readonly TupleValue[] | null;
      readonly newTuple: readonly TupleValue[];
    }
  | {
      readonly tag: 'delete';
      readonly relationOid: number;
      readonly oldKind: 'key' | 'old';
      readonly oldTuple: readonly TupleValue[];
    }
  | {
      readonly tag: 'truncate';
      readonly cascade: boolean;
      readonly restartIdentity: boolean;
      readonly relationOids: readonly number[];
    }
  | {
      readonly tag: 'message';
      readonly transactional: boolean;
      readonly lsn: Lsn;
      readonly prefix: string;
      readonly content: Uint8Array;
    };

const IDENTITIES: Readonly<Record<string, ReplicaIdentity>> = {
  d: 'default',
  n: 'nothing',
  f: 'full',
  i: 'index',
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads big-endian fields off a message, failing with a DataError past its end. */
class Reader {
  #at = 0;
  readonly #data: Uint8Array;
  readonly #view: DataView;

  constructor(data: Uint8Array) {
    this.#data = data;
    this.#view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }

  #need(count: number): number {
    const at = this.#at;
    if (at + count > this.#data.length) {
      throw new DataError(
        `pgoutput message truncated: needed ${count} bytes at ${at} of ${this.#data.length}`,
      );
    }
    this.#at += count;
    return at;
  }

  int8(): number {
    return this.#view.getUint8(this.#need(1));
  }
  int16(): number {
    return this.#view.getInt16(this.#need(2));
  }
  int32(): number {
    return this.#view.getInt32(this.#need(4));
  }
  uint32(): number {
    return this.#view.getUint32(this.#need(4));
  }
  uint64(): bigint {
    return this.#view.getBigUint64(this.#need(8));
  }
  int64(): bigint {
    return this.#view.getBigInt64(this.#need(8));
  }
  char(): string {
    return String.fromCharCode(this.int8());
  }
  bytes(count: number): Uint8Array {
    const at = this.#need(count);
    return this.#data.subarray(at, at + count);
  }
  /** A NUL-terminated UTF-8 string. */
  cstring(): string {
    const end = this.#data.indexOf(0, this.#at);
    if (end < 0) throw new DataError('pgoutput message truncated: unterminated string');
    const text = utf8.decode(this.#data.subarray(this.#at, end));
    this.#at = end + 1;
    return text;
  }
  tuple(): TupleValue[] {
    const count = this.int16();
    const values: TupleValue[] = [];
    for (let i = 0; i < count; i++) {
      const kind = this.char();
      if (kind === 'n') values.push(null);
      else if (kind === 'u') values.push(UNCHANGED_TOAST);
      else if (kind === 't') values.push(utf8.decode(this.bytes(this.uint32())));
      else
        throw new DataError(
          `pgoutput tuple column of unknown kind '${kind}' (binary mode is not used)`,
        );
    }
    return values;
  }
  get done(): boolean {
    return this.#at === this.#data.length;
  }
}

function oldKindOf(marker: string): 'key' | 'old' {
  if (marker === 'K') return 'key';
  if (marker === 'O') return 'old';
  throw new DataError(`pgoutput: expected an old tuple marker K or O, got '${marker}'`);
}

function expect(reader: Reader, marker: string): void {
  const got = reader.char();
  if (got !== marker) throw new DataError(`pgoutput: expected '${marker}', got '${got}'`);
}

/**
 * Decodes one pgoutput message (the payload of an XLogData message).
 * @throws DataError for an unknown message type or a malformed message.
 */
export function decodePgoutput(payload: Uint8Array): PgoutputMessage {
  const reader = new Reader(payload);
  const tag = reader.char();
  const message = decodeBody(tag, reader);
  if (!reader.done) throw new DataError(`pgoutput '${tag}' message has trailing bytes`);
  return message;
}

function decodeBody(tag: string, r: Reader): PgoutputMessage {
  switch (tag) {
    case 'B':
      return { tag: 'begin', finalLsn: r.uint64(), commitTimeMicros: r.int64(), xid: r.uint32() };
    case 'C':
      return {
        tag: 'commit',
        flags: r.int8(),
        commitLsn: r.uint64(),
        endLsn: r.uint64(),
        commitTimeMicros: r.int64(),
      };
    case 'O':
      return { tag: 'origin', originLsn: r.uint64(), name: r.cstring() };
    case 'R': {
      const relationOid = r.uint32();
      const namespace = r.cstring();
      const name = r.cstring();
      const identity = r.char();
      const count = r.int16();
      const columns: RelationColumn[] = [];
      for (let i = 0; i < count; i++) {
        const flags = r.int8();
        columns.push({
          key: (flags & 1) === 1,
          name: r.cstring(),
          typeOid: r.uint32(),
          typmod: r.int32(),
        });
      }
      return {
        tag: 'relation',
        relationOid,
        // pgoutput sends an empty namespace for pg_catalog.
        namespace: namespace === '' ? 'pg_catalog' : namespace,
        name,
        replicaIdentity: IDENTITIES[identity] ?? 'default',
        columns,
      };
    }
    case 'Y':
      return { tag: 'type', typeOid: r.uint32(), namespace: r.cstring(), name: r.cstring() };
    case 'I': {
      const relationOid = r.uint32();
      expect(r, 'N');
      return { tag: 'insert', relationOid, newTuple: r.tuple() };
    }
    case 'U': {
      const relationOid = r.uint32();
      let marker = r.char();
      let oldKind: 'key' | 'old' | null = null;
      let oldTuple: TupleValue[] | null = null;
      if (marker !== 'N') {
        oldKind = oldKindOf(marker);
        oldTuple = r.tuple();
        marker = r.char();
      }
      if (marker !== 'N') throw new DataError(`pgoutput: expected 'N', got '${marker}'`);
      return { tag: 'update', relationOid, oldKind, oldTuple, newTuple: r.tuple() };
    }
    case 'D': {
      const relationOid = r.uint32();
      const oldKind = oldKindOf(r.char());
      return { tag: 'delete', relationOid, oldKind, oldTuple: r.tuple() };
    }
    case 'T': {
      const count = r.uint32();
      const options = r.int8();
      const relationOids: number[] = [];
      for (let i = 0; i < count; i++) relationOids.push(r.uint32());
      return {
        tag: 'truncate',
        cascade: (options & 1) === 1,
        restartIdentity: (options & 2) === 2,
        relationOids,
      };
    }
    case 'M': {
      const flags = r.int8();
      const lsn = r.uint64();
      const prefix = r.cstring();
      const content = r.bytes(r.uint32()).slice();
      return { tag: 'message', transactional: (flags & 1) === 1, lsn, prefix, content };
    }
    default:
      throw new DataError(
        `Unknown pgoutput message type '${tag}' (0x${tag.charCodeAt(0).toString(16)})`,
      );
  }
}

/** PostgreSQL microseconds since 2000-01-01 → microseconds since the Unix epoch. */
export function postgresMicrosToUnixMicros(micros: bigint): bigint {
  return micros + POSTGRES_EPOCH_OFFSET_MICROS;
}
