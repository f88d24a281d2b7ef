import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import { SchemaBuilder, Schemas } from '../../../../../../shared/connect/schema.js';
import type { Struct } from '../../../../../../shared/connect/struct.js';
import { ProtobufData } from '../../../../../../shared/plugins/converters/protobuf/protobuf-data.js';
import {
  DEFAULT_PROTOBUF_DATA_OPTIONS,
  type ProtobufDataOptions,
} from '../../../../../../shared/plugins/converters/protobuf/protobuf-data-options.js';

function data(options: Partial<ProtobufDataOptions> = {}): ProtobufData {
  return new ProtobufData({ ...DEFAULT_PROTOBUF_DATA_OPTIONS, ...options, cacheSize: 10 });
}

/** A schema as another producer registered it: map<> syntax, nested and enum types, a oneof. */
const FOREIGN = `syntax = "proto3";
package shop.v1;

import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";

message Header {
  string trace = 1;
}
message Order {
  string id = 1;
  map<string, int32> counts = 2;
  Status status = 3;
  google.protobuf.Timestamp created = 4;
  google.protobuf.StringValue note = 5;
  optional int64 discount = 6;
  oneof payment {
    string card = 7;
    int64 account = 8;
  }
  repeated Line lines = 9;

  message Line {
    string sku = 1;
    uint32 qty = 2;
  }
  enum Status {
    NEW = 0;
    PAID = 1;
  }
}
`;

describe('Connect → Protobuf schema', () => {
  it('writes an unnamed struct as ConnectDefault1 without a package, nested types after fields', () => {
    const inner = SchemaBuilder.struct().field('a', Schemas.STRING).build();
    const schema = SchemaBuilder.struct()
      .field('inner', inner)
      .field('tags', SchemaBuilder.map(Schemas.STRING, Schemas.STRING).optional())
      .build();

    const writer = data().forConnectSchema(schema);

    expect(writer.messageName).toBe('ConnectDefault1');
    expect(writer.schemaText).toBe(
      [
        'syntax = "proto3";',
        '',
        'message ConnectDefault1 {',
        '  ConnectDefault2 inner = 1;',
        '  repeated ConnectDefault3Entry tags = 2;',
        '',
        '  message ConnectDefault2 {',
        '    string a = 1;',
        '  }',
        '  message ConnectDefault3Entry {',
        '    string key = 1;',
        '    string value = 2;',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('writes optional fields as proto3 optional with optional.for.nullables, wrappers with wrapper.for.nullables', () => {
    const schema = SchemaBuilder.struct().name('N').field('n', Schemas.OPTIONAL_STRING).build();

    expect(data({ optionalForNullables: true }).forConnectSchema(schema).schemaText).toContain(
      '  optional string n = 1;',
    );
    const wrapped = data({ wrapperForNullables: true }).forConnectSchema(schema).schemaText;
    expect(wrapped).toContain('import "google/protobuf/wrappers.proto";');
    expect(wrapped).toContain('  google.protobuf.StringValue n = 1;');
  });

  it('refuses a top-level array and a oneof member without a field number', () => {
    expect(() => data().forConnectSchema(SchemaBuilder.array(Schemas.INT32).build())).toThrow(
      /Unsupported root schema of type ARRAY/,
    );
    const union = SchemaBuilder.struct()
      .name('io.confluent.connect.protobuf.Union.u')
      .field('x', Schemas.OPTIONAL_STRING)
      .optional()
      .build();
    const schema = SchemaBuilder.struct().name('U').field('u_0', union).build();
    expect(() => data().forConnectSchema(schema)).toThrow(DataError);
  });
});

/** id "o", counts {a: 2}, status PAID, account 9 (the oneof), lines [{sku "s", qty 3}]. */
const ORDER_HEX = '0a016f12050a01611002180140094a050a01731003';

describe('Protobuf → Connect', () => {
  const parsed = data().parse('1', FOREIGN, new Map());

  it('finds messages by their indexes, and refuses an unknown index', () => {
    expect(parsed.messageName([0])).toBe('shop.v1.Header');
    expect(parsed.messageName([1])).toBe('shop.v1.Order');
    expect(parsed.messageName([1, 0])).toBe('shop.v1.Order.Line');
    expect(parsed.indexesOf('shop.v1.Order.Line')).toEqual([1, 0]);
    expect(() => parsed.messageName([2])).toThrow(DataError);
    expect(() => parsed.messageName([1, 1])).toThrow(/Invalid message indexes \[1, 1\]/);
  });

  it("maps oneofs first, maps, enums, wrappers and well-known types as Confluent's ProtobufData", () => {
    const schema = data().reader('1', parsed, 'shop.v1.Order', 4).connectSchema;

    expect(schema.name).toBe('Order');
    expect(schema.version).toBe(4);
    expect(schema.fields.map((f) => f.name)).toEqual([
      'payment_0',
      'id',
      'counts',
      'status',
      'created',
      'note',
      'discount',
      'lines',
    ]);
    expect(schema.field('payment_0')?.schema.name).toBe(
      'io.confluent.connect.protobuf.Union.payment',
    );
    expect(schema.field('counts')?.schema).toMatchObject({ type: 'map', name: 'counts' });
    expect(schema.field('status')?.schema.parameters).toMatchObject({
      'io.confluent.connect.protobuf.Enum': 'Status',
      'io.confluent.connect.protobuf.Enum.PAID': '1',
      'io.confluent.connect.protobuf.Tag': '3',
    });
    expect(schema.field('created')?.schema.name).toBe('org.apache.kafka.connect.data.Timestamp');
    expect(schema.field('note')?.schema).toMatchObject({ type: 'string', optional: true });
    const lines = schema.field('lines')?.schema;
    expect(lines?.valueSchema?.field('qty')?.schema.parameters).toMatchObject({
      'io.confluent.connect.protobuf.Type': 'uint32',
    });
  });

  it('reads a value written with the registry schema, absent scalars as defaults', () => {
    const reader = data().reader('1', parsed, 'shop.v1.Order', null);
    const value = reader.decode(Buffer.from(ORDER_HEX, 'hex')) as Struct;

    expect(value.get('id')).toBe('o');
    expect(value.get('counts')).toEqual(new Map([['a', 2]]));
    expect(value.get('status')).toBe('PAID');
    expect((value.get('payment_0') as Struct).get('account')).toBe(9);
    expect(value.get('created')).toBeNull();
    expect(value.get('discount')).toBeNull();
    expect(((value.get('lines') as Struct[])[0] as Struct).get('qty')).toBe(3);
  });

  it('refuses a payload that is not the message as a record error', () => {
    const reader = data().reader('1', parsed, 'shop.v1.Order', null);
    expect(() => reader.decode(Uint8Array.of(0x0a, 0x05, 0x61))).toThrow(DataError);
  });

  it('refuses a recursive message and text that is not Protobuf', () => {
    const recursive = 'syntax = "proto3";\nmessage Node {\n  Node next = 1;\n}\n';
    const node = data().parse('2', recursive, new Map());
    expect(() => data().reader('2', node, 'Node', null)).toThrow(/recursive/);
    expect(() => data().parse('3', 'message {', new Map())).toThrow(DataError);
  });

  it('writes a value back through the schema it read, to the same bytes', () => {
    const d = data();
    const reader = d.reader('1', parsed, 'shop.v1.Order', null);
    const value = reader.decode(Buffer.from(ORDER_HEX, 'hex'));

    const again = d.forConnectSchema(reader.connectSchema).encode(value);

    expect(Buffer.from(again).toString('hex')).toBe(ORDER_HEX);
  });
});
