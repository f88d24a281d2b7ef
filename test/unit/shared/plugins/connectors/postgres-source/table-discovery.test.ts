import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../../../shared/connect/index.js';
import {
  checkDistinctNames,
  decodeTables,
  encodeTables,
  filterTables,
  groupTables,
  tableFilterOf,
  tableTypeOf,
} from '../../../../../../shared/plugins/connectors/postgres-source/table-discovery.js';

const t = (schema: string, table: string) => ({ schema, table });
const tables = [t('public', 'orders'), t('public', 'items'), t('sales', 'refunds')];
const lists: Record<'whitelist' | 'blacklist' | 'include' | 'exclude', string[]> = {
  whitelist: [],
  blacklist: [],
  include: [],
  exclude: [],
};

describe('table filters', () => {
  it('match a whitelist by table, schema.table, quoted or database.schema.table names', () => {
    const filter = tableFilterOf({
      ...lists,
      whitelist: ['orders', 'sales.refunds', '"public"."items"'],
    });
    expect(filterTables(tables, filter, 'shop')).toEqual(tables);
    const threePart = tableFilterOf({ ...lists, whitelist: ['shop.public.items'] });
    expect(filterTables(tables, threePart, 'shop')).toEqual([t('public', 'items')]);
  });

  it('drop blacklisted tables, and match include/exclude expressions against the whole schema.table', () => {
    expect(filterTables(tables, tableFilterOf({ ...lists, blacklist: ['orders'] }), 'db')).toEqual([
      t('public', 'items'),
      t('sales', 'refunds'),
    ]);
    const regex = tableFilterOf({
      ...lists,
      include: ['public\\..*', 'sales\\.ref'],
      exclude: ['.*\\.items'],
    });
    expect(filterTables(tables, regex, 'db')).toEqual([t('public', 'orders')]);
    expect(filterTables(tables, tableFilterOf(lists), 'db')).toEqual(tables);
  });

  it('refuse combinations the JDBC source refuses, on the key to change', () => {
    const attempt = (l: Partial<typeof lists>) => {
      try {
        tableFilterOf({ ...lists, ...l });
        return null;
      } catch (error) {
        return (error as ConfigError).key;
      }
    };
    expect(attempt({ whitelist: ['a'], blacklist: ['b'] })).toBe('table.blacklist');
    expect(attempt({ blacklist: ['a'], include: ['b'] })).toBe('table.include.list');
    expect(attempt({ exclude: ['b'] })).toBe('table.exclude.list');
    expect(attempt({ include: ['[a'] })).toBe('table.include.list');
  });
});

describe('groupTables', () => {
  it("splits as Kafka's ConnectorUtils.groupPartitions: contiguous, the first groups one longer", () => {
    expect(groupTables([1, 2, 3, 4, 5], 2)).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    expect(groupTables([1, 2, 3, 4, 5, 6, 7], 3)).toEqual([
      [1, 2, 3],
      [4, 5],
      [6, 7],
    ]);
    expect(groupTables([1, 2], 2)).toEqual([[1], [2]]);
  });
});

describe('the tables task key', () => {
  it('round-trips quoted names with commas, dots and quotes, as Confluent writes them', () => {
    const odd = [t('public', 'orders'), t('my.schema', 'a,b'), t('q"s', 't""x')];
    const encoded = encodeTables(odd);
    expect(encodeTables(tables)).toBe('"public"."orders","public"."items","sales"."refunds"');
    expect(decodeTables(encoded)).toEqual(odd);
    expect(decodeTables('')).toEqual([]);
    expect(() => decodeTables('orders')).toThrow(ConfigError);
  });
});

describe('tableTypeOf and checkDistinctNames', () => {
  it("names relations as pgjdbc's table types, leaving toast and temporary ones out", () => {
    expect(['r', 'v', 'm', 'f', 'p'].map((k) => tableTypeOf('public', k))).toEqual([
      'TABLE',
      'VIEW',
      'MATERIALIZED VIEW',
      'FOREIGN TABLE',
      'PARTITIONED TABLE',
    ]);
    expect(tableTypeOf('pg_catalog', 'r')).toBe('SYSTEM TABLE');
    expect(tableTypeOf('information_schema', 'v')).toBe('SYSTEM VIEW');
    expect(tableTypeOf('pg_toast', 'r')).toBeNull();
    expect(tableTypeOf('pg_temp_3', 'r')).toBeNull();
  });

  it('refuses two selected tables of one name (their topic would be the same)', () => {
    expect(() => checkDistinctNames(tables)).not.toThrow();
    expect(() => checkDistinctNames([...tables, t('sales', 'orders')])).toThrow(
      'public.orders and sales.orders',
    );
  });
});
