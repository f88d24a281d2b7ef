/**
 * Two tiny connectors for the kit's own tests: a source of `count` numbered records on each of
 * two source partitions, and a sink that keeps records in memory. Each takes a set of breaks,
 * one contract violation apiece, so every check of the kit can be shown to fail.
 */
import {
  ConfigDef,
  type ConfigValue,
  ConnectError,
  type ConnectorTransactionBoundaries,
  DataError,
  type ExactlyOnceSupport,
  NonEmptyString,
  Range,
  SinkConnector,
  type SinkRecord,
  SinkTask,
  SourceConnector,
  SourceRecord,
  SourceTask,
  type SourceTaskContext,
} from '../../../shared/connect/index.js';

type Config = Readonly<Record<string, string>>;

export type SourceBreak =
  | 'validate-throws'
  | 'rejects-valid'
  | 'no-field-error'
  | 'too-many-tasks'
  | 'repeats-on-resume'
  | 'skips-on-resume'
  | 'wrong-eos'
  | 'inconsistent-boundaries'
  | 'never-asks-boundaries'
  | 'stop-twice-throws'
  | 'task-stop-before-start-throws'
  | 'plain-error'
  | 'overlapping-tasks';

const SOURCE_DEF = new ConfigDef()
  .define({
    name: 'topic',
    type: 'STRING',
    validator: new NonEmptyString(),
    importance: 'HIGH',
    documentation: 'Topic.',
  })
  .define({
    name: 'count',
    type: 'INT',
    defaultValue: 10,
    validator: Range.atLeast(1),
    importance: 'LOW',
    documentation: 'Records per partition.',
  });

export class TinySource extends SourceConnector {
  #props: Config | null = null;
  #stopped = false;
  constructor(readonly breaks: ReadonlySet<SourceBreak> = new Set()) {
    super();
  }
  version(): string {
    return '1';
  }
  config(): ConfigDef {
    return SOURCE_DEF;
  }
  override validate(props: Config): ConfigValue[] {
    if (this.breaks.has('validate-throws') && props.count === 'NaN') throw new Error('boom');
    const values = super.validate(props);
    if (this.breaks.has('rejects-valid')) values[0]?.errors.push('always wrong');
    return this.breaks.has('no-field-error') ? values.map((v) => ({ ...v, errors: [] })) : values;
  }
  async start(props: Config): Promise<void> {
    SOURCE_DEF.parse(props);
    this.#props = props;
  }
  async taskConfigs(maxTasks: number): Promise<Record<string, string>[]> {
    const props = this.#props ?? {};
    if (this.breaks.has('too-many-tasks'))
      return Array.from({ length: maxTasks + 1 }, () => ({ ...props, partitions: '0,1' }));
    if (this.breaks.has('overlapping-tasks'))
      return [
        { ...props, partitions: '0,1' },
        { ...props, partitions: '1' },
      ];
    return maxTasks === 1
      ? [{ ...props, partitions: '0,1' }]
      : [
          { ...props, partitions: '0' },
          { ...props, partitions: '1' },
        ];
  }
  async stop(): Promise<void> {
    if (this.breaks.has('stop-twice-throws') && this.#stopped) throw new Error('already stopped');
    this.#stopped = true;
  }
  createTask(): TinySourceTask {
    return new TinySourceTask(this.breaks);
  }
  override exactlyOnceSupport(): ExactlyOnceSupport {
    return this.breaks.has('wrong-eos') ? 'UNSUPPORTED' : 'SUPPORTED';
  }
  override canDefineTransactionBoundaries(): ConnectorTransactionBoundaries {
    if (this.breaks.has('inconsistent-boundaries') && this.#props !== null) return 'UNSUPPORTED';
    return 'SUPPORTED';
  }
}

export class TinySourceTask extends SourceTask {
  #next = new Map<number, number>();
  #count = 0;
  #context: SourceTaskContext | null = null;
  #polls = 0;
  constructor(readonly breaks: ReadonlySet<SourceBreak>) {
    super();
  }
  version(): string {
    return '1';
  }
  async start(props: Config, context: SourceTaskContext): Promise<void> {
    this.#context = context;
    this.#count = Number(props.count ?? 10);
    for (const p of (props.partitions ?? '')
      .split(',')
      .filter((s) => s !== '')
      .map(Number)) {
      const offset = await context.offsetStorageReader.offset({ p });
      const seq = offset === null ? 0 : offset.seq;
      if (typeof seq !== 'number') {
        if (this.breaks.has('plain-error')) throw new Error('bad');
        throw new DataError(`Invalid tiny source offset ${String(seq)}`);
      }
      let resumed = seq;
      if (this.breaks.has('repeats-on-resume') && seq > 0) resumed = seq - 1;
      if (this.breaks.has('skips-on-resume') && seq > 0) resumed = seq + 1;
      this.#next.set(p, resumed + 1);
    }
  }
  async poll(): Promise<SourceRecord[] | null> {
    const records: SourceRecord[] = [];
    for (const [p, seq] of this.#next) {
      for (let s = seq; s < seq + 2 && s <= this.#count; s++) {
        records.push(
          new SourceRecord({
            sourcePartition: { p },
            sourceOffset: { seq: s },
            topic: 'out',
            value: s,
          }),
        );
      }
      this.#next.set(p, Math.min(seq + 2, this.#count + 1));
    }
    const transactions = this.#context?.transactionContext ?? null;
    if (
      transactions !== null &&
      !this.breaks.has('never-asks-boundaries') &&
      ++this.#polls % 2 === 0
    ) {
      transactions.commitTransaction();
    }
    return records.length === 0 ? null : records;
  }
  async stop(): Promise<void> {
    if (this.breaks.has('task-stop-before-start-throws') && this.#context === null)
      throw new Error('not started');
  }
}

export type SinkBreak =
  | 'duplicates-on-replay'
  | 'loses-replays'
  | 'pre-commit-ahead'
  | 'plain-error'
  | 'mute-error';

/** The sink's external system: rows by `partition-offset`, or appended. */
export class TinyTable {
  readonly rows: { key: string; value: unknown }[] = [];
  /** Keys a broken sink deleted on a replay and never writes again. */
  readonly lost = new Set<string>();
  failing = false;
}

export class TinySink extends SinkConnector {
  constructor(
    readonly table: TinyTable,
    readonly breaks: ReadonlySet<SinkBreak> = new Set(),
  ) {
    super();
  }
  version(): string {
    return '1';
  }
  config(): ConfigDef {
    return new ConfigDef().define({
      name: 'topics',
      type: 'STRING',
      validator: new NonEmptyString(),
      importance: 'HIGH',
      documentation: 'Topics.',
    });
  }
  async start(): Promise<void> {}
  async taskConfigs(maxTasks: number): Promise<Record<string, string>[]> {
    return Array.from({ length: maxTasks }, () => ({ topics: 'in' }));
  }
  async stop(): Promise<void> {}
  createTask(): TinySinkTask {
    return new TinySinkTask(this.table, this.breaks);
  }
}

export class TinySinkTask extends SinkTask {
  constructor(
    readonly table: TinyTable,
    readonly breaks: ReadonlySet<SinkBreak>,
  ) {
    super();
  }
  version(): string {
    return '1';
  }
  async start(): Promise<void> {}
  async put(records: readonly SinkRecord[]): Promise<void> {
    if (this.table.failing) {
      if (this.breaks.has('plain-error')) throw new Error('write failed');
      if (this.breaks.has('mute-error')) throw new ConnectError('write failed');
      throw new ConnectError('TinyTable write failed: the table is read-only');
    }
    for (const r of records) {
      const key = `${r.kafkaPartition}-${r.kafkaOffset}`;
      const at = this.table.rows.findIndex((row) => row.key === key);
      if (this.table.lost.has(key)) continue;
      if (at < 0 || this.breaks.has('duplicates-on-replay'))
        this.table.rows.push({ key, value: r.value });
      else if (this.breaks.has('loses-replays')) {
        this.table.rows.splice(at, 1);
        this.table.lost.add(key);
      } else this.table.rows[at] = { key, value: r.value };
    }
  }
  override async preCommit(
    current: ReadonlyMap<string, number>,
  ): Promise<ReadonlyMap<string, number>> {
    if (this.breaks.has('pre-commit-ahead'))
      return new Map([...current].map(([k, o]) => [k, o + 1]));
    return current;
  }
  async stop(): Promise<void> {}
}
