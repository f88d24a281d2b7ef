import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { ConnectError } from '../../connect/errors.js';

/** A raw DynamoDB item. */
export type Item = Record<string, AttributeValue>;

export const str = (value: string): AttributeValue => ({ S: value });
export const num = (value: number): AttributeValue => ({ N: String(value) });
export const bool = (value: boolean): AttributeValue => ({ BOOL: value });

/** A stored item that does not have the shape its kind requires. */
export function malformed(item: Item, detail: string): ConnectError {
  return new ConnectError(
    `Malformed state item ${item.pk?.S ?? '?'} / ${item.sk?.S ?? '?'}: ${detail}`,
  );
}

export function optS(item: Item, name: string): string | undefined {
  return item[name]?.S;
}

export function optN(item: Item, name: string): number | undefined {
  const value = item[name]?.N;
  return value === undefined ? undefined : Number(value);
}

export function optBool(item: Item, name: string): boolean | undefined {
  return item[name]?.BOOL;
}

export function reqS(item: Item, name: string): string {
  const value = optS(item, name);
  if (value === undefined) throw malformed(item, `string attribute ${name} missing`);
  return value;
}

export function reqN(item: Item, name: string): number {
  const value = optN(item, name);
  if (value === undefined) throw malformed(item, `number attribute ${name} missing`);
  return value;
}

function utf8(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return Math.min(21, Math.ceil(value.N.length / 2) + 1);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((sum, s) => sum + utf8(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, n) => sum + n.length, 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, b) => sum + b.byteLength, 0);
  if (value.L !== undefined) return value.L.reduce((sum, v) => sum + 1 + valueSize(v), 3);
  if (value.M !== undefined) {
    return Object.entries(value.M).reduce((sum, [k, v]) => sum + 1 + utf8(k) + valueSize(v), 3);
  }
  return 0;
}

/** The item's size by DynamoDB's rules (names + values; maps and lists with overhead). */
export function itemSize(item: Item): number {
  return Object.entries(item).reduce(
    (sum, [name, value]) => sum + utf8(name) + valueSize(value),
    0,
  );
}
