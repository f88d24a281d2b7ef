/**
 * The Glue Avro converter against an in-memory Glue (fake-glue.ts): round trips, zlib, which
 * schema name each record goes under, tombstones, the synchronous steady state, and the errors'
 * kinds and messages. moto's Glue is in test/integration/converters/glue-avro-converter.int.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { isPromiseLike } from '../../../../../../shared/connect/converter.js';
import { DataError, RetriableError } from '../../../../../../shared/connect/errors.js';
import { EMPTY_HEADERS } from '../../../../../../shared/connect/headers.js';
import { SchemaBuilder, Schemas } from '../../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../../shared/connect/struct.js';
import { GlueAvroConverter } from '../../../../../../shared/plugins/converters/glue/glue-avro-converter.js';
import { GlueRegistryClients } from '../../../../../../shared/plugins/converters/glue/glue-registry-client.js';
import { glueFrame } from '../../../../../../shared/plugins/converters/glue/glue-wire-format.js';
import { FakeGlue } from './fake-glue.js';

const ORDER = SchemaBuilder.struct()
  .name('com.example.Order')
  .field('id', Schemas.INT64)
  .field('note', Schemas.OPTIONAL_STRING)
  .optional()
  .build();
const order = (id: number, note: string | null = null) =>
  new Struct(ORDER).put('id', id).put('note', note);

function clientsOf(glue: FakeGlue) {
  return new GlueRegistryClients({
    portFor: () => glue,
    clock: { now: () => 0 },
    sleep: async () => undefined,
  });
}

function converter(props: Record<string, string> = {}, isKey = false, glue = new FakeGlue()) {
  const c = new GlueAvroConverter(clientsOf(glue));
  c.configure({ schemaAutoRegistrationEnabled: 'true', ...props }, isKey);
  return { c, glue };
}

describe('GlueAvroConverter', () => {
  it.each(['NONE', 'ZLIB'])(
    'round-trips a struct through Glue (compression %s)',
    async (compression) => {
      // Prepare
      const { c: writer, glue } = converter({ compression });
      const { c: reader } = converter({}, false, glue);

      // Act
      const bytes = (await writer.fromConnectData(
        'orders',
        EMPTY_HEADERS,
        ORDER,
        order(7, 'x'),
      )) as Uint8Array;
      const back = await reader.toConnectData('orders', EMPTY_HEADERS, bytes);

      // Assess
      expect(bytes[0]).toBe(3);
      expect(bytes[1]).toBe(compression === 'ZLIB' ? 5 : 0);
      expect(back.schema?.name).toBe('com.example.Order');
      expect((back.value as Struct).get('id')).toBe(7);
      expect((back.value as Struct).get('note')).toBe('x');
    },
  );

  it('registers once, then converts synchronously', async () => {
    // Prepare
    const { c, glue } = converter();
    await c.fromConnectData('orders', EMPTY_HEADERS, ORDER, order(1));

    // Act
    const second = c.fromConnectData('orders', EMPTY_HEADERS, ORDER, order(2));
    const read = c.toConnectData('orders', EMPTY_HEADERS, second as Uint8Array);

    // Assess
    expect(isPromiseLike(second)).toBe(false);
    expect(isPromiseLike(read)).toBe(false);
    expect(glue.calls).toEqual(['GetSchemaByDefinition orders', 'CreateSchema orders']);
  });

  it('names the schema after the topic for keys and values alike (the library default)', async () => {
    // Prepare
    const glue = new FakeGlue();
    const { c: keys } = converter({}, true, glue);
    const { c: values } = converter({}, false, glue);
    const key = SchemaBuilder.struct()
      .name('com.example.OrderKey')
      .field('id', Schemas.INT64)
      .build();

    // Act
    await keys.fromConnectData('orders', EMPTY_HEADERS, key, new Struct(key).put('id', 1));
    await values.fromConnectData('orders', EMPTY_HEADERS, ORDER, order(1));

    // Assess: the value's schema becomes version 2 of schema "orders"
    expect(glue.calls).toEqual([
      'GetSchemaByDefinition orders',
      'CreateSchema orders',
      'GetSchemaByDefinition orders',
      'RegisterSchemaVersion orders',
    ]);
  });

  it('registers the record schema of an optional struct, not a union with null', async () => {
    // Prepare
    const { c, glue } = converter();

    // Act
    const bytes = (await c.fromConnectData('orders', EMPTY_HEADERS, ORDER, order(1))) as Uint8Array;
    const back = await c.toConnectData('orders', EMPTY_HEADERS, bytes);

    // Assess
    const definition = JSON.parse(glue.created[0]?.schemaDefinition ?? 'null') as { type: string };
    expect(definition.type).toBe('record');
    expect(back.schema?.optional).toBe(false);
    expect(Buffer.from(bytes.subarray(18))).toEqual(Buffer.from([2, 0])); // id 1, note: null branch
  });

  it('names the schema after the record with the Connect-name strategy, or schemaName', async () => {
    // Prepare
    const glue = new FakeGlue();
    const { c: byRecord } = converter(
      { schemaNameGenerationClass: 'AWSSchemaNamingStrategyConnectNameImpl' },
      false,
      glue,
    );
    const { c: fixed } = converter({ schemaName: 'order-keys' }, true, glue);

    // Act
    await byRecord.fromConnectData('orders', EMPTY_HEADERS, ORDER, order(1));
    const key = SchemaBuilder.struct()
      .name('com.example.OrderKey')
      .field('id', Schemas.INT64)
      .build();
    await fixed.fromConnectData('orders', EMPTY_HEADERS, key, new Struct(key).put('id', 1));

    // Assess
    expect(glue.created.map((c) => c.schemaName)).toEqual(['com.example.Order', 'order-keys']);
  });

  it('writes a tombstone for a null value without calling Glue, and reads null bytes as null', async () => {
    // Prepare
    const { c, glue } = converter();

    // Act
    const bytes = c.fromConnectData('orders', EMPTY_HEADERS, ORDER, null);
    const schemaless = c.fromConnectData('orders', EMPTY_HEADERS, null, null);
    const back = c.toConnectData('orders', EMPTY_HEADERS, null);

    // Assess
    expect(bytes).toBeNull();
    expect(schemaless).toBeNull();
    expect(back).toEqual({ schema: null, value: null });
    expect(glue.calls).toEqual([]);
  });

  it.each([
    ['a schemaless value', null, { id: 1 }, 'Schemaless values are not supported'],
    [
      'null for a required schema',
      SchemaBuilder.struct().name('com.example.Key').field('id', Schemas.INT64).build(),
      null,
      'Found null value for non-optional schema',
    ],
    [
      'a value that does not fit',
      Schemas.INT64,
      'seven',
      'Converting Kafka Connect data to byte[] failed',
    ],
  ])('refuses %s as a DataError', (_what, schema, value, message) => {
    // Prepare
    const { c } = converter();

    // Act
    const write = () => c.fromConnectData('orders', EMPTY_HEADERS, schema, value);

    // Assess
    expect(write).toThrow(DataError);
    expect(write).toThrow(message);
  });

  it('refuses an unregistered schema with auto-registration off as a record error', async () => {
    // Prepare
    const { c } = converter({ schemaAutoRegistrationEnabled: 'false' });

    // Act
    const failure = Promise.resolve(c.fromConnectData('orders', EMPTY_HEADERS, ORDER, order(1)));

    // Assess
    await expect(failure).rejects.toBeInstanceOf(DataError);
    await expect(failure).rejects.toThrow(
      'Converting Kafka Connect data to byte[] failed due to serialization error: Failed to auto-register schema.',
    );
  });

  it('refuses an unknown schema version id as a record error with Glue message', async () => {
    // Prepare
    const { c } = converter();
    const bytes = glueFrame('12345678-1234-1234-1234-123456789abc', Uint8Array.of(2), 'NONE');

    // Act
    const failure = Promise.resolve(c.toConnectData('orders', EMPTY_HEADERS, bytes));

    // Assess
    await expect(failure).rejects.toBeInstanceOf(DataError);
    await expect(failure).rejects.toThrow(
      'Converting byte[] to Kafka Connect data failed due to serialization error: GetSchemaVersion 12345678-1234-1234-1234-123456789abc failed: EntityNotFoundException: Schema version is not found.',
    );
  });

  it('refuses bytes that are not on the Glue wire format without calling Glue', () => {
    // Prepare
    const { c, glue } = converter();
    const confluent = Uint8Array.of(0, 0, 0, 0, 1, 2);

    // Act
    const read = () => c.toConnectData('orders', EMPTY_HEADERS, confluent);

    // Assess
    expect(read).toThrow(DataError);
    expect(glue.calls).toEqual([]);
  });

  it('refuses a version whose data format is not AVRO', async () => {
    // Prepare
    const glue = new FakeGlue();
    const id = glue.put('orders', '{"type":"object"}', 'JSON');
    const { c } = converter({}, false, glue);

    // Act
    const failure = Promise.resolve(
      c.toConnectData('orders', EMPTY_HEADERS, glueFrame(id, Uint8Array.of(), 'NONE')),
    );

    // Assess
    await expect(failure).rejects.toThrow(`Schema version ${id} has data format JSON, not AVRO`);
  });

  it('reports Glue unreachable as a retriable error, both ways', async () => {
    // Prepare
    const { c, glue } = converter();
    glue.down = true;
    const bytes = glueFrame('12345678-1234-1234-1234-123456789abc', Uint8Array.of(2), 'NONE');

    // Act
    const write = Promise.resolve(c.fromConnectData('orders', EMPTY_HEADERS, ORDER, order(1)));
    const read = Promise.resolve(c.toConnectData('orders', EMPTY_HEADERS, bytes));

    // Assess
    await expect(write).rejects.toBeInstanceOf(RetriableError);
    await expect(read).rejects.toBeInstanceOf(RetriableError);
  });

  it('reads a value written with an earlier version of the schema with that version', async () => {
    // Prepare
    const glue = new FakeGlue();
    const { c: writer } = converter({}, false, glue);
    const v1 = SchemaBuilder.struct().name('com.example.Order').field('id', Schemas.INT64).build();
    const old = (await writer.fromConnectData(
      'orders',
      EMPTY_HEADERS,
      v1,
      new Struct(v1).put('id', 1),
    )) as Uint8Array;
    await writer.fromConnectData('orders', EMPTY_HEADERS, ORDER, order(2, 'new'));
    const { c: reader } = converter({}, false, glue);

    // Act
    const back = await reader.toConnectData('orders', EMPTY_HEADERS, old);

    // Assess
    expect(back.schema?.fields?.map((f) => f.name)).toEqual(['id']);
    expect(glue.created).toHaveLength(1);
    expect(glue.calls).toContain('RegisterSchemaVersion orders');
  });
});
