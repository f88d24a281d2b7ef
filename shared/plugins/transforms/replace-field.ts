/**
 * ReplaceField (Connect's `org.apache.kafka.connect.transforms.ReplaceField$Key` / `$Value`):
 * keeps only the `include`d fields (all when empty), drops the `exclude`d ones (exclusion
 * wins), and renames fields through `renames` (`old:new` pairs). The names Connect removed in
 * 4.0, `whitelist` and `blacklist`, are still read for `include` and `exclude` when those are
 * not set. Tombstones pass through.
 */
import {
  ConfigDef,
  type ConnectRecord,
  copySchemaBasics,
  invalidValue,
  LambdaValidator,
  mapEntries,
  type Schema,
  SchemaBuilder,
  Struct,
  type Transformation,
} from 'serverless-connect/connect';
import { parsed, REPLACE_NULL_WITH_DEFAULT, withReplaceNullWithDefault } from './util/config.js';
import { toMapValueLike } from './util/map-values.js';
import { KEY_SIDE, type OperatingSide, VALUE_SIDE } from './util/operating-side.js';
import { fieldValue, requireMap, requireStruct } from './util/requirements.js';
import { SchemaUpdateCache } from './util/schema-update-cache.js';

const EXCLUDE = 'exclude';
const INCLUDE = 'include';
const RENAMES = 'renames';
/** Deprecated names (removed in Connect 4.0) and the keys they stand for. */
const DEPRECATED: readonly (readonly [string, string])[] = [
  ['blacklist', EXCLUDE],
  ['whitelist', INCLUDE],
];
const PURPOSE = 'field replacement';

/** `old:new` pairs to a map; ConfigError for a pair without exactly one colon. */
export function parseRenameMappings(mappings: readonly string[]): Map<string, string> {
  const renames = new Map<string, string>();
  for (const mapping of mappings) {
    const parts = mapping.split(':');
    const [from, to] = parts;
    if (parts.length !== 2 || from === undefined || to === undefined || from === '' || to === '') {
      throw invalidValue(RENAMES, mappings, `Invalid rename mapping: ${mapping}`);
    }
    renames.set(from, to);
  }
  return renames;
}

function configDef(): ConfigDef {
  return withReplaceNullWithDefault(
    new ConfigDef()
      .define({
        name: EXCLUDE,
        type: 'LIST',
        defaultValue: '',
        importance: 'MEDIUM',
        documentation: 'Fields to exclude. This takes precedence over the fields to include.',
      })
      .define({
        name: INCLUDE,
        type: 'LIST',
        defaultValue: '',
        importance: 'MEDIUM',
        documentation: 'Fields to include. If specified, only these fields will be used.',
      })
      .define({
        name: RENAMES,
        type: 'LIST',
        defaultValue: '',
        validator: LambdaValidator.with(
          (_name, value) => {
            parseRenameMappings(Array.isArray(value) ? value.map(String) : []);
          },
          () => 'list of colon-delimited pairs, e.g. <code>foo:bar,abc:xyz</code>',
        ),
        importance: 'MEDIUM',
        documentation: 'Field rename mappings.',
      }),
  );
}

/** Copies the deprecated keys onto their replacements when those are not set. */
function translateDeprecated(
  props: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> {
  const out: Record<string, string> = { ...props };
  for (const [deprecated, replacement] of DEPRECATED) {
    const value = props[deprecated];
    if (value !== undefined && props[replacement] === undefined) out[replacement] = value;
  }
  return out;
}

interface Settings {
  readonly exclude: ReadonlySet<string>;
  readonly include: ReadonlySet<string>;
  readonly renames: ReadonlyMap<string, string>;
  readonly reverseRenames: ReadonlyMap<string, string>;
  readonly replaceNullWithDefault: boolean;
}

/** Filters and renames fields; see the module comment. */
export abstract class ReplaceField<R extends ConnectRecord> implements Transformation<R> {
  #settings: Settings = {
    exclude: new Set(),
    include: new Set(),
    renames: new Map(),
    reverseRenames: new Map(),
    replaceNullWithDefault: true,
  };
  readonly #cache = new SchemaUpdateCache();

  protected constructor(private readonly side: OperatingSide) {}

  config(): ConfigDef {
    return configDef();
  }

  configure(props: Readonly<Record<string, string>>): void {
    const values = configDef().parse(translateDeprecated(props));
    const renames = parseRenameMappings(parsed.list(values, RENAMES));
    this.#settings = {
      exclude: new Set(parsed.list(values, EXCLUDE)),
      include: new Set(parsed.list(values, INCLUDE)),
      renames,
      reverseRenames: new Map([...renames].map(([from, to]) => [to, from])),
      replaceNullWithDefault: parsed.boolean(values, REPLACE_NULL_WITH_DEFAULT),
    };
    this.#cache.clear();
  }

  apply(record: R): R | null {
    const value = this.side.value(record);
    if (value === null) return record;
    return this.side.schema(record) === null
      ? this.#applySchemaless(record, value)
      : this.#applyWithSchema(record, value);
  }

  close(): void {
    this.#cache.clear();
  }

  #filter(name: string): boolean {
    const { exclude, include } = this.#settings;
    return !exclude.has(name) && (include.size === 0 || include.has(name));
  }

  #renamed(name: string): string {
    return this.#settings.renames.get(name) ?? name;
  }

  #applySchemaless(record: R, value: unknown): R {
    const original = requireMap(value, PURPOSE);
    const updated = new Map<unknown, unknown>();
    for (const [name, fieldValue] of mapEntries(original)) {
      const key = String(name);
      if (this.#filter(key)) updated.set(this.#renamed(key), fieldValue);
    }
    return this.side.update(record, null, toMapValueLike(original, updated));
  }

  #applyWithSchema(record: R, value: unknown): R {
    const struct = requireStruct(value, PURPOSE);
    const schema = this.#cache.getOrBuild(struct.schema, (s) => this.#updatedSchema(s));
    const updated = new Struct(schema);
    const { reverseRenames, replaceNullWithDefault } = this.#settings;
    for (const field of schema.fields) {
      const source = reverseRenames.get(field.name) ?? field.name;
      updated.put(field.name, fieldValue(struct, source, replaceNullWithDefault));
    }
    return this.side.update(record, schema, updated);
  }

  #updatedSchema(schema: Schema): Schema {
    const builder = copySchemaBasics(schema, SchemaBuilder.struct());
    for (const field of schema.fields) {
      if (this.#filter(field.name)) builder.field(this.#renamed(field.name), field.schema);
    }
    return builder.build();
  }
}

/** `org.apache.kafka.connect.transforms.ReplaceField$Key`. */
export class ReplaceFieldKey<R extends ConnectRecord> extends ReplaceField<R> {
  constructor() {
    super(KEY_SIDE);
  }
}

/** `org.apache.kafka.connect.transforms.ReplaceField$Value`. */
export class ReplaceFieldValue<R extends ConnectRecord> extends ReplaceField<R> {
  constructor() {
    super(VALUE_SIDE);
  }
}
