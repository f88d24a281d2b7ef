import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../../shared/connect/errors.js';
import { SchemaBuilder, Schemas } from '../../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../../shared/connect/struct.js';
import { parseDynamoDbSinkConfig } from '../../../../../../shared/plugins/connectors/dynamodb-sink/dynamodb-sink-config.js';
import {
  checkKeyMapping,
  recordWrite,
} from '../../../../../../shared/plugins/connectors/dynamodb-sink/record-writes.js';
import type { TableKeySchema } from '../../../../../../shared/plugins/connectors/dynamodb-sink/sink-client.js';
import { ORDERS_TABLE, sinkRecord } from './fakes.js';

const NOW = 1_700_000_000_000;
const COMPOSITE: TableKeySchema = {
  table: 'events',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'N' },
};
const STAMP = {
  _kafka_topic: { S: 'orders' },
  _kafka_partition: { N: '0' },
  _kafka_offset: { N: '7' },
};

describe('recordWrite with pk.mode=record_key', () => {
  const config = parseDynamoDbSinkConfig({});

  it('puts a primitive key into the partition key and the value around it', () => {
    // Prepare
    const record = sinkRecord({ kafkaOffset: 7, key: 'o-1', value: { total: 12, id: 'stale' } });

    // Act
    const { write, itemId } = recordWrite(record, config, ORDERS_TABLE, NOW);

    // Assess
    expect(write).toEqual({
      kind: 'put',
      table: 'orders',
      item: { total: { N: '12' }, id: { S: 'o-1' }, ...STAMP },
      guard: { names: config.attributes, topic: 'orders', partition: 0, offset: 7 },
    });
    expect(itemId).toBe(JSON.stringify(['orders', 'S:o-1']));
  });

  it('overwrites value fields named like the reserved attributes', () => {
    // Prepare
    const value = { _kafka_offset: 99, _kafka_deleted: true, _kafka_expires_at: 1, v: 1 };
    const record = sinkRecord({ kafkaOffset: 7, key: 'o-1', value });

    // Act
    const { write } = recordWrite(record, config, ORDERS_TABLE, NOW);

    // Assess
    expect(write.kind === 'put' && write.item).toEqual({
      v: { N: '1' },
      id: { S: 'o-1' },
      ...STAMP,
    });
  });

  it('takes the key attributes from a struct key by the table key names', () => {
    // Prepare
    const keySchema = SchemaBuilder.struct()
      .field('pk', Schemas.STRING)
      .field('sk', Schemas.INT64)
      .field('extra', Schemas.STRING)
      .build();
    const key = new Struct(keySchema).put('pk', 'user-1').put('sk', 3n).put('extra', 'x');
    const record = sinkRecord({ kafkaOffset: 7, keySchema, key, value: new Map([['a', 1]]) });

    // Act
    const { write } = recordWrite(record, config, COMPOSITE, NOW);

    // Assess
    expect(write.kind === 'put' && write.item).toEqual({
      a: { N: '1' },
      pk: { S: 'user-1' },
      sk: { N: '3' },
      ...STAMP,
    });
  });

  it('maps renamed key fields through pk.fields, partition key first', () => {
    // Prepare
    const renamed = parseDynamoDbSinkConfig({ 'pk.fields': 'user,seq' });
    const record = sinkRecord({ kafkaOffset: 7, key: { user: 'u', seq: 9 }, value: {} });

    // Act
    const { write } = recordWrite(record, renamed, COMPOSITE, NOW);

    // Assess
    expect(write.kind === 'put' && write.item).toEqual({
      pk: { S: 'u' },
      sk: { N: '9' },
      ...STAMP,
    });
  });

  it('writes a tombstone marker with an expiry by default', () => {
    // Prepare
    const record = sinkRecord({ kafkaOffset: 7, key: 'o-1', value: null });

    // Act
    const { write } = recordWrite(record, config, ORDERS_TABLE, NOW);

    // Assess
    expect(write).toMatchObject({
      kind: 'put',
      item: {
        id: { S: 'o-1' },
        ...STAMP,
        _kafka_deleted: { BOOL: true },
        _kafka_expires_at: { N: String(1_700_000_000 + 86_400) },
      },
    });
  });

  it('writes a marker without expiry when the TTL is 0', () => {
    // Prepare
    const noTtl = parseDynamoDbSinkConfig({ 'delete.tombstone.ttl.seconds': '0' });
    const record = sinkRecord({ kafkaOffset: 7, key: 'o-1', value: null });

    // Act
    const { write } = recordWrite(record, noTtl, ORDERS_TABLE, NOW);

    // Assess
    expect(write.kind === 'put' && Object.keys(write.item).sort()).toEqual([
      '_kafka_deleted',
      '_kafka_offset',
      '_kafka_partition',
      '_kafka_topic',
      'id',
    ]);
  });

  it('deletes the item of a tombstone with delete.mode=delete', () => {
    // Prepare
    const deletes = parseDynamoDbSinkConfig({ 'delete.mode': 'delete' });
    const record = sinkRecord({ kafkaOffset: 7, key: 'o-1', value: null });

    // Act
    const { write } = recordWrite(record, deletes, ORDERS_TABLE, NOW);

    // Assess
    expect(write).toEqual({
      kind: 'delete',
      table: 'orders',
      key: { id: { S: 'o-1' } },
      guard: { names: deletes.attributes, topic: 'orders', partition: 0, offset: 7 },
    });
  });

  it('stamps and guards with the coordinates the record was consumed at', () => {
    // Prepare
    const consumed = sinkRecord({ topic: 'raw', kafkaPartition: 2, kafkaOffset: 40, key: 'a' });
    const routed = consumed.newRecord({ topic: 'orders', kafkaPartition: 5, value: { x: 1 } });

    // Act
    const { write } = recordWrite(routed, config, ORDERS_TABLE, NOW);

    // Assess
    expect(write.guard).toMatchObject({ topic: 'raw', partition: 2, offset: 40 });
    expect(write.kind === 'put' && write.item._kafka_topic).toEqual({ S: 'raw' });
  });

  it.each([
    ['a null key', null, ORDERS_TABLE, 'has a null key, which pk.mode=record_key needs'],
    ['a primitive key for a table with a sort key', 'k', COMPOSITE, 'has key (pk, sk)'],
    ['a missing key field', { pk: 'a' }, COMPOSITE, "key field 'sk' is missing or null"],
    ['a key of the wrong type', 12, ORDERS_TABLE, 'gives N for key attribute id'],
    ['a boolean key', { id: true }, ORDERS_TABLE, 'gives BOOL for key attribute id'],
  ])('throws DataError for %s', (_name, key, table, message) => {
    // Prepare
    const record = sinkRecord({ kafkaOffset: 7, key, value: { v: 1 } });

    // Act
    const act = () => recordWrite(record, config, table, NOW);

    // Assess
    expect(act).toThrow(DataError);
    expect(act).toThrow(message);
  });

  it('throws DataError when the value is not a struct or a map', () => {
    // Prepare
    const record = sinkRecord({ kafkaOffset: 7, key: 'k', value: 'text' });

    // Act
    const act = () => recordWrite(record, config, ORDERS_TABLE, NOW);

    // Assess
    expect(act).toThrow('expected a struct or a map, got string');
  });
});

describe('recordWrite with pk.mode=record_value', () => {
  const config = parseDynamoDbSinkConfig({ 'pk.mode': 'record_value', 'delete.enabled': 'false' });

  it('takes the key attributes from the value fields', () => {
    // Prepare
    const schema = SchemaBuilder.struct()
      .field('id', Schemas.STRING)
      .field('n', Schemas.INT32)
      .build();
    const record = sinkRecord({
      kafkaOffset: 7,
      key: 'ignored',
      valueSchema: schema,
      value: new Struct(schema).put('id', 'v-1').put('n', 2),
    });

    // Act
    const { write, itemId } = recordWrite(record, config, ORDERS_TABLE, NOW);

    // Assess
    expect(write.kind === 'put' && write.item).toEqual({
      id: { S: 'v-1' },
      n: { N: '2' },
      ...STAMP,
    });
    expect(itemId).toBe(JSON.stringify(['orders', 'S:v-1']));
  });

  it('refuses a primitive value', () => {
    // Prepare
    const record = sinkRecord({ kafkaOffset: 7, value: 'v-1' });

    // Act
    const act = () => recordWrite(record, config, ORDERS_TABLE, NOW);

    // Assess
    expect(act).toThrow('a primitive value can only give the partition key');
  });
});

describe('checkKeyMapping', () => {
  it('accepts an empty pk.fields or one field per key attribute', () => {
    // Act
    const act = () => {
      checkKeyMapping(parseDynamoDbSinkConfig({}), COMPOSITE);
      checkKeyMapping(parseDynamoDbSinkConfig({ 'pk.fields': 'a,b' }), COMPOSITE);
    };

    // Assess
    expect(act).not.toThrow();
  });

  it('refuses a pk.fields that does not match the number of key attributes', () => {
    // Act
    const act = () => checkKeyMapping(parseDynamoDbSinkConfig({ 'pk.fields': 'a' }), COMPOSITE);

    // Assess
    expect(act).toThrow(ConfigError);
    expect(act).toThrow('table events has 2 key attribute(s) (pk, sk)');
  });
});
