import { describe, expect, it } from 'vitest';
import {
  tableFilterOf,
  taskOfTable,
} from '../../../../../../shared/plugins/connectors/postgres-cdc/table-filter.js';

const none = { tableInclude: [], tableExclude: [], schemaInclude: [], schemaExclude: [] };

describe('table filters', () => {
  it('matches whole schema.table names case-insensitively, as Debezium does, and never system schemas', () => {
    const include = tableFilterOf({ ...none, tableInclude: ['public\\.orders', 'sales\\..*'] });
    const exclude = tableFilterOf({ ...none, schemaExclude: ['audit'] });

    expect(include({ schema: 'public', table: 'orders' })).toBe(true);
    expect(include({ schema: 'PUBLIC', table: 'Orders' })).toBe(true);
    expect(include({ schema: 'public', table: 'orders_old' })).toBe(false);
    expect(include({ schema: 'sales', table: 'x' })).toBe(true);
    expect(exclude({ schema: 'audit', table: 'log' })).toBe(false);
    expect(exclude({ schema: 'pg_catalog', table: 'pg_class' })).toBe(false);
    expect(exclude({ schema: 'information_schema', table: 'tables' })).toBe(false);
    expect(exclude({ schema: 'public', table: 'anything' })).toBe(true);
  });

  it('spreads tables over tasks stably', () => {
    const tables = Array.from({ length: 40 }, (_, i) => ({ schema: 'public', table: `t${i}` }));
    const owners = tables.map((t) => taskOfTable(t, 3));

    expect(new Set(owners)).toEqual(new Set([0, 1, 2]));
    expect(tables.map((t) => taskOfTable(t, 3))).toEqual(owners);
    expect(taskOfTable({ schema: 'public', table: 'x' }, 1)).toBe(0);
  });
});
