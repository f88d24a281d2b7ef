/**
 * The tables a task captures and their shapes: picked from the catalog by the filters and the
 * task's share, described from the catalog (snapshot) or from the Relation messages of the
 * stream (their columns and types, with the catalog's keys and NOT NULLs).
 */

import {
  type CatalogTable,
  listTables,
  type SqlClient,
  tableDefinition,
  userTypes,
} from './catalog.js';
import type { PostgresCdcConfig } from './cdc-config.js';
import type { UserType } from './column-types.js';
import { type TableDefinition, type TableShape, tableShapeOf } from './debezium-schemas.js';
import type { PgoutputMessage } from './pgoutput.js';
import { compareTables, type TableId, tableFilterOf, taskOfTable } from './table-filter.js';

type RelationMessage = Extract<PgoutputMessage, { tag: 'relation' }>;

export class CapturedTables {
  readonly #config: PostgresCdcConfig;
  readonly #client: SqlClient;
  readonly #filter: (id: TableId) => boolean;
  readonly #definitions = new Map<number, TableDefinition>();
  readonly #types = new Map<number, UserType>();
  #tables: CatalogTable[] = [];

  constructor(config: PostgresCdcConfig, client: SqlClient) {
    this.#config = config;
    this.#client = client;
    this.#filter = tableFilterOf(config);
  }

  /** Whether this task captures `id` (the filters, and its share when there are several tasks). */
  captures(id: TableId): boolean {
    return this.#filter(id) && taskOfTable(id, this.#config.taskCount) === this.#config.taskIndex;
  }

  /** Lists this task's tables, in snapshot order. */
  async load(): Promise<readonly CatalogTable[]> {
    this.#tables = (await listTables(this.#client))
      .filter((t) => this.captures(t))
      .sort(compareTables);
    return this.#tables;
  }

  get tables(): readonly CatalogTable[] {
    return this.#tables;
  }

  async #definition(oid: number): Promise<TableDefinition> {
    let definition = this.#definitions.get(oid);
    if (definition === undefined) {
      definition = await tableDefinition(this.#client, oid);
      this.#definitions.set(oid, definition);
    }
    return definition;
  }

  async #shape(definition: TableDefinition): Promise<TableShape> {
    await userTypes(
      this.#client,
      definition.columns.map((c) => c.typeOid),
      this.#types,
    );
    return tableShapeOf(this.#config.topicPrefix, definition, this.#config.types, this.#types);
  }

  /** The shape of a catalog table (for the snapshot). */
  async shapeOf(table: CatalogTable): Promise<TableShape> {
    return this.#shape(await this.#definition(table.oid));
  }

  /**
   * The shape of a streamed relation, or `null` when this task does not capture it. The
   * definition is read again each time (a Relation message follows a change of the table).
   */
  async shapeOfRelation(relation: RelationMessage): Promise<TableShape | null> {
    if (!this.captures({ schema: relation.namespace, table: relation.name })) return null;
    this.#definitions.delete(relation.relationOid);
    const catalog = await this.#definition(relation.relationOid).catch(() => null);
    const notNull = new Set(catalog?.columns.filter((c) => c.notNull).map((c) => c.name) ?? []);
    const names = new Set(relation.columns.map((c) => c.name));
    const primaryKey = (catalog?.primaryKey ?? []).filter((k) => names.has(k));
    return this.#shape({
      schema: relation.namespace,
      table: relation.name,
      columns: relation.columns.map((c) => ({
        name: c.name,
        typeOid: c.typeOid,
        typmod: c.typmod,
        notNull: notNull.has(c.name),
      })),
      primaryKey,
    });
  }
}
