/**
 * Writes the Avro vector cases (test/unit/shared/plugins/converters/avro/avro-vector-cases.ts)
 * for scripts/vectors/AvroVectors.java: each case's Avro schema as this project maps it and its
 * value in Avro's JSON encoding, one JSON array on stdout. The JSON datum is written from the
 * values avsc would encode, walking avsc's type tree, never through avsc's binary encoder, so
 * Java's encoding of it is an independent check of ours.
 * Run by scripts/vectors/generate.sh.
 */
import type { Type } from 'avsc';
import { AvroData } from '../../shared/plugins/converters/avro/avro-codec.js';
import { compileToAvro } from '../../shared/plugins/converters/avro/avro-values.js';
import { AVRO_CASES } from '../../test/unit/shared/plugins/converters/avro/avro-vector-cases.js';

type Walk = Type & {
  types?: Type[];
  fields?: { name: string; type: Type }[];
  itemsType?: Type;
  valuesType?: Type;
};

function quote(s: string): string {
  return JSON.stringify(s);
}

/** Avro's JSON encoding of avsc value `value` of `type`. */
function datum(type: Type, value: unknown): string {
  const t = type as Walk;
  switch (t.typeName) {
    case 'null':
      return 'null';
    case 'union:wrapped': {
      if (value === null) return 'null';
      const [branch, member] = Object.entries(value as Record<string, unknown>)[0] as [
        string,
        unknown,
      ];
      const branchType = (t.types ?? []).find((b) => b.branchName === branch) as Type;
      return `{${quote(branch)}:${datum(branchType, member)}}`;
    }
    case 'record':
    case 'error':
      return `{${(t.fields ?? []).map((f) => `${quote(f.name)}:${datum(f.type, (value as Record<string, unknown>)[f.name])}`).join(',')}}`;
    case 'array':
      return `[${(value as unknown[]).map((e) => datum(t.itemsType as Type, e)).join(',')}]`;
    case 'map':
      return `{${Object.entries(value as Record<string, unknown>)
        .map(([k, v]) => `${quote(k)}:${datum(t.valuesType as Type, v)}`)
        .join(',')}}`;
    case 'bytes':
    case 'fixed':
      return quote(String.fromCharCode(...(value as Uint8Array)));
    case 'long':
    case 'int':
      return String(value);
    case 'float':
    case 'double':
      return JSON.stringify(value);
    default:
      // Avro's long (avsc names the project's long type `abstract:long`): a number or a bigint.
      return typeof value === 'bigint' ? String(value) : JSON.stringify(value);
  }
}

const out = AVRO_CASES.map((c) => {
  const codec = new AvroData({ cacheSize: 10, ...c.options }).forConnectSchema(c.schema);
  const type = codec.avroType;
  const value = compileToAvro(c.schema, type)(c.value);
  return `  {"name": ${quote(c.name)}, "schema": ${quote(codec.schemaText)}, "datum": ${quote(datum(type, value))}}`;
});
process.stdout.write(`[\n${out.join(',\n')}\n]\n`);
