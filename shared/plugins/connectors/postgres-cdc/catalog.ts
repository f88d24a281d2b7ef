/**
 * What the CDC source asks PostgreSQL outside the replication stream: the server's readiness
 * (wal_level, the user's REPLICATION right), the captured tables and their columns and keys, the
 * types that are not built in, the slot and the publication. Every statement takes values as
 * parameters; identifiers are quoted.
 */
import { ConfigError, ConnectError } from 'serverless-connect/connect';
import { qualifiedName, quoteIdentifier } from '../postgres/identifiers.js';
import type { ColumnDescriptor, UserType } from './column-types.js';
import type { TableDefinition } from './debezium-schemas.js';
import { type Lsn, parseLsn } from './lsn.js';
import { type TableId, tableIdText } from './table-filter.js';
import { isBuiltinType } from './type-oids.js';

/** A connection that runs statements (a `pg.Client` fits). */
export interface SqlClient {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/** A table of the database, with its relation id. */
export interface CatalogTable extends TableId {
  readonly oid: number;
}

/**
 * Refuses a server that cannot stream changes with a ConnectError saying what to change:
 * `wal_level` other than logical, a user without REPLICATION (nor superuser, nor RDS's
 * rds_replication).
 */
export async function checkServer(client: SqlClient): Promise<void> {
  const { rows } = await client.query(
    `SELECT current_setting('wal_level') AS wal_level, r.rolreplication OR r.rolsuper
       OR EXISTS (SELECT 1 FROM pg_roles g WHERE g.rolname = 'rds_replication'
                  AND pg_has_role(r.oid, g.oid, 'member')) AS can_replicate, r.rolname
     FROM pg_roles r WHERE r.rolname = current_user`,
  );
  const row = rows[0] ?? {};
  if (row.wal_level !== 'logical') {
    throw new ConnectError(
      `PostgreSQL wal_level is '${String(row.wal_level)}': logical decoding needs wal_level=logical ` +
        '(set it in postgresql.conf, or rds.logical_replication=1 in the RDS/Aurora parameter group, and restart the server)',
    );
  }
  if (row.can_replicate !== true) {
    throw new ConnectError(
      `PostgreSQL user ${String(row.rolname)} may not stream changes: grant it REPLICATION ` +
        `(ALTER ROLE ${quoteIdentifier(String(row.rolname))} WITH REPLICATION; on RDS/Aurora: GRANT rds_replication TO ...)`,
    );
  }
}

/** Every ordinary and partitioned table of the database, for the filters to pick from. */
export async function listTables(client: SqlClient): Promise<CatalogTable[]> {
  const { rows } = await client.query(
    `SELECT c.oid::int8 AS oid, n.nspname, c.relname FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY n.nspname, c.relname`,
  );
  return rows.map((r) => ({
    oid: Number(r.oid),
    schema: String(r.nspname),
    table: String(r.relname),
  }));
}

/** A table's columns (in order) and primary key (in key order), by relation id. */
export async function tableDefinition(client: SqlClient, oid: number): Promise<TableDefinition> {
  const { rows } = await client.query(
    `SELECT n.nspname, c.relname, a.attname, a.atttypid::int8 AS type_oid, a.atttypmod, a.attnotnull,
            array_position(i.indkey::int2[], a.attnum) AS key_position
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
     LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
     WHERE c.oid = $1 ORDER BY a.attnum`,
    [oid],
  );
  const first = rows[0];
  if (first === undefined) throw new ConnectError(`PostgreSQL table with oid ${oid} is gone`);
  const columns: ColumnDescriptor[] = rows.map((r) => ({
    name: String(r.attname),
    typeOid: Number(r.type_oid),
    typmod: Number(r.atttypmod),
    notNull: r.attnotnull === true,
  }));
  const primaryKey = rows
    .filter((r) => r.key_position !== null)
    .sort((a, b) => Number(a.key_position) - Number(b.key_position))
    .map((r) => String(r.attname));
  return { schema: String(first.nspname), table: String(first.relname), columns, primaryKey };
}

/**
 * The types among `oids` (and the ones they are built on) that are not built in: enums with
 * their labels, domains with their base type, arrays with their element type.
 */
export async function userTypes(
  client: SqlClient,
  oids: Iterable<number>,
  known: Map<number, UserType>,
): Promise<void> {
  let pending = [...new Set(oids)].filter((o) => !isBuiltinType(o) && !known.has(o));
  while (pending.length > 0) {
    const { rows } = await client.query(
      `SELECT t.oid::int8 AS oid, t.typtype, t.typname, t.typelem::int8 AS elem, t.typcategory,
              t.typbasetype::int8 AS base, t.typtypmod,
              ARRAY(SELECT e.enumlabel::text FROM pg_enum e WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder) AS labels
       FROM pg_type t WHERE t.oid = ANY($1::oid[])`,
      [pending],
    );
    const next: number[] = [];
    for (const r of rows) {
      const oid = Number(r.oid);
      let type: UserType;
      if (r.typtype === 'e') type = { kind: 'enum', labels: (r.labels as string[]) ?? [] };
      else if (r.typtype === 'd')
        type = { kind: 'domain', baseOid: Number(r.base), baseTypmod: Number(r.typtypmod) };
      else if (r.typcategory === 'A' && Number(r.elem) !== 0)
        type = { kind: 'array', elementOid: Number(r.elem) };
      else type = { kind: 'other', name: String(r.typname) };
      known.set(oid, type);
      const inner =
        type.kind === 'domain' ? type.baseOid : type.kind === 'array' ? type.elementOid : null;
      if (inner !== null && !isBuiltinType(inner) && !known.has(inner)) next.push(inner);
    }
    for (const oid of pending)
      if (!known.has(oid)) known.set(oid, { kind: 'other', name: String(oid) });
    pending = next;
  }
}

/** A replication slot as pg_replication_slots shows it. */
export interface SlotInfo {
  readonly plugin: string | null;
  readonly database: string | null;
  readonly active: boolean;
  readonly activePid: number | null;
  readonly confirmedFlush: Lsn | null;
}

export async function slotInfo(client: SqlClient, slot: string): Promise<SlotInfo | null> {
  const { rows } = await client.query(
    `SELECT plugin, database, active, active_pid, confirmed_flush_lsn::text AS confirmed
     FROM pg_replication_slots WHERE slot_name = $1`,
    [slot],
  );
  const r = rows[0];
  if (r === undefined) return null;
  return {
    plugin: r.plugin === null ? null : String(r.plugin),
    database: r.database === null ? null : String(r.database),
    active: r.active === true,
    activePid: r.active_pid === null ? null : Number(r.active_pid),
    confirmedFlush: r.confirmed === null ? null : parseLsn(String(r.confirmed)),
  };
}

/** How many bytes of WAL the slot holds: the server's WAL position minus its confirmed flush. */
export async function slotLagBytes(client: SqlClient, slot: string): Promise<number | null> {
  const { rows } = await client.query(
    `SELECT (pg_current_wal_lsn() - confirmed_flush_lsn)::int8 AS lag FROM pg_replication_slots WHERE slot_name = $1`,
    [slot],
  );
  const lag = rows[0]?.lag;
  return lag === undefined || lag === null ? null : Number(lag);
}

/**
 * Drops `slot` when it exists, waiting up to `waitMs` for a walsender still holding it to go.
 * @throws ConnectError when it stays in use.
 */
export async function dropSlot(
  client: SqlClient,
  slot: string,
  sleep: (ms: number) => Promise<void>,
  waitMs = 10_000,
): Promise<boolean> {
  for (let waited = 0; ; waited += 250) {
    const info = await slotInfo(client, slot);
    if (info === null) return false;
    if (!info.active) {
      await client.query('SELECT pg_drop_replication_slot($1)', [slot]);
      return true;
    }
    if (waited >= waitMs) {
      throw new ConnectError(
        `Replication slot ${slot} is in use by process ${info.activePid}; stop what streams from it and retry`,
      );
    }
    await sleep(250);
  }
}

/** The comment marking a publication this connector created (only those are ever dropped). */
const PUBLICATION_MARK = 'created by serverless-connect postgres-cdc';

/** A publication: whether it is FOR ALL TABLES, and its tables (`schema.table`). */
export interface PublicationInfo {
  readonly allTables: boolean;
  readonly tables: ReadonlySet<string>;
  readonly ours: boolean;
}

export async function publicationInfo(
  client: SqlClient,
  name: string,
): Promise<PublicationInfo | null> {
  const { rows } = await client.query(
    `SELECT p.puballtables, obj_description(p.oid, 'pg_publication') AS note,
            ARRAY(SELECT t.schemaname || '.' || t.tablename FROM pg_publication_tables t WHERE t.pubname = p.pubname) AS tables
     FROM pg_publication p WHERE p.pubname = $1`,
    [name],
  );
  const r = rows[0];
  if (r === undefined) return null;
  return {
    allTables: r.puballtables === true,
    tables: new Set(r.tables as string[]),
    ours: r.note === PUBLICATION_MARK,
  };
}

/**
 * Makes publication `name` publish `tables` (`null`: FOR ALL TABLES), creating it (marked as
 * ours) when missing; an existing filtered one is SET to exactly `tables` when they differ.
 */
export async function ensurePublication(
  client: SqlClient,
  name: string,
  tables: readonly TableId[] | null,
): Promise<void> {
  const current = await publicationInfo(client, name);
  const list = (tables ?? [])
    .map((t) => qualifiedName({ schema: t.schema, table: t.table }))
    .join(', ');
  if (current === null) {
    const target =
      tables === null ? 'FOR ALL TABLES' : tables.length === 0 ? '' : `FOR TABLE ${list}`;
    await client.query(`CREATE PUBLICATION ${quoteIdentifier(name)} ${target}`);
    await client.query(`COMMENT ON PUBLICATION ${quoteIdentifier(name)} IS '${PUBLICATION_MARK}'`);
    return;
  }
  if (tables === null || current.allTables) return;
  const wanted = new Set(tables.map(tableIdText));
  const same =
    wanted.size === current.tables.size && [...wanted].every((t) => current.tables.has(t));
  if (same) return;
  if (tables.length === 0) {
    // SET TABLE needs at least one table: drop what is there instead.
    const names = [...current.tables].map((t) => {
      const dot = t.indexOf('.');
      return qualifiedName({ schema: t.slice(0, dot), table: t.slice(dot + 1) });
    });
    await client.query(`ALTER PUBLICATION ${quoteIdentifier(name)} DROP TABLE ${names.join(', ')}`);
    return;
  }
  await client.query(`ALTER PUBLICATION ${quoteIdentifier(name)} SET TABLE ${list}`);
}

/** Checks that publication `name` exists (`publication.autocreate.mode=disabled`). */
export async function requirePublication(
  client: SqlClient,
  name: string,
  key: string,
): Promise<void> {
  if ((await publicationInfo(client, name)) === null) {
    throw new ConfigError(
      `Invalid value disabled for configuration ${key}: publication ${name} does not exist; create it (CREATE PUBLICATION ${quoteIdentifier(name)} FOR TABLE ...) or let the connector create it`,
      key,
    );
  }
}

/** Drops publication `name` if this connector created it. */
export async function dropOwnPublication(client: SqlClient, name: string): Promise<boolean> {
  const info = await publicationInfo(client, name);
  if (info === null || !info.ours) return false;
  await client.query(`DROP PUBLICATION ${quoteIdentifier(name)}`);
  return true;
}
