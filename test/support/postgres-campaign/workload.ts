/**
 * The PostgreSQL campaign's workload: random transactions against the source database, and its
 * own log of what each committed transaction did (rolled-back ones leave nothing in it).
 *
 * - `items`: inserts, updates (some of the primary key: a delete and a create) and deletes;
 *   `REPLICA IDENTITY FULL`, so a delete's `before` holds the whole row. Every write gives the row a new `rev` (one sequence, unique in the table), so
 *   a change is named by `(op, rev)`: `c`/`u` by the row's new rev, `d` by the rev it had.
 * - `orders`: inserts only (serial `id`), for postgres-source in `incrementing` mode. One writer,
 *   transactions one after the other and never rolled back: ids commit in order, 1, 2, 3, …
 *   (the mode's own condition: a row committed below the largest id read is never read).
 *
 * A transaction is one to three random writes, sometimes a bulk of items inserts (longer than
 * the CDC connector's `max.batch.size`, so it spans Kafka transactions), sometimes rolled back
 * (items only).
 */
import pg from 'pg';

/** A committed change to `items`, in commit order; `r`: a row that was there before streaming. */
export interface LoggedChange {
  readonly op: 'r' | 'c' | 'u' | 'd';
  readonly id: number;
  readonly rev: number;
}

export const ITEMS_DDL = [
  'CREATE SEQUENCE items_rev',
  "CREATE TABLE items (id bigserial PRIMARY KEY, rev bigint NOT NULL UNIQUE DEFAULT nextval('items_rev'), qty integer NOT NULL, note text)",
  'ALTER TABLE items REPLICA IDENTITY FULL',
  'CREATE TABLE orders (id serial PRIMARY KEY, customer text NOT NULL, qty integer NOT NULL, note text)',
];

const BULK_MIN = 10;
const BULK_SPREAD = 30;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class Workload {
  /** Committed changes to `items`, in commit order. */
  readonly changes: LoggedChange[] = [];
  /** Committed order ids, in commit order. */
  readonly orders: number[] = [];
  transactions = 0;
  rolledBack = 0;
  /** Committed primary key changes. */
  keyChanges = 0;
  readonly #db: pg.Client;
  readonly #random: () => number;
  /** Live items: id → rev, as of the last commit. */
  #items = new Map<number, number>();
  #running: Promise<void> | undefined;
  #stopping = false;
  #failure: unknown;

  private constructor(db: pg.Client, random: () => number) {
    this.#db = db;
    this.#random = random;
  }

  /** Connects to the source database and creates the tables. */
  static async create(url: string, random: () => number): Promise<Workload> {
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    for (const statement of ITEMS_DDL) await db.query(statement);
    return new Workload(db, random);
  }

  /** Rows there before anything streams: logged as the snapshot's `r` reads. */
  async seed(items: number, orders: number): Promise<void> {
    await this.#transaction(async (tx) => {
      for (let i = 0; i < items; i += 1) await tx.insertItem();
      for (let i = 0; i < orders; i += 1) await tx.insertOrder();
    }, 'r');
  }

  /** Starts writing a transaction every `pauseMs` or so, until {@link stop}. */
  start(pauseMs: number): void {
    this.#running ??= (async () => {
      try {
        while (!this.#stopping) {
          await this.#randomTransaction();
          await sleep(Math.floor(this.#random() * 2 * pauseMs));
        }
      } catch (error) {
        this.#failure = error;
      }
    })();
  }

  /** Whether the workload stopped on an error (which {@link stop} rethrows). */
  get failed(): boolean {
    return this.#failure !== undefined;
  }

  /** Stops after the transaction under way; rethrows what failed the workload. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#running;
    if (this.#failure !== undefined) {
      throw new Error('the workload failed', { cause: this.#failure });
    }
  }

  /**
   * Checks the log against the tables (the log is what the delivered output is held against):
   * the live rows and their revs, and the order ids.
   * @throws Error naming the first difference
   */
  async checkTables(): Promise<void> {
    const items = await this.#db.query('SELECT id::int AS id, rev::int AS rev FROM items');
    const actual = new Map(items.rows.map((row) => [Number(row.id), Number(row.rev)]));
    for (const [id, rev] of this.#items) {
      if (actual.get(id) !== rev)
        throw new Error(`workload log: item ${id} should have rev ${rev}`);
    }
    if (actual.size !== this.#items.size) {
      throw new Error(
        `workload log: ${actual.size} items in the table, ${this.#items.size} logged`,
      );
    }
    const orders = await this.#db.query('SELECT id FROM orders ORDER BY id');
    const ids = orders.rows.map((row) => Number(row.id));
    if (ids.join(',') !== this.orders.join(',')) {
      throw new Error(
        `workload log: ${ids.length} orders in the table, ${this.orders.length} logged`,
      );
    }
  }

  async close(): Promise<void> {
    await this.stop().catch(() => undefined);
    await this.#db.end();
  }

  async #randomTransaction(): Promise<void> {
    const next = this.#random;
    const bulk = next() < 0.05;
    const writes = bulk ? BULK_MIN + Math.floor(next() * BULK_SPREAD) : 1 + Math.floor(next() * 3);
    const plan = Array.from({ length: writes }, () => (bulk ? 0.1 : next()));
    const hasOrder = plan.some((p) => p >= 0.8);
    // Orders commit in id order only if no transaction holding one rolls back (module notes).
    const rollback = !hasOrder && next() < 0.07;
    await this.#transaction(
      async (tx) => {
        for (const p of plan) {
          if (p >= 0.8) await tx.insertOrder();
          else if (p < 0.35 || tx.live.size === 0) await tx.insertItem();
          else if (p < 0.6) await tx.updateItem(next());
          else if (p < 0.65) await tx.moveItem(next());
          else await tx.deleteItem(next());
        }
      },
      'c',
      rollback,
    );
  }

  /**
   * Runs `body` in a transaction; its changes are logged once COMMIT returned (as `insertOp`
   * for inserts), and dropped on a rollback.
   */
  async #transaction(
    body: (tx: WorkloadTransaction) => Promise<void>,
    insertOp: 'r' | 'c',
    rollback = false,
  ): Promise<void> {
    const tx = new WorkloadTransaction(this.#db, new Map(this.#items), insertOp);
    await this.#db.query('BEGIN');
    try {
      await body(tx);
    } catch (error) {
      await this.#db.query('ROLLBACK');
      throw error;
    }
    this.transactions += 1;
    if (rollback) {
      await this.#db.query('ROLLBACK');
      this.rolledBack += 1;
      return;
    }
    await this.#db.query('COMMIT');
    this.#items = tx.live;
    this.changes.push(...tx.changes);
    this.orders.push(...tx.orders);
    this.keyChanges += tx.keyChanges;
  }
}

/** The writes of one transaction, on a copy of the live rows. */
class WorkloadTransaction {
  readonly changes: LoggedChange[] = [];
  readonly orders: number[] = [];
  keyChanges = 0;

  constructor(
    private readonly db: pg.Client,
    readonly live: Map<number, number>,
    private readonly insertOp: 'r' | 'c',
  ) {}

  /** The live item at `fraction` of them. */
  #pick(fraction: number): number {
    const ids = [...this.live.keys()];
    return ids[Math.floor(fraction * ids.length)] as number;
  }

  #note(seed: number): string | null {
    return seed % 5 === 0 ? null : `note ${seed.toString(36)}`;
  }

  async insertItem(): Promise<void> {
    const qty = this.live.size + this.changes.length;
    const { rows } = await this.db.query(
      'INSERT INTO items (qty, note) VALUES ($1, $2) RETURNING id::int AS id, rev::int AS rev',
      [qty, this.#note(qty)],
    );
    const id = Number(rows[0].id);
    const rev = Number(rows[0].rev);
    this.live.set(id, rev);
    this.changes.push({ op: this.insertOp, id, rev });
  }

  async updateItem(fraction: number): Promise<void> {
    const id = this.#pick(fraction);
    const { rows } = await this.db.query(
      "UPDATE items SET rev = nextval('items_rev'), qty = qty + 1, note = $2 WHERE id = $1 RETURNING rev::int AS rev",
      [id, this.#note(id + this.changes.length)],
    );
    const rev = Number(rows[0].rev);
    this.live.set(id, rev);
    this.changes.push({ op: 'u', id, rev });
  }

  /**
   * Changes a row's primary key: Debezium's delete of the old key (and its tombstone) then
   * create of the new one, logged as such.
   */
  async moveItem(fraction: number): Promise<void> {
    const id = this.#pick(fraction);
    const { rows } = await this.db.query(
      "UPDATE items SET id = nextval('items_id_seq'), rev = nextval('items_rev') WHERE id = $1 RETURNING id::int AS id, rev::int AS rev",
      [id],
    );
    const moved = { id: Number(rows[0].id), rev: Number(rows[0].rev) };
    this.changes.push({ op: 'd', id, rev: this.live.get(id) as number });
    this.changes.push({ op: 'c', ...moved });
    this.live.delete(id);
    this.live.set(moved.id, moved.rev);
    this.keyChanges += 1;
  }

  async deleteItem(fraction: number): Promise<void> {
    const id = this.#pick(fraction);
    const { rows } = await this.db.query(
      'DELETE FROM items WHERE id = $1 RETURNING rev::int AS rev',
      [id],
    );
    this.live.delete(id);
    this.changes.push({ op: 'd', id, rev: Number(rows[0].rev) });
  }

  async insertOrder(): Promise<void> {
    const n = this.orders.length + this.changes.length;
    const { rows } = await this.db.query(
      'INSERT INTO orders (customer, qty, note) VALUES ($1, $2, $3) RETURNING id',
      [`customer ${n % 7}`, 1 + (n % 9), this.#note(n)],
    );
    this.orders.push(Number(rows[0].id));
  }
}
