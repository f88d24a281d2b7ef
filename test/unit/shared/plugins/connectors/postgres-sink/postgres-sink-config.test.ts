import { describe, expect, it } from 'vitest';
import { PostgresPools } from '../../../../../../shared/plugins/connectors/postgres/pg-client.js';
import { PostgresSinkConnector } from '../../../../../../shared/plugins/connectors/postgres-sink/postgres-sink-connector.js';

const connector = new PostgresSinkConnector({
  pools: new PostgresPools(() => {
    throw new Error('validate must not connect');
  }),
});

/** The errors `validate` reports, by key (keys without errors left out). */
function errors(props: Record<string, string>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const v of connector.validate(props)) if (v.errors.length > 0) out[v.name] = v.errors;
  return out;
}

const URL = 'jdbc:postgresql://localhost:5432/shop';

describe('PostgresSinkConnector.validate', () => {
  it('accepts a JDBC sink config for PostgreSQL', () => {
    expect(
      errors({
        'connection.url': URL,
        'connection.user': 'sink',
        'connection.password': 'secret',
        'insert.mode': 'upsert',
        'pk.mode': 'record_key',
        'pk.fields': 'id',
        'delete.enabled': 'true',
        'auto.create': 'true',
      }),
    ).toEqual({});
  });

  it("reports Connect's ConfigDef messages on the offending keys", () => {
    expect(errors({})).toEqual({
      'connection.url': [
        'Missing required configuration "connection.url" which has no default value.',
      ],
    });
    expect(errors({ 'connection.url': URL, 'insert.mode': 'merge', 'batch.size': '0' })).toEqual({
      'insert.mode': [
        'Invalid value merge for configuration insert.mode: String must be one of (case insensitive): INSERT, UPSERT, UPDATE',
      ],
      'batch.size': ['Invalid value 0 for configuration batch.size: Value must be at least 1'],
    });
  });

  it('reports the cross-key rules of the JDBC sink', () => {
    expect(errors({ 'connection.url': URL, 'insert.mode': 'upsert' })).toEqual({
      'insert.mode': [
        'Invalid value upsert for configuration insert.mode: upsert needs primary key columns: set pk.mode to kafka, record_key or record_value',
      ],
    });
    expect(
      errors({
        'connection.url': URL,
        'pk.mode': 'record_value',
        'pk.fields': 'id',
        'delete.enabled': 'true',
      }),
    ).toEqual({
      'delete.enabled': [
        'Invalid value true for configuration delete.enabled: deletes are only supported for pk.mode=record_key',
      ],
    });
    expect(errors({ 'connection.url': 'jdbc:mysql://h/db' })['connection.url']?.[0]).toContain(
      'expected jdbc:postgresql://host:port/database',
    );
    expect(
      errors({ 'connection.url': URL, 'pk.mode': 'kafka', 'pk.fields': 'a,b' })['pk.fields']?.[0],
    ).toContain('needs exactly three names');
  });

  it('never shows the password in validate output', () => {
    const values = connector.validate({ 'connection.url': URL, 'connection.password': 'hunter2' });
    expect(JSON.stringify(values.map((v) => ({ ...v, value: String(v.value) })))).not.toContain(
      'hunter2',
    );
  });
});
