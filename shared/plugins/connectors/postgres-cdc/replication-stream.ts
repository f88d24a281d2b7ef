/**
 * A logical replication stream over node-postgres: a `replication=database` connection that
 * creates slots and runs `START_REPLICATION … LOGICAL` in CopyBoth mode. What the server sends
 * is queued (the socket pauses when the queue is full); the slot is confirmed only up to the
 * position the caller gives to {@link ReplicationStream.confirm}, in each status update: at
 * every keepalive asking for one, and every `statusIntervalMs` so the server keeps the stream.
 */

import pg from 'pg';
import { ConnectError, RetriableError } from 'serverless-connect/connect';
import type { ConnectionSettings } from '../postgres/connection-url.js';
import { toConnectError } from '../postgres/pg-client.js';
import { pgClientConfigOf } from '../postgres/pg-pool.js';
import { formatLsn, type Lsn, parseLsn } from './lsn.js';
import {
  parseServerMessage,
  type ServerMessage,
  standbyStatusUpdate,
} from './replication-protocol.js';

/** The session settings whose text formats `text-values.ts` reads (both connections set them). */
export const SESSION_OPTIONS: readonly string[] = [
  '-c TimeZone=UTC',
  '-c DateStyle=ISO',
  '-c IntervalStyle=postgres',
  '-c bytea_output=hex',
  '-c extra_float_digits=3',
];

/** A plain connection with {@link SESSION_OPTIONS}: catalog queries, the snapshot, heartbeats. */
export async function connectQueryClient(settings: ConnectionSettings): Promise<pg.Client> {
  const client = new pg.Client(pgClientConfigOf(settings, SESSION_OPTIONS));
  // A dropped idle connection surfaces on its next query.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw toConnectError(error, 'connecting to PostgreSQL');
  }
  return client;
}

/** The internals of node-postgres's Client used for CopyBoth (stable since pg 8.0). */
interface WireConnection {
  on(event: 'copyData', listener: (message: { chunk: Buffer }) => void): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  readonly stream: { pause(): void; resume(): void };
}

/** Messages queued before the socket pauses, and the level it resumes at. */
const HIGH_WATER = 8192;
const LOW_WATER = 2048;

export interface StreamOptions {
  readonly statusIntervalMs: number;
  /** Unix microseconds now (status updates carry the client's clock). */
  readonly nowMicros: () => bigint;
}

/** A created slot: where its stream starts, and the exported snapshot (while the connection is idle). */
export interface CreatedSlot {
  readonly consistentPoint: Lsn;
  readonly snapshotName: string | null;
}

export class ReplicationStream {
  readonly #client: pg.Client;
  readonly #wire: WireConnection;
  readonly #options: StreamOptions;
  readonly #queue: ServerMessage[] = [];
  #queuedData = 0;
  #paused = false;
  #confirmed: Lsn | null = null;
  #failure: Error | null = null;
  #streaming: Promise<unknown> | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;
  #wake: (() => void) | null = null;
  #closed = false;

  private constructor(client: pg.Client, options: StreamOptions) {
    this.#client = client;
    this.#wire = (client as unknown as { connection: WireConnection }).connection;
    this.#options = options;
    client.on('error', (error) => this.#fail(error));
    client.on('end', () => this.#fail(new Error('Connection terminated')));
  }

  /** Connects a replication connection. @throws RetriableError when the server is unreachable. */
  static async connect(
    settings: ConnectionSettings,
    options: StreamOptions,
  ): Promise<ReplicationStream> {
    const client = new pg.Client({
      ...pgClientConfigOf(settings, SESSION_OPTIONS),
      replication: 'database',
    } as pg.ClientConfig);
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      throw toConnectError(error, 'opening the replication connection');
    }
    return new ReplicationStream(client, options);
  }

  /** `CREATE_REPLICATION_SLOT … LOGICAL pgoutput`, exporting a snapshot when asked. */
  async createSlot(slot: string, exportSnapshot: boolean): Promise<CreatedSlot> {
    try {
      const { rows } = await this.#client.query(
        `CREATE_REPLICATION_SLOT ${slot} LOGICAL pgoutput ${exportSnapshot ? 'EXPORT_SNAPSHOT' : 'NOEXPORT_SNAPSHOT'}`,
      );
      const row = rows[0] as { consistent_point: string; snapshot_name: string | null };
      return {
        consistentPoint: parseLsn(row.consistent_point),
        snapshotName: row.snapshot_name ?? null,
      };
    } catch (error) {
      throw toConnectError(error, `creating replication slot ${slot}`);
    }
  }

  /**
   * `START_REPLICATION SLOT … LOGICAL start`, streaming `publication`; resolves once the server
   * streams. `confirmed` is the position status updates confirm until {@link confirm} moves it.
   */
  async start(slot: string, start: Lsn, publication: string, confirmed: Lsn): Promise<void> {
    this.#confirmed = confirmed;
    const quoted = publication.replaceAll("'", "''");
    this.#wire.on('copyData', ({ chunk }) => this.#receive(chunk));
    const started = new Promise<void>((resolve) => {
      (this.#wire as unknown as NodeJS.EventEmitter).once('replicationStart', () => resolve());
    });
    this.#streaming = this.#client
      .query(
        `START_REPLICATION SLOT ${slot} LOGICAL ${formatLsn(start)} (proto_version '1', publication_names '${quoted}')`,
      )
      .catch((error: unknown) => {
        this.#fail(error);
        throw error;
      });
    this.#streaming.catch(() => undefined);
    await Promise.race([started, this.#streaming]).catch((error: unknown) => {
      throw startError(error, slot);
    });
    this.#timer = setInterval(() => this.#sendStatus(false), this.#options.statusIntervalMs);
    this.#timer.unref?.();
    this.#sendStatus(false);
  }

  /** Moves the confirmed position up to `lsn` (never down) and tells the server at once. */
  confirm(lsn: Lsn): void {
    if (this.#confirmed === null || lsn > this.#confirmed) this.#confirmed = lsn;
    this.#sendStatus(false);
  }

  /** The position status updates confirm. */
  get confirmed(): Lsn | null {
    return this.#confirmed;
  }

  /** Up to `max` queued messages (keepalives included), oldest first. @throws the stream's failure. */
  take(max: number): ServerMessage[] {
    const taken = this.#queue.splice(0, Math.min(max, this.#queue.length));
    for (const m of taken) if (m.kind === 'xlogdata') this.#queuedData -= 1;
    if (this.#paused && this.#queuedData <= LOW_WATER) {
      this.#paused = false;
      this.#wire.stream.resume();
    }
    if (taken.length === 0 && this.#failure !== null) throw this.#failure;
    return taken;
  }

  /** Resolves when a message is queued, the stream failed, or after `ms`. */
  async waitForMessages(ms: number): Promise<void> {
    if (this.#queue.length > 0 || this.#failure !== null) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
    this.#wake = null;
  }

  /** Ends the stream (CopyDone, waiting briefly for the server) and closes the connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    clearInterval(this.#timer);
    // The last status update confirms what was committed, before the stream is marked closed.
    if (this.#streaming !== null) this.#sendStatus(false);
    this.#closed = true;
    this.#failure ??= new ConnectError('The replication stream was closed');
    if (this.#streaming !== null) {
      try {
        this.#wire.endCopyFrom();
        this.#wire.stream.resume();
        await Promise.race([
          this.#streaming.catch(() => undefined),
          new Promise((r) => setTimeout(r, 2_000)),
        ]);
      } catch {
        // The connection is going anyway.
      }
    }
    await this.#client.end().catch(() => undefined);
  }

  #receive(chunk: Buffer): void {
    let message: ServerMessage;
    try {
      // A copy: node-postgres's parser reuses its buffer for the bytes that arrive next.
      message = parseServerMessage(new Uint8Array(chunk));
    } catch (error) {
      this.#fail(error);
      return;
    }
    if (message.kind === 'keepalive' && message.replyRequested) this.#sendStatus(false);
    this.#queue.push(message);
    if (message.kind === 'xlogdata') this.#queuedData += 1;
    if (!this.#paused && this.#queuedData >= HIGH_WATER) {
      this.#paused = true;
      this.#wire.stream.pause();
    }
    this.#wake?.();
  }

  #sendStatus(replyRequested: boolean): void {
    if (this.#confirmed === null || this.#failure !== null) return;
    try {
      this.#wire.sendCopyFromChunk(
        Buffer.from(
          standbyStatusUpdate(this.#confirmed, this.#options.nowMicros(), replyRequested),
        ),
      );
    } catch (error) {
      this.#fail(error);
    }
  }

  #fail(error: unknown): void {
    if (this.#failure === null && !this.#closed) {
      this.#failure = toConnectError(error, 'streaming changes');
    }
    this.#wake?.();
  }
}

/** A slot another connection streams from is retriable (its walsender goes when it notices). */
function startError(error: unknown, slot: string): ConnectError {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === '55006') {
    return new RetriableError(
      `Replication slot ${slot} is still in use by another connection (an earlier invocation); retrying`,
      { cause: error },
    );
  }
  return toConnectError(error, `starting replication from slot ${slot}`);
}
