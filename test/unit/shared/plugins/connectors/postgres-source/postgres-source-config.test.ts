import { describe, expect, it } from 'vitest';
import { PostgresPools } from '../../../../../../shared/plugins/connectors/postgres/pg-client.js';
import { parsePostgresSourceConfig } from '../../../../../../shared/plugins/connectors/postgres-source/postgres-source-config.js';
import { PostgresSourceConnector } from '../../../../../../shared/plugins/connectors/postgres-source/postgres-source-connector.js';

const connector = new PostgresSourceConnector({
  pools: new PostgresPools(() => {
    throw new Error('validate must not connect');
  }),
  clock: { now: () => 0 },
});

/** The errors `validate` reports, by key (keys without errors left out). */
function errors(props: Record<string, string>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const v of connector.validate(props)) if (v.errors.length > 0) out[v.name] = v.errors;
  return out;
}

const URL = 'jdbc:postgresql://localhost:5432/shop';
const base = { 'connection.url': URL, mode: 'incrementing' };

describe('PostgresSourceConnector.validate', () => {
  it('accepts a Confluent JDBC source config for PostgreSQL', () => {
    expect(
      errors({
        'connection.url': URL,
        'connection.user': 'source',
        'connection.password': 'secret',
        mode: 'timestamp+incrementing',
        'incrementing.column.name': 'id',
        'timestamp.column.name': 'updated_at,created_at',
        'table.whitelist': 'orders,public.customers',
        'topic.prefix': 'pg-',
        'poll.interval.ms': '1000',
        'batch.max.rows': '500',
        'timestamp.delay.interval.ms': '2000',
        'db.timezone': 'Europe/Paris',
        'numeric.mapping': 'best_fit',
        'table.types': 'TABLE,VIEW',
        'validate.non.null': 'false',
        'dialect.name': 'PostgreSqlDatabaseDialect',
      }),
    ).toEqual({});
  });

  it('reports a missing mode, and a timestamp mode without its column, on their keys', () => {
    expect(errors({ 'connection.url': URL })).toEqual({
      mode: [
        'Invalid value  for configuration mode: set one of bulk, incrementing, timestamp, timestamp+incrementing',
      ],
    });
    expect(errors({ 'connection.url': URL, mode: 'timestamp' })).toEqual({
      'timestamp.column.name': [
        'Invalid value  for configuration timestamp.column.name: mode timestamp needs a timestamp column',
      ],
    });
    expect(errors({ 'connection.url': URL, mode: 'Bulk' }).mode).toEqual([
      'Invalid value Bulk for configuration mode: String must be one of: , bulk, incrementing, timestamp, timestamp+incrementing',
    ]);
  });

  it('refuses a custom query combined with table filters, not a SELECT, without topic.prefix or incrementing column', () => {
    const query = { ...base, 'topic.prefix': 'orders', 'incrementing.column.name': 'id' };
    expect(
      errors({ ...query, query: 'SELECT * FROM orders', 'table.whitelist': 'orders' }),
    ).toEqual({
      query: [
        'Invalid value SELECT * FROM orders for configuration query: a custom query takes no table filter (table.whitelist is set)',
      ],
    });
    expect(Object.keys(errors({ ...query, query: 'DELETE FROM orders' }))).toEqual(['query']);
    expect(errors({ ...query, query: 'SELECT 1', 'topic.prefix': '' })).toEqual({
      'topic.prefix': [
        'Invalid value  for configuration topic.prefix: a custom query writes to the topic named by topic.prefix: set it',
      ],
    });
    expect(
      Object.keys(errors({ ...query, query: 'SELECT 1', 'incrementing.column.name': '' })),
    ).toEqual(['incrementing.column.name']);
  });

  it('refuses table filters that exclude each other, and bad regular expressions', () => {
    expect(
      Object.keys(errors({ ...base, 'table.whitelist': 'a', 'table.blacklist': 'b' })),
    ).toEqual(['table.blacklist']);
    expect(
      Object.keys(errors({ ...base, 'table.whitelist': 'a', 'table.include.list': 'a.*' })),
    ).toEqual(['table.include.list']);
    expect(errors({ ...base, 'table.exclude.list': 'tmp.*' })).toEqual({
      'table.exclude.list': [
        'Invalid value tmp.* for configuration table.exclude.list: table.exclude.list needs table.include.list',
      ],
    });
    expect(Object.keys(errors({ ...base, 'table.include.list': '(' }))).toEqual([
      'table.include.list',
    ]);
  });

  it('checks the values of db.timezone, numeric.mapping, table.types, topic.prefix and the numbers', () => {
    expect(
      Object.keys(
        errors({
          ...base,
          'db.timezone': 'Mars/Olympus',
          'numeric.mapping': 'closest',
          'table.types': 'TABLE,SYNONYM',
          'topic.prefix': 'a b',
          'batch.max.rows': '0',
          'timestamp.delay.interval.ms': '-1',
        }),
      ).sort(),
    ).toEqual([
      'batch.max.rows',
      'db.timezone',
      'numeric.mapping',
      'table.types',
      'timestamp.delay.interval.ms',
      'topic.prefix',
    ]);
  });
});

describe('parsePostgresSourceConfig', () => {
  it("takes the JDBC source's defaults", () => {
    const config = parsePostgresSourceConfig(base);
    expect({
      incrementingColumn: config.incrementingColumn,
      timestampColumns: config.timestampColumns,
      validateNonNull: config.validateNonNull,
      timestampInitial: config.timestampInitial,
      timestampDelayMs: config.timestampDelayMs,
      zone: config.zone.id,
      numericMapping: config.numericMapping,
      tableFilter: config.tableFilter,
      tableTypes: config.tableTypes,
      schemaPattern: config.schemaPattern,
      query: config.query,
      topicPrefix: config.topicPrefix,
      pollIntervalMs: config.pollIntervalMs,
      batchMaxRows: config.batchMaxRows,
      tablePollIntervalMs: config.tablePollIntervalMs,
    }).toEqual({
      incrementingColumn: null,
      timestampColumns: [],
      validateNonNull: true,
      timestampInitial: null,
      timestampDelayMs: 0,
      zone: 'UTC',
      numericMapping: 'none',
      tableFilter: { kind: 'all' },
      tableTypes: ['TABLE'],
      schemaPattern: null,
      query: null,
      topicPrefix: '',
      pollIntervalMs: 5000,
      batchMaxRows: 1000,
      tablePollIntervalMs: 60000,
    });
  });

  it('names its connections after itself in application_name (pg_stat_activity)', () => {
    expect(parsePostgresSourceConfig(base).connection.applicationName).toBe(
      'serverless-connect postgres-source',
    );
  });

  it('reads numeric.precision.mapping=true as precision_only, trims the query, upper-cases table types', () => {
    const config = parsePostgresSourceConfig({
      ...base,
      'numeric.precision.mapping': 'true',
      query: ' SELECT id FROM orders ;; ',
      'incrementing.column.name': 'id',
      'topic.prefix': 'orders',
      'table.types': 'view',
    });
    expect([config.numericMapping, config.query, config.tableTypes]).toEqual([
      'precision_only',
      'SELECT id FROM orders',
      ['VIEW'],
    ]);
    expect(
      parsePostgresSourceConfig({
        ...base,
        'numeric.mapping': 'BEST_FIT',
        'numeric.precision.mapping': 'true',
      }).numericMapping,
    ).toBe('best_fit');
  });
});

describe('PostgresSourceConnector exactly-once answers and offsets', () => {
  it('supports exactly once in the incremental modes, not in bulk, and says null for an invalid mode', () => {
    expect(
      ['incrementing', 'timestamp', 'timestamp+incrementing', 'bulk', 'nope'].map((mode) =>
        connector.exactlyOnceSupport({ ...base, mode }),
      ),
    ).toEqual(['SUPPORTED', 'SUPPORTED', 'SUPPORTED', 'UNSUPPORTED', null]);
    expect(connector.canDefineTransactionBoundaries(base)).toBe('UNSUPPORTED');
  });

  it("accepts Confluent's partitions and offsets when altered, and refuses others", async () => {
    await expect(
      connector.alterOffsets(base, [
        { partition: { protocol: '1', table: 'public.orders' }, offset: { incrementing: 5 } },
        { partition: { table: 'orders' }, offset: { timestamp: 1, timestamp_nanos: 1_000_000 } },
        { partition: { query: 'query' }, offset: null },
        { partition: { table: 'orders' }, offset: { bulk_snapshot_started: 7 } },
      ]),
    ).resolves.toBe(true);
    await expect(
      connector.alterOffsets(base, [{ partition: { shard: 'x' }, offset: null }]),
    ).rejects.toThrow(/Invalid PostgreSQL source partition/);
    await expect(
      connector.alterOffsets(base, [
        { partition: { table: 'orders' }, offset: { timestamp: 1, timestamp_nanos: 2e9 } },
      ]),
    ).rejects.toThrow(/timestamp_nanos must be within/);
  });
});
