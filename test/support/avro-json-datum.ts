/**
 * Avro's JSON encoding of a datum, written from the values avsc would encode by walking avsc's
 * type tree, never through avsc's binary encoder: what Apache Avro's Java library reads with its
 * JsonDecoder (scripts/vectors/avro-cases.ts) and writes with its JsonEncoder (the S3 sink's
 * reference-reader tests), so comparing with Java is an independent check of our encoding.
 */
import type { Type } from 'avsc';

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
export function avroJsonDatum(type: Type, value: unknown): string {
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
      return `{${quote(branch)}:${avroJsonDatum(branchType, member)}}`;
    }
    case 'record':
    case 'error':
      return `{${(t.fields ?? []).map((f) => `${quote(f.name)}:${avroJsonDatum(f.type, (value as Record<string, unknown>)[f.name])}`).join(',')}}`;
    case 'array':
      return `[${(value as unknown[]).map((e) => avroJsonDatum(t.itemsType as Type, e)).join(',')}]`;
    case 'map':
      return `{${Object.entries(value as Record<string, unknown>)
        .map(([k, v]) => `${quote(k)}:${avroJsonDatum(t.valuesType as Type, v)}`)
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
