/**
 * The PostgreSQL CDC source task: one invocation snapshots and/or streams its tables' changes
 * from its slot (see cdc-plan.ts for what it does at start) as Debezium change records.
 *
 * Exactly once: every record carries its position (cdc-offsets.ts); the runtime commits records
 * and offsets in one Kafka transaction; the slot is confirmed only up to committed offsets
 * (`commitRecord` notes them, `commit` reads the committed offset back), so a crash re-reads
 * from the slot and the committed position filters out what was already delivered.
 */

import type pg from 'pg';
import {
  ConnectError,
  type RecordMetadata,
  type SourceRecord,
  SourceTask,
  type SourceTaskContext,
} from 'serverless-connect/connect';
import { toConnectError } from '../postgres/pg-client.js';
import { CapturedTables } from './captured-tables.js';
import {
  checkServer,
  dropSlot,
  ensurePublication,
  requirePublication,
  slotInfo,
  slotLagBytes,
} from './catalog.js';
import { type PostgresCdcConfig, parsePostgresCdcConfig } from './cdc-config.js';
import { POSTGRES_CDC_VERSION, PUBLICATION_AUTOCREATE_CONFIG } from './cdc-config-def.js';
import {
  cdcPartition,
  parseCdcOffset,
  type StreamPosition,
  snapshotOffset,
  streamOffset,
} from './cdc-offsets.js';
import { planTask, type TaskPlan } from './cdc-plan.js';
import { ChangeRecords } from './change-records.js';
import { ChangeStream } from './change-stream.js';
import { heartbeatTopicOf, type SnapshotMarker } from './debezium-schemas.js';
import { type Lsn, lsnFromOffsetValue, maxLsn, parseLsn } from './lsn.js';
import { connectQueryClient, ReplicationStream } from './replication-stream.js';
import { SnapshotReader, type SnapshotRow } from './snapshot-reader.js';
import { tableIdText } from './table-filter.js';

/** What the connector and its tasks are built from. */
export interface PostgresCdcDeps {
  /** Milliseconds since the epoch (source timestamps, heartbeats). */
  readonly clock: { now(): number };
  readonly sleep: (ms: number) => Promise<void>;
}

/** The gauge the infrastructure alarms on: WAL the slot holds, in bytes. */
export const SLOT_LAG_GAUGE = 'ReplicationSlotLagBytes';

/** How long `commit` waits for the server to show the confirmed position. */
const CONFIRM_WAIT_MS = 2_000;

interface Running {
  readonly config: PostgresCdcConfig;
  readonly context: SourceTaskContext;
  readonly query: pg.Client;
  readonly partition: Readonly<Record<string, unknown>>;
  readonly tables: CapturedTables;
  readonly records: ChangeRecords;
}

interface SnapshotPhase {
  readonly reader: SnapshotReader;
  /** The consistent point (streaming starts there). */
  readonly lsn: Lsn;
  readonly stream: boolean;
  first: boolean;
}

export class PostgresCdcSourceTask extends SourceTask {
  readonly #deps: PostgresCdcDeps;
  #running: Running | null = null;
  #snapshot: SnapshotPhase | null = null;
  #replication: ReplicationStream | null = null;
  #changes: ChangeStream | null = null;
  /** The committed position streaming filters against, and the slot's start. */
  #from: { committed: StreamPosition | null; start: Lsn } | null = null;
  /** The furthest `lsn_commit` of records the runtime reported committed. */
  #committedConfirmable: Lsn | null = null;
  #lastEmitAt = 0;
  #stopped = false;

  constructor(deps: PostgresCdcDeps) {
    super();
    this.#deps = deps;
  }

  version(): string {
    return POSTGRES_CDC_VERSION;
  }

  #nowMicros(): bigint {
    return BigInt(this.#deps.clock.now()) * 1000n;
  }

  async start(props: Readonly<Record<string, string>>, context: SourceTaskContext): Promise<void> {
    const config = parsePostgresCdcConfig(props);
    const query = await connectQueryClient(config.connection);
    try {
      const multi = config.taskCount > 1;
      const partition = cdcPartition(config.topicPrefix, multi ? config.slotName : null);
      const tables = new CapturedTables(config, query);
      const records = new ChangeRecords(
        {
          version: POSTGRES_CDC_VERSION,
          topicPrefix: config.topicPrefix,
          database: config.database,
          partition,
          tombstonesOnDelete: config.tombstonesOnDelete,
          skippedOperations: config.skippedOperations,
        },
        () => this.#nowMicros(),
      );
      this.#running = { config, context, query, partition, tables, records };
      const streaming = config.snapshotMode !== 'initial_only';
      if (streaming) await checkServer(query);
      await tables.load();
      const committed = parseCdcOffset(await context.offsetStorageReader.offset(partition));
      const slot = streaming ? await slotInfo(query, config.slotName) : null;
      const plan = planTask({
        slotName: config.slotName,
        database: config.database,
        snapshotMode: config.snapshotMode,
        committed,
        slot,
        slotDropOnStop: config.slotDropOnStop,
      });
      if (plan.kind !== 'idle' && streaming) await this.#publication(config, query, tables);
      await this.#begin(plan, slot?.confirmedFlush ?? null);
      await this.#reportLag();
    } catch (error) {
      await this.stop().catch(() => undefined);
      throw toConnectError(error, 'starting the CDC task');
    }
  }

  /** The publication as `publication.autocreate.mode` says (several tasks: each its own tables). */
  async #publication(
    config: PostgresCdcConfig,
    query: pg.Client,
    tables: CapturedTables,
  ): Promise<void> {
    if (config.autocreate === 'disabled') {
      await requirePublication(query, config.publicationName, PUBLICATION_AUTOCREATE_CONFIG);
      return;
    }
    const own = config.autocreate === 'filtered' || config.taskCount > 1;
    await ensurePublication(query, config.publicationName, own ? tables.tables : null);
  }

  async #begin(plan: TaskPlan, slotConfirmed: Lsn | null): Promise<void> {
    const running = this.#running as Running;
    const { config, query } = running;
    if (plan.kind === 'idle') return;
    const options = {
      statusIntervalMs: config.statusUpdateIntervalMs,
      nowMicros: () => this.#nowMicros(),
    };
    const needsStream = plan.kind === 'stream' || plan.stream;
    if (needsStream)
      this.#replication = await ReplicationStream.connect(config.connection, options);
    if (plan.kind === 'snapshot') {
      if (plan.dropSlot) await dropSlot(query, config.slotName, this.#deps.sleep);
      const created = plan.createSlot
        ? await this.#replication?.createSlot(config.slotName, true)
        : undefined;
      const lsn = created?.consistentPoint ?? plan.lsn ?? (await currentWalLsn(query));
      const shapes = await Promise.all(running.tables.tables.map((t) => running.tables.shapeOf(t)));
      const reader = new SnapshotReader(
        query,
        shapes.map((shape) => ({ shape })),
        plan.resume,
        config.maxBatchSize,
      );
      await reader.begin(created?.snapshotName ?? null);
      this.#snapshot = { reader, lsn, stream: plan.stream, first: plan.resume === null };
      const position: StreamPosition = {
        kind: 'stream',
        lsn,
        event: -1,
        confirmable: lsn,
        eventLsn: lsn,
        txId: null,
        timeMicros: null,
      };
      this.#from = { committed: position, start: lsn };
      return;
    }
    const created = plan.createSlot
      ? await this.#replication?.createSlot(config.slotName, false)
      : undefined;
    const start = plan.from?.confirmable ?? created?.consistentPoint ?? slotConfirmed;
    if (start === null || start === undefined)
      throw new ConnectError(`Replication slot ${config.slotName} has no confirmed position`);
    this.#from = { committed: plan.from, start };
    await this.#startStreaming();
  }

  async #startStreaming(): Promise<void> {
    const running = this.#running as Running;
    const from = this.#from;
    const replication = this.#replication;
    if (from === null || replication === null) return;
    await replication.start(
      running.config.slotName,
      from.start,
      running.config.publicationName,
      from.start,
    );
    this.#changes = new ChangeStream({
      records: running.records,
      resolve: (relation) => running.tables.shapeOfRelation(relation),
      committed: from.committed,
      confirmable: from.start,
    });
    this.#lastEmitAt = this.#deps.clock.now();
  }

  async poll(): Promise<SourceRecord[] | null> {
    if (this.#stopped || this.#running === null) return null;
    try {
      const records =
        this.#snapshot !== null ? await this.#pollSnapshot() : await this.#pollStream();
      return records.length === 0 ? null : records;
    } catch (error) {
      if (this.#stopped) return null;
      throw toConnectError(error, 'reading changes');
    }
  }

  async #pollSnapshot(): Promise<SourceRecord[]> {
    const phase = this.#snapshot as SnapshotPhase;
    const rows = await phase.reader.next();
    const records = rows.flatMap((row) => this.#snapshotRecords(phase, row));
    if (phase.reader.done) {
      await phase.reader.end();
      this.#snapshot = null;
      if (phase.stream) await this.#startStreaming();
    }
    return records;
  }

  #snapshotRecords(phase: SnapshotPhase, row: SnapshotRow): SourceRecord[] {
    const { records } = this.#running as Running;
    const now = this.#nowMicros();
    let marker: SnapshotMarker = 'true';
    if (row.lastOfSnapshot) marker = 'last';
    else if (phase.first) marker = 'first';
    else if (row.firstOfTable) marker = 'first_in_data_collection';
    else if (row.lastOfTable) marker = 'last_in_data_collection';
    phase.first = false;
    const shape = row.table.shape;
    const offset = snapshotOffset(
      { lsn: phase.lsn, table: tableIdText(shape), key: row.key, timeMicros: now },
      row.lastOfSnapshot,
    );
    return records.read(
      shape,
      row.values,
      { timeMicros: now, snapshot: marker, txId: null, lsn: phase.lsn, sequence: null },
      offset,
    );
  }

  async #pollStream(): Promise<SourceRecord[]> {
    const replication = this.#replication;
    const changes = this.#changes;
    const running = this.#running as Running;
    if (replication === null || changes === null) return [];
    if (this.#committedConfirmable !== null) replication.confirm(this.#committedConfirmable);
    await replication.waitForMessages(running.config.pollIntervalMs);
    if (this.#stopped) return [];
    const records = await changes.process(replication.take(running.config.maxBatchSize));
    const now = this.#deps.clock.now();
    if (records.length > 0) {
      this.#lastEmitAt = now;
      return records;
    }
    const interval = running.config.heartbeatIntervalMs;
    const position = changes.heartbeatPosition();
    if (interval <= 0 || now - this.#lastEmitAt < interval || position === null) return [];
    this.#lastEmitAt = now;
    if (running.config.heartbeatActionQuery !== null) {
      await running.query.query(running.config.heartbeatActionQuery);
    }
    const topic = heartbeatTopicOf(running.config.heartbeatTopicPrefix, running.config.topicPrefix);
    return [running.records.heartbeat(topic, streamOffset(position))];
  }

  /** Notes how far committed records reach; the next poll confirms it to the slot. */
  override async commitRecord(
    record: SourceRecord,
    _metadata: RecordMetadata | null,
  ): Promise<void> {
    // A streamed event's or heartbeat's offset says it in `lsn_commit` (called for every record:
    // no whole parse); a snapshot's last record confirms its consistent point.
    let confirmable = lsnFromOffsetValue(record.sourceOffset?.lsn_commit);
    if (confirmable === undefined) {
      const position = safeParse(record.sourceOffset);
      if (position?.kind !== 'stream') return;
      confirmable = position.confirmable;
    }
    this.#committedConfirmable =
      this.#committedConfirmable === null
        ? confirmable
        : maxLsn(this.#committedConfirmable, confirmable);
  }

  /**
   * Confirms the slot up to the committed offset (read back from the runtime), waits until the
   * server shows it, and sets the slot lag gauge.
   */
  override async commit(): Promise<void> {
    const running = this.#running;
    if (running === null) return;
    const committed = parseCdcOffset(
      await running.context.offsetStorageReader.offset(running.partition),
    );
    const replication = this.#replication;
    if (committed?.kind === 'stream' && replication !== null && this.#changes !== null) {
      replication.confirm(committed.confirmable);
      await this.#awaitConfirmed(committed.confirmable);
    }
    await this.#reportLag();
  }

  async #awaitConfirmed(lsn: Lsn): Promise<void> {
    const running = this.#running as Running;
    for (let waited = 0; waited < CONFIRM_WAIT_MS; waited += 50) {
      const slot = await slotInfo(running.query, running.config.slotName);
      if (slot === null || (slot.confirmedFlush !== null && slot.confirmedFlush >= lsn)) return;
      await this.#deps.sleep(50);
    }
  }

  async #reportLag(): Promise<void> {
    const running = this.#running;
    if (running === null || running.config.snapshotMode === 'initial_only') return;
    const lag = await slotLagBytes(running.query, running.config.slotName);
    if (lag !== null) running.context.pluginMetrics().gauge(SLOT_LAG_GAUGE, lag, 'Bytes');
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    const running = this.#running;
    this.#running = null;
    await this.#snapshot?.reader.end();
    this.#snapshot = null;
    await this.#replication?.close();
    this.#replication = null;
    if (running === null) return;
    try {
      if (running.config.slotDropOnStop)
        await dropSlot(running.query, running.config.slotName, this.#deps.sleep);
    } finally {
      await running.query.end().catch(() => undefined);
    }
  }
}

function safeParse(offset: Readonly<Record<string, unknown>> | null) {
  try {
    return parseCdcOffset(offset);
  } catch {
    return null;
  }
}

async function currentWalLsn(client: pg.Client): Promise<Lsn> {
  const { rows } = await client.query('SELECT pg_current_wal_lsn()::text AS lsn');
  return parseLsn(String(rows[0]?.lsn));
}
