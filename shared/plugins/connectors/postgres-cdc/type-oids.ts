/**
 * The object ids of PostgreSQL's built-in types the CDC source maps (pg_type), and which built-in
 * array type holds which element type. Pure.
 */

export const OID = Object.freeze({
  BOOL: 16,
  BYTEA: 17,
  CHAR: 18,
  NAME: 19,
  INT8: 20,
  INT2: 21,
  INT4: 23,
  TEXT: 25,
  OID: 26,
  JSON: 114,
  XML: 142,
  FLOAT4: 700,
  FLOAT8: 701,
  MONEY: 790,
  BPCHAR: 1042,
  VARCHAR: 1043,
  DATE: 1082,
  TIME: 1083,
  TIMESTAMP: 1114,
  TIMESTAMPTZ: 1184,
  INTERVAL: 1186,
  TIMETZ: 1266,
  BIT: 1560,
  NUMERIC: 1700,
  UUID: 2950,
  JSONB: 3802,
});

/** Built-in array types → their element types. */
export const ARRAY_ELEMENTS: ReadonlyMap<number, number> = new Map([
  [1000, OID.BOOL],
  [1001, OID.BYTEA],
  [1002, OID.CHAR],
  [1003, OID.NAME],
  [1005, OID.INT2],
  [1007, OID.INT4],
  [1009, OID.TEXT],
  [1014, OID.BPCHAR],
  [1015, OID.VARCHAR],
  [1016, OID.INT8],
  [1021, OID.FLOAT4],
  [1022, OID.FLOAT8],
  [1028, OID.OID],
  [791, OID.MONEY],
  [1182, OID.DATE],
  [1183, OID.TIME],
  [1115, OID.TIMESTAMP],
  [1185, OID.TIMESTAMPTZ],
  [1187, OID.INTERVAL],
  [1231, OID.NUMERIC],
  [1270, OID.TIMETZ],
  [2951, OID.UUID],
  [199, OID.JSON],
  [3807, OID.JSONB],
  [143, OID.XML],
]);

/** Whether the mapping of `oid` needs no catalog lookup. */
export function isBuiltinType(oid: number): boolean {
  return oid < 10_000;
}
