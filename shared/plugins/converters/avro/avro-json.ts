/**
 * Avro schemas as JSON values, written as Apache Avro's Java library writes them
 * (`Schema.toString()`): keys in the order given, strings escaped as Jackson does, float and
 * double values (defaults, `connect.default`) as Java prints them (`2.0`, `1.0E21`).
 */
import { javaDoubleToString, javaFloatToString } from '../java-format.js';
import { quoteJson } from '../json-quote.js';

/** A float (32-bit) number in a schema: Java prints it with `Float.toString`. */
export class JsonFloat {
  constructor(readonly value: number) {}
}

/** A double number in a schema: Java prints it with `Double.toString`. */
export class JsonDouble {
  constructor(readonly value: number) {}
}

/** An Avro schema or a default value as JSON. Integers are `number` or `bigint`. */
export type AvroJson =
  | null
  | boolean
  | string
  | number
  | bigint
  | JsonFloat
  | JsonDouble
  | readonly AvroJson[]
  | { readonly [key: string]: AvroJson };

/** An Avro schema object (`{"type": ...}`), keys in writing order. */
export type AvroObject = { readonly [key: string]: AvroJson };

export function isAvroObject(json: AvroJson | undefined): json is AvroObject {
  return (
    typeof json === 'object' &&
    json !== null &&
    !Array.isArray(json) &&
    !(json instanceof JsonFloat) &&
    !(json instanceof JsonDouble)
  );
}

/** The schema's text, compact, as Java's `Schema.toString()` writes it. */
export function writeAvroJson(json: AvroJson): string {
  if (json === null) return 'null';
  switch (typeof json) {
    case 'boolean':
    case 'number':
    case 'bigint':
      return String(json);
    case 'string':
      return quoteJson(json);
  }
  if (json instanceof JsonFloat) return javaFloatToString(json.value);
  if (json instanceof JsonDouble) return javaDoubleToString(json.value);
  if (Array.isArray(json)) return `[${json.map(writeAvroJson).join(',')}]`;
  const members = Object.entries(json as AvroObject).map(
    ([key, value]) => `${quoteJson(key)}:${writeAvroJson(value)}`,
  );
  return `{${members.join(',')}}`;
}

/** The plain JSON value of `json` (what `JSON.parse` of its text gives, bigints kept). */
export function plainJson(json: AvroJson): unknown {
  if (json instanceof JsonFloat || json instanceof JsonDouble) return json.value;
  if (Array.isArray(json)) return json.map(plainJson);
  if (isAvroObject(json)) {
    return Object.fromEntries(Object.entries(json).map(([k, v]) => [k, plainJson(v)]));
  }
  return json;
}
