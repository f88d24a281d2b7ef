/**
 * A subset of Connect's `Values.parseString`, which infers a schema from literal text (used by
 * InsertHeader's `value.literal` and MaskField's `replacement`):
 * - `""` → STRING `""`; `true`/`false` (any case) → BOOLEAN; `null` → no schema, `null`;
 * - an integer → the narrowest of INT8, INT16, INT32, INT64 (beyond INT64: a Decimal of scale 0);
 * - a decimal number → FLOAT32 when a float holds it exactly, else FLOAT64;
 * - anything else → STRING, unchanged.
 * Unlike Connect, arrays (`[...]`), maps (`{...}`) and ISO dates stay strings, and decimals
 * that a float cannot hold exactly become FLOAT64 rather than a rounded FLOAT32.
 */
import {
  BigDecimal,
  LogicalDecimal,
  type SchemaAndValue,
  Schemas,
} from 'serverless-connect/connect';
import { normalizeInt64 } from './java-numbers.js';

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function parseInteger(text: string): SchemaAndValue {
  const value = BigInt(text);
  if (value >= -128n && value <= 127n) return { schema: Schemas.INT8, value: Number(value) };
  if (value >= -32768n && value <= 32767n) return { schema: Schemas.INT16, value: Number(value) };
  if (value >= -2147483648n && value <= 2147483647n) {
    return { schema: Schemas.INT32, value: Number(value) };
  }
  if (value >= -(2n ** 63n) && value < 2n ** 63n) {
    return { schema: Schemas.INT64, value: normalizeInt64(value) };
  }
  return { schema: LogicalDecimal.schema(0), value: new BigDecimal(value, 0) };
}

/** The schema and value Connect would infer for `text` (see the module comment). */
export function parseString(text: string): SchemaAndValue {
  if (text === '') return { schema: Schemas.STRING, value: text };
  const lower = text.toLowerCase();
  if (lower === 'true' || lower === 'false')
    return { schema: Schemas.BOOLEAN, value: lower === 'true' };
  if (text === 'null') return { schema: null, value: null };
  if (INTEGER.test(text)) return parseInteger(text);
  if (DECIMAL.test(text)) {
    const decimal = BigDecimal.parse(text);
    const unit = 10n ** BigInt(Math.max(decimal.scale, 0));
    if (decimal.scale <= 0 || decimal.unscaled % unit === 0n) {
      const integral = decimal.scale <= 0 ? decimal.setScale(0).unscaled : decimal.unscaled / unit;
      return parseInteger(integral.toString());
    }
    const value = Number(text);
    if (Number.isFinite(value)) {
      return Math.fround(value) === value
        ? { schema: Schemas.FLOAT32, value }
        : { schema: Schemas.FLOAT64, value };
    }
    return { schema: LogicalDecimal.schema(decimal.scale), value: decimal };
  }
  return { schema: Schemas.STRING, value: text };
}
