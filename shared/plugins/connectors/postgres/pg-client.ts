/**
 * What the PostgreSQL connectors need of node-postgres, as narrow interfaces (`pg`'s Pool and PoolClient fit
 * them), the container's pools, and PostgreSQL errors as ConnectErrors.
 *
 * One pool per connection setting per container, small (at most {@link POOL_MAX} connections),
 * kept across invocations while a task uses it and ended when the last task using it stops.
 */
import { ConnectError, RetriableError } from 'serverless-connect/connect';
import type { ConnectionSettings } from './connection-url.js';
import type { Statement } from './identifiers.js';

/** A result column as the server describes it (node-postgres' `FieldDef`). */
export interface PgField {
  readonly name: string;
  /** The OID of the table the column comes from, 0 for an expression. */
  readonly tableID: number;
  /** The column's attribute number in that table, 0 for an expression. */
  readonly columnID: number;
  /** The type OID. */
  readonly dataTypeID: number;
  /** The type modifier (`numeric(p,s)`, `bit(n)`…), -1 when none. */
  readonly dataTypeModifier: number;
}

/**
 * A query whose rows come back as arrays of PostgreSQL's text values, unparsed, with the
 * columns described: for connectors that map types themselves (see `textQuery` in postgres-source).
 */
export interface PgTextQuery {
  readonly text: string;
  readonly values: unknown[];
  readonly rowMode: 'array';
  /** Every type's parser: the identity, so each value stays the server's text. */
  readonly types: { getTypeParser: (oid: number, format?: string) => (text: string) => unknown };
}

/** The result of a {@link PgTextQuery}: one array per row, one text (or null) per column. */
export interface PgTextResult {
  rows: (string | null)[][];
  fields: PgField[];
}

/** One pooled connection. */
export interface PgClient {
  query(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
  query(config: PgTextQuery): Promise<PgTextResult>;
  /** Gives the connection back; with an error, the pool discards it. */
  release(error?: Error | boolean): void;
}

/** A pool of connections to one server as one user. */
export interface PgPool {
  connect(): Promise<PgClient>;
  end(): Promise<void>;
}

/** Builds a pool (in production `new pg.Pool(...)`, see descriptor.ts). */
export type PgPoolFactory = (settings: ConnectionSettings, max: number) => PgPool;

/** The most connections a container keeps per connection setting. */
export const POOL_MAX = 2;

/** Runs `statement` on `client`. */
export function run(client: PgClient, statement: Statement) {
  return client.query(statement.text, [...statement.values]);
}

/** A pool lent to a task; `release` once the task stops. */
export interface PoolLease {
  readonly pool: PgPool;
  release(): Promise<void>;
}

/** The container's pools, shared by every task (and connector) with the same settings. */
export class PostgresPools {
  readonly #pools = new Map<string, { pool: PgPool; users: number }>();

  constructor(private readonly factory: PgPoolFactory) {}

  /** The pool of `settings`, created on first use. */
  acquire(settings: ConnectionSettings): PoolLease {
    const id = JSON.stringify(settings);
    let entry = this.#pools.get(id);
    if (entry === undefined) {
      entry = { pool: this.factory(settings, POOL_MAX), users: 0 };
      this.#pools.set(id, entry);
    }
    entry.users += 1;
    const held = entry;
    let released = false;
    return {
      pool: held.pool,
      release: async () => {
        if (released) return;
        released = true;
        held.users -= 1;
        if (held.users === 0 && this.#pools.get(id) === held) {
          this.#pools.delete(id);
          await held.pool.end();
        }
      },
    };
  }

  /** How many pools are open (for tests and metrics). */
  get size(): number {
    return this.#pools.size;
  }
}

/** SQLSTATE classes worth retrying: connection, rollback (serialization, deadlock), resources, operator. */
const RETRIABLE_SQLSTATE = /^(08|40|53|57P|58|55P03)/;
const RETRIABLE_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * `error` as a ConnectError: lost connections, serialization failures, deadlocks and servers
 * shutting down are retriable (the batch is redelivered); anything else (a constraint violated,
 * a type mismatch, a refused login) fails the task with PostgreSQL's message and SQLSTATE.
 */
export function toConnectError(error: unknown, doing: string): ConnectError {
  if (error instanceof ConnectError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const text = `PostgreSQL: ${doing} failed: ${message}${typeof code === 'string' ? ` (${code})` : ''}`;
  const retriable =
    (typeof code === 'string' &&
      (RETRIABLE_SQLSTATE.test(code) || RETRIABLE_NODE_CODES.has(code))) ||
    /Connection terminated|timeout expired|Client has encountered a connection error/i.test(
      message,
    );
  return retriable
    ? new RetriableError(text, { cause: error })
    : new ConnectError(text, { cause: error });
}

/**
 * Runs `fn` in a transaction on a pooled connection: COMMIT when it resolves, ROLLBACK (and the
 * connection discarded) when it throws. @throws the error as a ConnectError ({@link toConnectError}).
 */
export async function inTransaction<T>(
  pool: PgPool,
  doing: string,
  fn: (client: PgClient) => Promise<T>,
): Promise<T> {
  let client: PgClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw toConnectError(error, `${doing} (connecting)`);
  }
  let failure: unknown;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    failure = error;
    await client.query('ROLLBACK').catch(() => undefined);
    throw toConnectError(error, doing);
  } finally {
    client.release(failure === undefined ? undefined : true);
  }
}
