/**
 * The PostgreSQL campaign's two databases on the test server: the source one (the workload's
 * tables, read by postgres-cdc and postgres-source) and the sink's destination; and what a dead
 * CDC invocation's container would close.
 */
import pg from 'pg';
import { dropSlot, releaseSlot } from '../postgres-slots.js';

/** The `application_name` of postgres-cdc's connections (cdc-config.ts). */
const CDC_APPLICATION_NAME = 'serverless-connect postgres-cdc';

export interface CampaignDatabase {
  readonly name: string;
  /** `postgres://user:password@host:port/<name>` */
  readonly url: string;
}

export class CampaignDatabases {
  private constructor(
    private readonly server: pg.Client,
    readonly source: CampaignDatabase,
    readonly sink: CampaignDatabase,
    /** A connection to the source database. */
    private readonly admin: pg.Client,
  ) {}

  /** Creates `<prefix>_src` and `<prefix>_dst` on the server of `serverUrl`. */
  static async create(serverUrl: string, prefix: string): Promise<CampaignDatabases> {
    const database = (name: string): CampaignDatabase => {
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      return { name, url: url.toString() };
    };
    const source = database(`${prefix}_src`);
    const sink = database(`${prefix}_dst`);
    const server = new pg.Client({ connectionString: serverUrl });
    await server.connect();
    for (const db of [source, sink]) await server.query(`CREATE DATABASE "${db.name}"`);
    const admin = new pg.Client({ connectionString: source.url });
    await admin.connect();
    return new CampaignDatabases(server, source, sink, admin);
  }

  /**
   * What the end of a dead CDC invocation's container does to the server: its sockets close, so
   * the walsender streaming from `slot` ends (`pg_terminate_backend` of the slot's `active_pid`;
   * the next invocation can take the slot) and so does its query connection.
   */
  async closeDeadCdcConnections(slot: string): Promise<void> {
    await releaseSlot(this.admin, slot);
    await this.admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2',
      [this.source.name, CDC_APPLICATION_NAME],
    );
  }

  /** Drops `slot` (it holds WAL) and both databases (their connections ended first). */
  async drop(slot: string): Promise<void> {
    try {
      await dropSlot(this.admin, slot);
    } finally {
      await this.admin.end();
      for (const db of [this.source, this.sink]) {
        await this.server.query(`DROP DATABASE IF EXISTS "${db.name}" WITH (FORCE)`);
      }
      await this.server.end();
    }
  }
}
