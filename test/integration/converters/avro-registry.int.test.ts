/**
 * The Avro groundwork end to end against the real registry: the schema text our mapping writes
 * is accepted by the registry, and a reader that knows only the framed bytes gets the value
 * back through the id (what the AvroConverter will do).
 */
import { describe, expect, inject, it } from 'vitest';
import { BigDecimal, LogicalDecimal } from '../../../shared/connect/logical-types.js';
import { SchemaBuilder, Schemas, valuesEqual } from '../../../shared/connect/schema.js';
import { Struct } from '../../../shared/connect/struct.js';
import { AvroData } from '../../../shared/plugins/converters/avro/avro-codec.js';
import {
  SCHEMA_REGISTRY_CONFIG_DEF,
  schemaRegistrySettingsOf,
} from '../../../shared/plugins/converters/schema-registry/registry-config.js';
import { SchemaRegistryClient } from '../../../shared/plugins/converters/schema-registry/schema-registry-client.js';
import { frame, unframe } from '../../../shared/plugins/converters/schema-registry/wire-format.js';
import { uniqueName } from '../../support/services.js';

function client(): SchemaRegistryClient {
  const props = { 'schema.registry.url': inject('schemaRegistryUrl') };
  return new SchemaRegistryClient(
    schemaRegistrySettingsOf(SCHEMA_REGISTRY_CONFIG_DEF.parse(props), props),
    { fetch: (url, init) => fetch(url, init), clock: { now: () => 0 } },
  );
}

describe('Avro through the registry', () => {
  it('registers the mapped schema and reads framed values back by id', async () => {
    const schema = SchemaBuilder.struct()
      .name('com.example.Order')
      .field('id', Schemas.STRING)
      .field('qty', SchemaBuilder.int16().optional().defaultValue(1))
      .field('price', LogicalDecimal.schema(2))
      .field('tags', SchemaBuilder.map(Schemas.INT32, Schemas.STRING))
      .build();
    const value = new Struct(schema)
      .put('id', 'o-1')
      .put('price', new BigDecimal(1999n, 2))
      .put('tags', new Map([[1, 'new']]));
    const writer = new AvroData({ cacheSize: 10 }).forConnectSchema(schema);
    const id = await client().register(uniqueName('orders-value'), {
      schemaType: 'AVRO',
      schema: writer.schemaText,
      references: [],
    });
    const message = frame(id, writer.encode(value));

    const { schemaId, payload } = unframe(message);
    const fetched = await client().schemaById(schemaId);
    const reader = new AvroData({ cacheSize: 10 }).forAvroSchema(fetched.schema);
    const read = reader.decode(payload) as Struct;

    expect(schemaId).toBe(id);
    expect(read.get('id')).toBe('o-1');
    expect(read.get('qty')).toBe(1);
    expect(valuesEqual(read.get('price'), new BigDecimal(1999n, 2))).toBe(true);
    expect(read.schema.field('qty')?.schema.type).toBe('int16');
  });
});
