/**
 * Dynamic connector keys, as Connect's `ConnectorConfig.enrich` and
 * `SourceConnectorConfig.enrich`: for each alias in `transforms` the keys
 * `transforms.<alias>.type`, `.predicate`, `.negate` and the transformation's own keys; for each
 * alias in `predicates` the keys `predicates.<alias>.type` and the predicate's own keys.
 * (Topic creation keys: topic-creation-config.ts.)
 *
 * Plugins are found through a {@link PluginConfigLookup} passed in by the caller (the plugin
 * registry), so this module stays free of any registry.
 */
import {
  ConfigDef,
  type ConfigProps,
  formatValue,
  invalidValue,
  parseType,
  type Recommender,
} from '../connect/config-def.js';
import { LambdaValidator } from '../connect/config-validators.js';
import { ConfigError } from '../connect/errors.js';
import { ConnectorConfigGroups, ConnectorConfigNames } from './connector-config-defs.js';

/** The plugin kinds a connector config refers to by class name or alias. */
export type PluginLookupKind = 'transformation' | 'predicate' | 'converter' | 'header_converter';

/**
 * Finds the plugin of `kind` named `className` (a class name or alias) and returns its
 * ConfigDef, or `undefined` when no such plugin exists ("Class X could not be found.").
 * A plugin without keys returns an empty ConfigDef. Must not throw; if it does, the plugin
 * counts as not found.
 */
export type PluginConfigLookup = (
  className: string,
  kind: PluginLookupKind,
) => ConfigDef | undefined;

/** Options of {@link enrichConnectorConfigDef}. */
export interface EnrichOptions {
  /**
   * Throw a {@link ConfigError} when an alias's plugin cannot be found (parse-time use).
   * When false (validation), such aliases only get their `.type` key, which then reports
   * the problem as a field error. @default false
   */
  readonly requireFullConfig?: boolean;
  /** Class names offered as `recommended_values` of each `.type` key. @default none */
  readonly pluginClasses?: (kind: PluginLookupKind) => readonly string[];
}

interface AliasKind {
  readonly aliasConfig: string;
  readonly group: string;
  readonly kind: 'transformation' | 'predicate';
  readonly simpleName: string;
  readonly implicit: () => ConfigDef;
  readonly validateProps: (props: ConfigProps, prefix: string) => void;
}

const PREDICATE = 'predicate';
const NEGATE = 'negate';

const TRANSFORMATION: AliasKind = {
  aliasConfig: ConnectorConfigNames.TRANSFORMS,
  group: ConnectorConfigGroups.TRANSFORMS,
  kind: 'transformation',
  simpleName: 'Transformation',
  implicit: () =>
    new ConfigDef()
      .define({
        name: PREDICATE,
        type: 'STRING',
        defaultValue: null,
        importance: 'MEDIUM',
        documentation:
          'The alias of a predicate used to determine whether to apply this transformation.',
      })
      .define({
        name: NEGATE,
        type: 'BOOLEAN',
        defaultValue: false,
        importance: 'MEDIUM',
        documentation: 'Whether the configured predicate should be negated.',
      }),
  validateProps: (props, prefix) => {
    if (Object.hasOwn(props, prefix + NEGATE) && !Object.hasOwn(props, prefix + PREDICATE)) {
      throw new ConfigError(
        `Config '${prefix}${NEGATE}' was provided but there is no config '${prefix}${PREDICATE}' defining a predicate to be negated.`,
        prefix + NEGATE,
      );
    }
  },
};

const PREDICATE_KIND: AliasKind = {
  aliasConfig: ConnectorConfigNames.PREDICATES,
  group: ConnectorConfigGroups.PREDICATES,
  kind: 'predicate',
  simpleName: 'Predicate',
  implicit: () => new ConfigDef(),
  validateProps: () => {},
};

/** Calls `lookup`, treating a throwing lookup as "not found". */
export function findPlugin(
  lookup: PluginConfigLookup,
  className: string,
  kind: PluginLookupKind,
): ConfigDef | undefined {
  try {
    return lookup(className, kind);
  } catch {
    return undefined;
  }
}

/** The unique aliases listed in `aliasConfig` (empty when absent or unparsable). */
export function aliasesOf(props: ConfigProps, aliasConfig: string): string[] {
  try {
    const parsed = parseType(aliasConfig, props[aliasConfig], 'LIST');
    return Array.isArray(parsed) ? [...new Set(parsed.map(String))] : [];
  } catch {
    return [];
  }
}

function enrichAliases(
  def: ConfigDef,
  props: ConfigProps,
  lookup: PluginConfigLookup,
  spec: AliasKind,
  options: EnrichOptions,
): void {
  for (const alias of aliasesOf(props, spec.aliasConfig)) {
    const prefix = `${spec.aliasConfig}.${alias}.`;
    const group = `${spec.group}: ${alias}`;
    const typeConfig = `${prefix}type`;
    const recommender: Recommender = {
      validValues: () => [...(options.pluginClasses?.(spec.kind) ?? [])],
      visible: () => true,
    };
    if (def.configKeys().has(typeConfig)) continue;
    def.define({
      name: typeConfig,
      type: 'CLASS',
      validator: LambdaValidator.with(
        (name, value) => {
          if (value !== null && value !== undefined) {
            if (findPlugin(lookup, String(value), spec.kind) === undefined) {
              throw invalidValue(name, value, `Class ${formatValue(value)} could not be found.`);
            }
          }
          spec.validateProps(props, prefix);
        },
        () => `valid configs for ${alias} ${spec.kind}`,
      ),
      importance: 'HIGH',
      documentation: `Class for the '${alias}' ${spec.kind}.`,
      group,
      orderInGroup: 0,
      width: 'LONG',
      displayName: `${spec.simpleName} type for ${alias}`,
      recommender,
    });
    const pluginDef = pluginDefFor(props, typeConfig, lookup, spec, options);
    if (pluginDef === undefined) continue;
    const child = spec.implicit();
    for (const key of pluginDef.configKeys().values()) {
      // The implicit keys mask any of the plugin's own keys with the same name.
      if (!child.configKeys().has(key.name)) child.defineKey(key);
    }
    def.embed(prefix, group, 1, child, 'skip');
  }
}

function pluginDefFor(
  props: ConfigProps,
  typeConfig: string,
  lookup: PluginConfigLookup,
  spec: AliasKind,
  options: EnrichOptions,
): ConfigDef | undefined {
  let className: unknown;
  try {
    className = parseType(typeConfig, props[typeConfig], 'CLASS');
  } catch (error) {
    if (options.requireFullConfig) throw error;
    return undefined;
  }
  if (className === null) {
    if (options.requireFullConfig) throw invalidValue(typeConfig, null, `Not a ${spec.simpleName}`);
    return undefined;
  }
  const found = findPlugin(lookup, String(className), spec.kind);
  if (found === undefined && options.requireFullConfig) {
    throw invalidValue(typeConfig, className, `Class ${String(className)} could not be found.`);
  }
  return found;
}

/**
 * A copy of `base` with the keys of every transformation and predicate alias in `props`
 * (Connect's `ConnectorConfig.enrich`). Aliases whose plugin cannot be found get only their
 * `.type` key, whose validator then reports `Class X could not be found.`; with
 * `requireFullConfig` the same situation throws instead.
 */
export function enrichConnectorConfigDef(
  base: ConfigDef,
  props: ConfigProps,
  lookup: PluginConfigLookup,
  options: EnrichOptions = {},
): ConfigDef {
  const def = new ConfigDef(base);
  enrichAliases(def, props, lookup, TRANSFORMATION, options);
  enrichAliases(def, props, lookup, PREDICATE_KIND, options);
  return def;
}
