import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../../shared/connect/errors.js';
import {
  parseTableName,
  quoteIdentifier,
} from '../../../../../../shared/plugins/connectors/postgres/identifiers.js';

describe('PostgreSQL identifiers', () => {
  it('quotes identifiers, doubling inner quotes, and refuses empty ones', () => {
    expect(quoteIdentifier('Order Lines')).toBe('"Order Lines"');
    expect(quoteIdentifier('a"; DROP TABLE x; --')).toBe('"a""; DROP TABLE x; --"');
    expect(() => quoteIdentifier('')).toThrow(DataError);
  });

  it('reads table names as the JDBC sink does: table, schema.table, database.schema.table', () => {
    expect(parseTableName('orders', 'k')).toEqual({ schema: null, table: 'orders' });
    expect(parseTableName('sales.orders', 'k')).toEqual({ schema: 'sales', table: 'orders' });
    expect(parseTableName('shop.sales.orders', 'k')).toEqual({ schema: 'sales', table: 'orders' });
    expect(() => parseTableName('a..b', 'table.name.format')).toThrow(ConfigError);
  });
});
