/**
 * A .proto file as the converter writes one (`from-connect-schema.ts`), and its text as
 * Confluent's `ProtobufSchema.canonicalString()` renders it (`ProtobufSchemaUtils.toString`):
 * the syntax, the package, a blank line and the imports, a blank line and the messages, each
 * message's fields, then its oneofs, then its nested messages, then its nested enums, indented
 * by two spaces. A field's Confluent meta parameters (`connect.type`, a decimal's `precision`
 * and `scale`) are written as the option `(confluent.field_meta)`, with no import of
 * `confluent/meta.proto`, as Confluent writes them.
 */

/** One field: `label type name = tag [options];`. */
export interface ProtoField {
  readonly label: 'repeated' | 'optional' | null;
  /** A scalar (`int32`), or a message or enum name as written (`Address`, `google.type.Date`). */
  readonly type: string;
  readonly name: string;
  readonly tag: number;
  /** Confluent's meta parameters, in order; empty for none. */
  readonly params: readonly (readonly [string, string])[];
}

export interface ProtoOneof {
  readonly name: string;
  readonly fields: readonly ProtoField[];
}

export interface ProtoEnum {
  readonly name: string;
  readonly values: readonly (readonly [string, number])[];
}

export interface ProtoMessage {
  readonly name: string;
  readonly fields: ProtoField[];
  readonly oneofs: ProtoOneof[];
  readonly messages: ProtoMessage[];
  readonly enums: ProtoEnum[];
}

export interface ProtoFile {
  readonly package: string | null;
  readonly imports: readonly string[];
  readonly messages: readonly ProtoMessage[];
}

/** An empty message named `name`, to fill in. */
export function newMessage(name: string): ProtoMessage {
  return { name, fields: [], oneofs: [], messages: [], enums: [] };
}

/** The parameters that Confluent writes value-first (`ProtobufSchema.toOption`). */
const VALUE_FIRST = new Set(['precision', 'scale']);

function indent(text: string): string {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => `  ${line}\n`).join('');
}

function quote(text: string): string {
  let out = '';
  for (const c of text) out += ESCAPES[c] ?? c;
  return `"${out}"`;
}

const ESCAPES: Readonly<Record<string, string>> = {
  '\u0007': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  "'": "\\'",
  '"': '\\"',
};

/** `(confluent.field_meta) = { params: [ { key: …, value: … }, … ] }`, as Confluent indents it. */
function metaOption(params: readonly (readonly [string, string])[]): string {
  const entries = params.map(([key, value], i) => {
    const pair = VALUE_FIRST.has(key)
      ? `value: ${quote(value)},\nkey: ${quote(key)}`
      : `key: ${quote(key)},\nvalue: ${quote(value)}`;
    return indent(`{\n${indent(pair)}}${i < params.length - 1 ? ',' : ''}`);
  });
  return `(confluent.field_meta) = {\n${indent(`params: [\n${entries.join('')}]`)}}`;
}

function renderField(field: ProtoField): string {
  const label = field.label === null ? '' : `${field.label} `;
  const options = field.params.length === 0 ? '' : ` [${metaOption(field.params)}]`;
  return `${label}${field.type} ${field.name} = ${field.tag}${options};\n`;
}

function renderEnum(type: ProtoEnum): string {
  const values = type.values.map(([name, tag]) => indent(`${name} = ${tag};\n`)).join('');
  return `enum ${type.name} {${values === '' ? '' : `\n${values}`}}\n`;
}

function renderMessage(message: ProtoMessage): string {
  let out = `message ${message.name} {`;
  if (message.fields.length > 0) {
    out += `\n${message.fields.map((f) => indent(renderField(f))).join('')}`;
  }
  const oneofs = message.oneofs.filter((o) => o.fields.length > 0);
  if (oneofs.length > 0) {
    const rendered = oneofs.map(
      (o) => `oneof ${o.name} {\n${o.fields.map((f) => indent(renderField(f))).join('')}}\n`,
    );
    out += `\n${rendered.map(indent).join('')}`;
  }
  if (message.messages.length > 0 || message.enums.length > 0) {
    out += `\n${message.messages.map((m) => indent(renderMessage(m))).join('')}`;
    out += message.enums.map((e) => indent(renderEnum(e))).join('');
  }
  return `${out}}\n`;
}

/** The text of `file`, byte for byte as Confluent's `ProtobufSchema.canonicalString()`. */
export function renderProtoFile(file: ProtoFile): string {
  let out = 'syntax = "proto3";\n';
  if (file.package !== null) out += `package ${file.package};\n`;
  if (file.imports.length > 0) {
    out += `\n${file.imports.map((i) => `import ${quote(i)};\n`).join('')}`;
  }
  if (file.messages.length > 0) out += `\n${file.messages.map(renderMessage).join('')}`;
  return out;
}
