/**
 * The Glue Protobuf and JSON Schema converters against an in-memory Glue: the data format they
 * register, the payload after Glue's header (Protobuf's one-varint message index, JSON's bare
 * text), reading back in another container with one GetSchemaVersion, evolution, auto-registration
 * off, an unknown version id, and a version of another format.
 */
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../../../../../shared/connect/errors.js';
import { EMPTY_HEADERS } from '../../../../../../shared/connect/headers.js';
import { SchemaBuilder, Schemas } from '../../../../../../shared/connect/schema.js';
import { Struct } from '../../../../../../shared/connect/struct.js';
import type { GlueConverter } from '../../../../../../shared/plugins/converters/glue/glue-converter.js';
import { GlueJsonSchemaConverter } from '../../../../../../shared/plugins/converters/glue/glue-json-schema-converter.js';
import {
  GlueProtobufConverter,
  glueMessageOrder,
} from '../../../../../../shared/plugins/converters/glue/glue-protobuf-converter.js';
import { GlueRegistryClients } from '../../../../../../shared/plugins/converters/glue/glue-registry-client.js';
import {
  GLUE_HEADER_SIZE,
  glueFrame,
} from '../../../../../../shared/plugins/converters/glue/glue-wire-format.js';
import { parseProto } from '../../../../../../shared/plugins/converters/protobuf/proto-root.js';
import { FakeGlue } from './fake-glue.js';

const V1 = SchemaBuilder.struct()
  .name('com.example.Order')
  .field('id', Schemas.INT64)
  .field('note', Schemas.OPTIONAL_STRING)
  .build();
const V2 = SchemaBuilder.struct()
  .name('com.example.Order')
  .field('id', Schemas.INT64)
  .field('note', Schemas.OPTIONAL_STRING)
  .field('qty', Schemas.OPTIONAL_INT32)
  .build();
const order = (id: number, note: string | null = null) =>
  new Struct(V1).put('id', id).put('note', note);

function clientsOf(glue: FakeGlue) {
  return new GlueRegistryClients({
    portFor: () => glue,
    clock: { now: () => 0 },
    sleep: async () => undefined,
  });
}

const FORMATS = [
  {
    name: 'Protobuf',
    dataFormat: 'PROTOBUF',
    make: (clients: GlueRegistryClients) => new GlueProtobufConverter(clients),
  },
  {
    name: 'JSON Schema',
    dataFormat: 'JSON',
    make: (clients: GlueRegistryClients) => new GlueJsonSchemaConverter(clients),
  },
] as const;

describe.each(FORMATS)('the Glue $name converter', ({ dataFormat, make }) => {
  /** A converter of a new container over `glue`. */
  function converter(glue: FakeGlue, props: Record<string, string> = {}): GlueConverter {
    const c = make(clientsOf(glue));
    c.configure({ schemaAutoRegistrationEnabled: 'true', ...props }, false);
    return c;
  }

  it(`registers a ${dataFormat} schema on first write and reads it back in another container with one GetSchemaVersion`, async () => {
    // Prepare
    const glue = new FakeGlue();
    const writer = converter(glue);

    // Act
    const first = (await writer.fromConnectData(
      'orders',
      EMPTY_HEADERS,
      V1,
      order(7, 'x'),
    )) as Uint8Array;
    const second = (await writer.fromConnectData(
      'orders',
      EMPTY_HEADERS,
      V1,
      order(8),
    )) as Uint8Array;
    const registered = [...glue.calls];
    glue.calls.length = 0;
    const reader = converter(glue);
    const back = await reader.toConnectData('orders', EMPTY_HEADERS, first);
    const backAgain = await reader.toConnectData('orders', EMPTY_HEADERS, second);

    // Assess
    expect(registered).toEqual(['GetSchemaByDefinition orders', 'CreateSchema orders']);
    expect(glue.created[0]?.dataFormat).toBe(dataFormat);
    expect(glue.calls.filter((c) => c.startsWith('GetSchemaVersion'))).toHaveLength(1);
    expect([first[0], first[1]]).toEqual([3, 0]);
    expect((back.value as Struct).get('id')).toBe(7);
    expect((back.value as Struct).get('note')).toBe('x');
    expect((backAgain.value as Struct).get('id')).toBe(8);
    expect(back.schema?.field('id')?.schema.type).toBe('int64');
  });

  it('registers a new version when the schema evolves', async () => {
    // Prepare
    const glue = new FakeGlue();
    const c = converter(glue);
    const v1 = (await c.fromConnectData('orders', EMPTY_HEADERS, V1, order(1))) as Uint8Array;

    // Act
    const value = new Struct(V2).put('id', 2).put('qty', 5);
    const v2 = (await c.fromConnectData('orders', EMPTY_HEADERS, V2, value)) as Uint8Array;
    const back = await converter(glue).toConnectData('orders', EMPTY_HEADERS, v2);

    // Assess
    expect(glue.calls).toContain('RegisterSchemaVersion orders');
    expect(Buffer.from(v2.subarray(2, 18))).not.toEqual(Buffer.from(v1.subarray(2, 18)));
    expect((back.value as Struct).get('qty')).toBe(5);
  });

  it('fails with a record error when auto-registration is off and the schema is not registered', async () => {
    // Prepare
    const c = converter(new FakeGlue(), { schemaAutoRegistrationEnabled: 'false' });

    // Act
    const failure = (async () => c.fromConnectData('orders', EMPTY_HEADERS, V1, order(1)))();

    // Assess
    await expect(failure).rejects.toThrow(DataError);
    await expect(failure).rejects.toThrow('Auto registration of schema is not enabled');
  });

  it('fails with a record error for an unknown schema version id', async () => {
    // Prepare
    const c = converter(new FakeGlue());
    const bytes = glueFrame('00000000-0000-4000-8000-00000000dead', Uint8Array.of(0), 'NONE');

    // Act
    const failure = (async () => c.toConnectData('orders', EMPTY_HEADERS, bytes))();

    // Assess
    await expect(failure).rejects.toThrow(DataError);
    await expect(failure).rejects.toThrow('Schema version is not found');
  });

  it('refuses a version of another data format', async () => {
    // Prepare
    const glue = new FakeGlue();
    const id = glue.put('orders', '{"type":"record","name":"R","fields":[]}', 'AVRO');
    const c = converter(glue);

    // Act
    const failure = (async () =>
      c.toConnectData('orders', EMPTY_HEADERS, glueFrame(id, Uint8Array.of(0), 'NONE')))();

    // Assess
    await expect(failure).rejects.toThrow(
      `Schema version ${id} has data format AVRO, not ${dataFormat}`,
    );
  });

  it(`defaults dataFormat to ${dataFormat} and refuses another on the key`, () => {
    // Act
    const configure = () =>
      make(clientsOf(new FakeGlue())).configure({ dataFormat: 'AVRO_OR_ELSE' }, false);
    const configureOwn = () =>
      make(clientsOf(new FakeGlue())).configure({ dataFormat: dataFormat.toLowerCase() }, false);

    // Assess
    expect(configure).toThrow(ConfigError);
    expect(configure).toThrow('Invalid value AVRO_OR_ELSE for configuration dataFormat');
    expect(configureOwn).not.toThrow();
  });

  it('writes a null value as no bytes (a tombstone) and registers nothing', async () => {
    // Prepare
    const glue = new FakeGlue();
    const c = converter(glue);

    // Act
    const bytes = await c.fromConnectData(
      'orders',
      EMPTY_HEADERS,
      SchemaBuilder.struct().optional().build(),
      null,
    );

    // Assess
    expect(bytes).toBeNull();
    expect(glue.calls).toEqual([]);
  });
});

describe('the Glue Protobuf wire format', () => {
  it('refuses protobufMessageType=POJO (generated Java classes)', () => {
    // Act
    const configure = () =>
      new GlueProtobufConverter(clientsOf(new FakeGlue())).configure(
        { protobufMessageType: 'POJO' },
        false,
      );

    // Assess
    expect(configure).toThrow('Invalid value POJO for configuration protobufMessageType');
  });

  it("numbers messages as the library's MessageIndexFinder: all of them, nested too, sorted by full name", () => {
    // Prepare: the library's own example (B = 0, B.A = 1, B.A.D = 2, B.C = 3)
    const parsed = parseProto(
      'syntax = "proto3";\nmessage B {\n  message C {}\n  message A {\n    message D {}\n  }\n}\n',
      new Map(),
    );

    // Act
    const order = glueMessageOrder(parsed);

    // Assess
    expect(order).toEqual(['B', 'B.A', 'B.A.D', 'B.C']);
  });

  it('sorts the entry message of a map field by the name Java gives it (capitalized)', () => {
    // Prepare: Java names the entry of `zoo` ZooEntry, which sorts before `a_message` (uppercase first)
    const parsed = parseProto(
      'syntax = "proto3";\npackage p;\nmessage M {\n  message a_message {}\n  map<string, string> zoo = 1;\n}\n',
      new Map(),
    );

    // Act
    const order = glueMessageOrder(parsed);

    // Assess
    expect(order).toEqual(['p.M', 'p.M.zooEntry', 'p.M.a_message']);
  });

  it('writes the message index as one varint, then the Protobuf message', async () => {
    // Prepare
    const c = new GlueProtobufConverter(clientsOf(new FakeGlue()));
    c.configure({ schemaAutoRegistrationEnabled: 'true' }, false);

    // Act
    const bytes = (await c.fromConnectData(
      'orders',
      EMPTY_HEADERS,
      V1,
      order(300, 'x'),
    )) as Uint8Array;

    // Assess
    const payload = bytes.subarray(GLUE_HEADER_SIZE);
    expect(payload[0]).toBe(0); // com.example.Order, the file's only message
    const type = new protobuf.Type('Order')
      .add(new protobuf.Field('id', 1, 'int64'))
      .add(new protobuf.Field('note', 2, 'string'));
    const decoded = type.toObject(type.decode(payload.subarray(1)), { longs: Number });
    expect(decoded).toEqual({ id: 300, note: 'x' });
  });

  it('fails with a record error for a message index the schema does not have', async () => {
    // Prepare
    const glue = new FakeGlue();
    const id = glue.put(
      'orders',
      'syntax = "proto3";\nmessage M {\n  int32 a = 1;\n}\n',
      'PROTOBUF',
    );
    const c = new GlueProtobufConverter(clientsOf(glue));
    c.configure({}, false);

    // Act
    const failure = (async () =>
      c.toConnectData('orders', EMPTY_HEADERS, glueFrame(id, Uint8Array.of(3), 'NONE')))();

    // Assess
    await expect(failure).rejects.toThrow('No corresponding descriptor found for the index: 3');
  });
});

describe('the Glue JSON Schema wire format', () => {
  it('writes the bare JSON text after the header, validated against the schema', async () => {
    // Prepare
    const glue = new FakeGlue();
    const c = new GlueJsonSchemaConverter(clientsOf(glue));
    c.configure({ schemaAutoRegistrationEnabled: 'true' }, false);

    // Act
    const bytes = (await c.fromConnectData(
      'orders',
      EMPTY_HEADERS,
      V1,
      order(7, 'x'),
    )) as Uint8Array;

    // Assess
    expect(Buffer.from(bytes.subarray(GLUE_HEADER_SIZE)).toString('utf8')).toBe(
      '{"id":7,"note":"x"}',
    );
    expect(JSON.parse(glue.created[0]?.schemaDefinition ?? '')).toMatchObject({
      type: 'object',
      title: 'com.example.Order',
    });
  });
});
