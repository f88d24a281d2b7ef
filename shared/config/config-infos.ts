/**
 * The JSON shapes of Kafka Connect's config REST endpoints, built from a {@link ConfigDef} and
 * its {@link ConfigValue}s exactly as `AbstractHerder.generateResult` / `convertConfigKey` /
 * `convertConfigValue` build them:
 * - `PUT /connector-plugins/{p}/config/validate` → {@link ConfigInfos}
 * - `GET /connector-plugins/{p}/config` → {@link ConfigKeyInfo}[]
 *
 * Defaults and values are strings (lists comma-joined, passwords `[hidden]`) or `null`.
 */
import {
  type ConfigDef,
  type ConfigKey,
  type ConfigType,
  type ConfigValue,
  convertToString,
  type Importance,
  type Width,
} from '../connect/config-def.js';

/** One key's definition (`definition` in ConfigInfos; an element of GET …/config). */
export interface ConfigKeyInfo {
  name: string;
  type: ConfigType;
  required: boolean;
  default_value: string | null;
  importance: Importance;
  documentation: string;
  group: string | null;
  width: Width;
  display_name: string;
  dependents: string[];
  /** The key's order in its group; -1 when it has none. */
  order: number;
}

/** One key's validation result (`value` in ConfigInfos). */
export interface ConfigValueInfo {
  name: string;
  value: string | null;
  recommended_values: (string | null)[];
  errors: string[];
  visible: boolean;
}

/** A definition and its value; `definition` is null for errors on undeclared keys. */
export interface ConfigInfo {
  definition: ConfigKeyInfo | null;
  value: ConfigValueInfo | null;
}

/** The body of `PUT /connector-plugins/{p}/config/validate`. */
export interface ConfigInfos {
  /** The `connector.class` as sent. */
  name: string;
  /** The number of error messages over all configs. */
  error_count: number;
  groups: string[];
  configs: ConfigInfo[];
}

/** Connect's `convertConfigKey`; `prefix` names keys of embedded client or converter configs. */
export function toConfigKeyInfo(key: ConfigKey, prefix = ''): ConfigKeyInfo {
  return {
    name: prefix + key.name,
    type: key.type,
    required: !key.hasDefault,
    default_value: key.hasDefault ? convertToString(key.defaultValue, key.type) : null,
    importance: key.importance,
    documentation: key.documentation,
    group: key.group,
    width: key.width,
    display_name: key.displayName,
    dependents: [...key.dependents],
    order: key.orderInGroup,
  };
}

/** Connect's `convertConfigValue`; `type` is null for undeclared keys. */
export function toConfigValueInfo(value: ConfigValue, type: ConfigType | null): ConfigValueInfo {
  const itemType: ConfigType | null = type === 'LIST' ? 'STRING' : type;
  return {
    name: value.name,
    value: convertToString(value.value, type),
    recommended_values: value.recommendedValues.map((v) => convertToString(v, itemType)),
    errors: [...value.errors],
    visible: value.visible,
  };
}

/**
 * Builds the validate response (Connect's `generateResult`): first an entry with
 * `definition: null` for every value whose key `configDef` does not declare, then one entry
 * per declared key in definition order (`value: null` when no value was produced). When
 * several values share a name, the last one is used for a declared key.
 */
export function toConfigInfos(
  connectorClassName: string,
  configDef: ConfigDef,
  configValues: readonly ConfigValue[],
): ConfigInfos {
  const keys = configDef.configKeys();
  const byName = new Map<string, ConfigValue>();
  const configs: ConfigInfo[] = [];
  let errorCount = 0;
  for (const value of configValues) {
    byName.set(value.name, value);
    if (!keys.has(value.name)) {
      configs.push({ definition: null, value: toConfigValueInfo(value, null) });
      errorCount += value.errors.length;
    }
  }
  for (const key of keys.values()) {
    const value = byName.get(key.name);
    if (value !== undefined) errorCount += value.errors.length;
    configs.push({
      definition: toConfigKeyInfo(key),
      value: value === undefined ? null : toConfigValueInfo(value, key.type),
    });
  }
  return { name: connectorClassName, error_count: errorCount, groups: configDef.groups(), configs };
}

/** The definitions of `configDef`, in order (the body of `GET /connector-plugins/{p}/config`). */
export function configKeyInfos(configDef: ConfigDef): ConfigKeyInfo[] {
  return [...configDef.configKeys().values()].map((key) => toConfigKeyInfo(key));
}

/** Concatenates several results under one name (Connect's `mergeConfigInfos`). */
export function mergeConfigInfos(name: string, ...parts: readonly ConfigInfos[]): ConfigInfos {
  const groups: string[] = [];
  for (const part of parts) for (const g of part.groups) if (!groups.includes(g)) groups.push(g);
  return {
    name,
    error_count: parts.reduce((sum, part) => sum + part.error_count, 0),
    groups,
    configs: parts.flatMap((part) => part.configs),
  };
}
