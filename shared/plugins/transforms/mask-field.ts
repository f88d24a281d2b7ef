/**
 * MaskField (Connect's `org.apache.kafka.connect.transforms.MaskField$Key` / `$Value`):
 * replaces the listed fields with the "null" of their type (0, false, "", an empty array or
 * map, the epoch for dates, zero decimals) or, with `replacement`, with that text converted to
 * the field's type (numbers and strings only). Null fields stay null; tombstones pass through.
 */
import {
  BigDecimal,
  ConfigDef,
  type ConnectRecord,
  DataError,
  LogicalDecimal,
  NonEmptyString,
  type Schema,
  Struct,
  type Transformation,
} from 'serverless-connect/connect';
import {
  NON_EMPTY_LIST,
  parsed,
  REPLACE_NULL_WITH_DEFAULT,
  withReplaceNullWithDefault,
} from './util/config.js';
import {
  doubleValue,
  floatValue,
  isDecimalValue,
  longValue,
  normalizeInt64,
} from './util/java-numbers.js';
import { mapCopy, mapGet, toMapValueLike } from './util/map-values.js';
import { KEY_SIDE, type OperatingSide, VALUE_SIDE } from './util/operating-side.js';
import { className, fieldValue, requireMap, requireStruct } from './util/requirements.js';

const FIELDS = 'fields';
const REPLACEMENT = 'replacement';
const PURPOSE = 'mask fields';

function configDef(): ConfigDef {
  return withReplaceNullWithDefault(
    new ConfigDef()
      .define({
        name: FIELDS,
        type: 'LIST',
        validator: NON_EMPTY_LIST,
        importance: 'HIGH',
        documentation: 'Names of fields to mask.',
      })
      .define({
        name: REPLACEMENT,
        type: 'STRING',
        defaultValue: null,
        validator: new NonEmptyString(),
        importance: 'LOW',
        documentation:
          "Custom value replacement, that will be applied to all 'fields' values (numeric or non-empty string values only).",
      }),
  );
}

/** The kind of a value to mask: from its schema when there is one, else from the value. */
type MaskKind =
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'float32'
  | 'float64'
  | 'number'
  | 'boolean'
  | 'string'
  | 'decimal'
  | 'date'
  | 'array'
  | 'map'
  | 'other';

function kindOf(value: unknown, schema: Schema | null): MaskKind {
  if (schema !== null) {
    if (schema.name === LogicalDecimal.LOGICAL_NAME) return 'decimal';
    if (value instanceof Date) return 'date';
    switch (schema.type) {
      case 'int8':
      case 'int16':
      case 'int32':
      case 'int64':
      case 'float32':
      case 'float64':
      case 'boolean':
      case 'string':
      case 'array':
      case 'map':
        return schema.type;
      default:
        return 'other';
    }
  }
  if (typeof value === 'number') return 'number';
  if (typeof value === 'bigint') return 'int64';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  if (isDecimalValue(value)) return 'decimal';
  if (value instanceof Date) return 'date';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Map || (typeof value === 'object' && value !== null)) {
    return Object.getPrototypeOf(value) === Object.prototype || value instanceof Map
      ? 'map'
      : 'other';
  }
  return 'other';
}

function maskWithNull(value: unknown, kind: MaskKind): unknown {
  switch (kind) {
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64':
    case 'float32':
    case 'float64':
    case 'number':
      return typeof value === 'bigint' ? 0n : 0;
    case 'boolean':
      return false;
    case 'string':
      return '';
    case 'decimal':
      return new BigDecimal(0n, isDecimalValue(value) ? value.scale : 0);
    case 'date':
      return new Date(0);
    case 'array':
      return [];
    case 'map':
      return value instanceof Map ? new Map() : {};
    default:
      throw new DataError(`Cannot mask value of type: ${className(value)}`);
  }
}

function numberFrom(replacement: string): BigDecimal {
  try {
    return BigDecimal.parse(replacement);
  } catch (error) {
    throw new DataError(`Unable to convert ${replacement} (String) to number`, { cause: error });
  }
}

const INTEGER_BITS = { int8: 8, int16: 16, int32: 32, int64: 64 } as const;

/** The replacement as an integer of `bits`; DataError when it is not one or does not fit. */
function integerFrom(replacement: string, bits: 8 | 16 | 32 | 64): bigint {
  const decimal = numberFrom(replacement);
  const integral = longValue(decimal);
  const limit = 2n ** BigInt(bits - 1);
  if (
    decimal.compareTo(new BigDecimal(integral, 0)) !== 0 ||
    integral < -limit ||
    integral >= limit
  ) {
    throw new DataError(`Unable to convert ${replacement} (String) to number`);
  }
  return integral;
}

function maskWithReplacement(value: unknown, kind: MaskKind, replacement: string): unknown {
  switch (kind) {
    case 'string':
      return replacement;
    case 'int8':
    case 'int16':
    case 'int32':
      return Number(integerFrom(replacement, INTEGER_BITS[kind]));
    case 'int64': {
      const integral = integerFrom(replacement, 64);
      return typeof value === 'bigint' ? integral : normalizeInt64(integral);
    }
    case 'float32':
      return floatValue(numberFrom(replacement));
    case 'float64':
    case 'number':
      return doubleValue(numberFrom(replacement));
    case 'decimal': {
      const decimal = numberFrom(replacement);
      return isDecimalValue(value) ? decimal.setScale(value.scale) : decimal;
    }
    default:
      throw new DataError(`Cannot mask value of type ${className(value)} with custom replacement.`);
  }
}

interface Settings {
  readonly fields: ReadonlySet<string>;
  readonly replacement: string | null;
  readonly replaceNullWithDefault: boolean;
}

/** Masks fields; see the module comment. */
export abstract class MaskField<R extends ConnectRecord> implements Transformation<R> {
  #settings: Settings = { fields: new Set(), replacement: null, replaceNullWithDefault: true };

  protected constructor(private readonly side: OperatingSide) {}

  config(): ConfigDef {
    return configDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    const values = configDef().parse(props);
    this.#settings = {
      fields: new Set(parsed.list(values, FIELDS)),
      replacement: parsed.string(values, REPLACEMENT),
      replaceNullWithDefault: parsed.boolean(values, REPLACE_NULL_WITH_DEFAULT),
    };
  }

  apply(record: R): R | null {
    const value = this.side.value(record);
    if (value === null) return record;
    return this.side.schema(record) === null
      ? this.#applySchemaless(record, value)
      : this.#applyWithSchema(record, value);
  }

  close(): void {}

  #masked(value: unknown, schema: Schema | null): unknown {
    if (value === null || value === undefined) return null;
    const kind = kindOf(value, schema);
    const { replacement } = this.#settings;
    return replacement === null
      ? maskWithNull(value, kind)
      : maskWithReplacement(value, kind, replacement);
  }

  #applySchemaless(record: R, value: unknown): R {
    const original = requireMap(value, PURPOSE);
    const updated = mapCopy(original);
    for (const field of this.#settings.fields) {
      updated.set(field, this.#masked(mapGet(original, field), null));
    }
    return this.side.update(record, null, toMapValueLike(original, updated));
  }

  #applyWithSchema(record: R, value: unknown): R {
    const struct = requireStruct(value, PURPOSE);
    const updated = new Struct(struct.schema);
    const { fields, replaceNullWithDefault } = this.#settings;
    for (const field of struct.schema.fields) {
      const original = fieldValue(struct, field.name, replaceNullWithDefault);
      updated.put(
        field.name,
        fields.has(field.name) ? this.#masked(original, field.schema) : original,
      );
    }
    return this.side.update(record, this.side.schema(record), updated);
  }
}

/** `org.apache.kafka.connect.transforms.MaskField$Key`. */
export class MaskFieldKey<R extends ConnectRecord> extends MaskField<R> {
  constructor() {
    super(KEY_SIDE);
  }
}

/** `org.apache.kafka.connect.transforms.MaskField$Value`. */
export class MaskFieldValue<R extends ConnectRecord> extends MaskField<R> {
  constructor() {
    super(VALUE_SIDE);
  }
}
