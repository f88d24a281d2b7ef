/**
 * Config helpers shared by the transformations: Connect's `NonEmptyListValidator`, the
 * `replace.null.with.default` key of KIP-1040, and typed getters over parsed values.
 */
import { type ConfigDef, invalidValue, type Validator } from 'serverless-connect/connect';

/** A LIST must have at least one item (Connect's transforms `NonEmptyListValidator`). */
export const NON_EMPTY_LIST: Validator = Object.freeze({
  ensureValid(name: string, value: unknown): void {
    if (!Array.isArray(value) || value.length === 0) throw invalidValue(name, value, 'Empty list');
  },
  toString: () => 'non-empty list',
});

/** The KIP-1040 key, `true` by default. */
export const REPLACE_NULL_WITH_DEFAULT = 'replace.null.with.default';

/** Adds {@link REPLACE_NULL_WITH_DEFAULT} to `def`. */
export function withReplaceNullWithDefault(def: ConfigDef): ConfigDef {
  return def.define({
    name: REPLACE_NULL_WITH_DEFAULT,
    type: 'BOOLEAN',
    defaultValue: true,
    importance: 'MEDIUM',
    documentation:
      'Whether to replace fields that have a default value and that are null to the default value. When set to true, the default value is used, otherwise null is used.',
  });
}

/** Typed reads of `ConfigDef.parse` output. */
export const parsed = {
  string(values: Record<string, unknown>, name: string): string | null {
    const value = values[name];
    return typeof value === 'string' ? value : null;
  },
  list(values: Record<string, unknown>, name: string): string[] {
    const value = values[name];
    return Array.isArray(value) ? value.map(String) : [];
  },
  boolean(values: Record<string, unknown>, name: string): boolean {
    return values[name] === true;
  },
  int(values: Record<string, unknown>, name: string): number | null {
    const value = values[name];
    return typeof value === 'number' ? value : null;
  },
};
