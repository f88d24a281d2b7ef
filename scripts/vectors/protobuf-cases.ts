/**
 * Writes the Protobuf vector cases (test/unit/shared/plugins/converters/protobuf/
 * protobuf-vector-cases.ts) for scripts/vectors/ProtobufVectors.java, one JSON array on stdout.
 * Per case: our .proto text (with an `import "confluent/meta.proto";` added where a field
 * carries Confluent's meta option, which protoc needs and Confluent's text leaves out), the
 * files it imports, the message's full name, the value in protobuf's JSON form (written from
 * the object protobufjs would encode, walking its type, never through its binary encoder), and
 * our bytes (hex), which Java must parse to the same message.
 * Run by scripts/vectors/generate.sh.
 */
import protobuf, { type Type } from 'protobufjs';
import { writerProtoOf } from '../../shared/plugins/converters/protobuf/from-connect-schema.js';
import {
  isWrapperType,
  KNOWN_FILES,
} from '../../shared/plugins/converters/protobuf/known-types.js';
import { parseProto } from '../../shared/plugins/converters/protobuf/proto-root.js';
import { ProtobufData } from '../../shared/plugins/converters/protobuf/protobuf-data.js';
import { compileToProtobuf } from '../../shared/plugins/converters/protobuf/to-protobuf-value.js';
import {
  optionsOf,
  PROTOBUF_CASES,
} from '../../test/unit/shared/plugins/converters/protobuf/protobuf-vector-cases.js';

/** confluent/meta.proto as Confluent ships it, with the option's extension, for protoc. */
const META_PROTO = `syntax = "proto3";
package confluent;

import "google/protobuf/descriptor.proto";

message Meta {
  string doc = 1;
  map<string, string> params = 2;
  repeated string tags = 3;
}

extend google.protobuf.FieldOptions {
  Meta field_meta = 1088;
}
`;

const LONG_TYPES = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

function int64Text(value: unknown, unsigned: boolean): string {
  if (typeof value === 'number')
    return String(unsigned && value < 0 ? BigInt.asUintN(64, BigInt(value)) : value);
  const { low, high } = value as { low: number; high: number };
  const bits = (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0);
  return String(unsigned ? bits : BigInt.asIntN(64, bits));
}

/** protobuf's JSON form of protobufjs value `value` of field `field`. */
function json(field: protobuf.Field, value: unknown): unknown {
  if (field.repeated && Array.isArray(value)) return value.map((v) => single(field, v));
  return single(field, value);
}

function single(field: protobuf.Field, value: unknown): unknown {
  const target = field.resolvedType;
  if (target instanceof protobuf.Type) return message(target, value as Record<string, unknown>);
  return scalar(field, value);
}

function scalar(field: protobuf.Field, value: unknown): unknown {
  if (LONG_TYPES.has(field.type))
    return int64Text(value, field.type.startsWith('u') || field.type === 'fixed64');
  if (field.type === 'uint32' || field.type === 'fixed32') return (value as number) >>> 0;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  // JSON has no -0 and no NaN: protobuf's JSON takes both as strings.
  if (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0))) {
    return Object.is(value, -0) ? '-0' : String(value);
  }
  return value;
}

/** protobuf's JSON form of a message: wrappers as their value, a Timestamp as RFC 3339. */
function message(type: Type, value: Record<string, unknown>): unknown {
  const name = type.fullName.slice(1);
  if (isWrapperType(name)) {
    const field = type.fields.value as protobuf.Field;
    return scalar(
      field,
      value.value ??
        (field.type === 'string'
          ? ''
          : field.type === 'bool'
            ? false
            : field.type === 'bytes'
              ? new Uint8Array(0)
              : 0),
    );
  }
  if (name === 'google.protobuf.Timestamp') {
    const seconds = Number(int64Text(value.seconds ?? 0, false));
    const nanos = (value.nanos as number | undefined) ?? 0;
    return new Date(seconds * 1000 + nanos / 1e6).toISOString();
  }
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(value)) {
    out[name] = json(type.fields[name] as protobuf.Field, v);
  }
  return out;
}

const out = PROTOBUF_CASES.map((c) => {
  const options = optionsOf(c);
  const proto = writerProtoOf(c.schema, options);
  const parsed = parseProto(proto.text, new Map());
  const type = parsed.type(proto.messageName);
  const object = compileToProtobuf(c.schema, type, false)(c.value);
  const ours = new ProtobufData(options).forConnectSchema(c.schema).encode(c.value);
  const needsMeta = proto.text.includes('(confluent.field_meta)');
  const text = needsMeta
    ? proto.text.replace(
        /^(syntax[^\n]*\n(?:package[^\n]*\n)?)\n?/,
        '$1\nimport "confluent/meta.proto";\n',
      )
    : proto.text;
  const files: Record<string, string> = { 'main.proto': text, 'confluent/meta.proto': META_PROTO };
  for (const [name, content] of KNOWN_FILES) {
    if (!name.startsWith('google/protobuf/') && name !== 'confluent/meta.proto')
      files[name] = content;
  }
  return {
    name: c.name,
    message: proto.messageName,
    files,
    json: JSON.stringify(message(type, object)),
    ours: Buffer.from(ours).toString('hex'),
  };
});
process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
