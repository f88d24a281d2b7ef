/**
 * ConfigDef: typed, documented configuration keys, as Kafka's
 * `org.apache.kafka.common.config.ConfigDef`. A plugin declares its keys once; the same
 * definition parses configs for the runtime ({@link ConfigDef.parse}, strict, throws) and
 * answers `PUT /connector-plugins/{p}/config/validate` ({@link ConfigDef.validate}, never throws).
 *
 * Values arrive as strings (connector configs are `string -> string` maps) and are parsed by
 * type: `INT`/`SHORT` as Java ints/shorts, `LONG` as a 64-bit integer (a `number` when it is a
 * safe integer, a `bigint` beyond ±(2^53 − 1)), `DOUBLE` as a number, `BOOLEAN` as
 * case-insensitive `true`/`false`, `LIST` as comma-separated trimmed items, `CLASS` as a
 * trimmed class name or alias (existence is checked by the caller, which knows the plugins),
 * `PASSWORD` as a {@link Password} that prints `[hidden]`. Error messages are Kafka's.
 */
import {
  type ConfigProps,
  type ConfigType,
  type Importance,
  missingRequired,
  NO_DEFAULT,
  parseType,
  type Width,
} from './config-parse.js';
import { ConfigError } from './errors.js';

export * from './config-parse.js';

/**
 * Checks one value (Kafka's `ConfigDef.Validator`). `ensureValid` throws a {@link ConfigError}
 * when the value is invalid; it receives the parsed value, which may be `null`. `toString`
 * describes the valid values for documentation (e.g. `[1,...]`).
 */
export interface Validator {
  ensureValid(name: string, value: unknown): void;
  toString(): string;
}

/**
 * Suggests values and visibility for a key from the other parsed values (Kafka's
 * `ConfigDef.Recommender`). Called by {@link ConfigDef.validate} only, after parsing.
 */
export interface Recommender {
  validValues(name: string, parsedConfig: Readonly<Record<string, unknown>>): unknown[];
  visible(name: string, parsedConfig: Readonly<Record<string, unknown>>): boolean;
}

/** The result of validating one key (Kafka's `ConfigValue`). */
export interface ConfigValue {
  name: string;
  value: unknown;
  recommendedValues: unknown[];
  errors: string[];
  visible: boolean;
}

/** What {@link ConfigDef.define} takes. Omit `defaultValue` (or pass {@link NO_DEFAULT}) for a required key. */
export interface ConfigKeySpec {
  readonly name: string;
  readonly type: ConfigType;
  /** Typed (`1`, `true`, `['a']`) or a string to parse; `null` is a valid default. */
  readonly defaultValue?: unknown;
  readonly importance: Importance;
  readonly documentation: string;
  readonly group?: string;
  /** @default -1 */
  readonly orderInGroup?: number;
  /** @default 'NONE' */
  readonly width?: Width;
  /** @default the name */
  readonly displayName?: string;
  readonly dependents?: readonly string[];
  readonly validator?: Validator;
  readonly recommender?: Recommender;
}

/** A defined key. `defaultValue` is parsed, or {@link NO_DEFAULT} when `hasDefault` is false. */
export interface ConfigKey {
  readonly name: string;
  readonly type: ConfigType;
  readonly defaultValue: unknown;
  readonly hasDefault: boolean;
  readonly validator: Validator | undefined;
  readonly importance: Importance;
  readonly documentation: string;
  readonly group: string | null;
  readonly orderInGroup: number;
  readonly width: Width;
  readonly displayName: string;
  readonly dependents: readonly string[];
  readonly recommender: Recommender | undefined;
}

const IMPORTANCE_ORDER: Readonly<Record<Importance, number>> = { HIGH: 0, MEDIUM: 1, LOW: 2 };

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A set of typed configuration keys. Keys keep their definition order, which is the order of
 * {@link ConfigDef.configKeys}, {@link ConfigDef.validate} and the REST output.
 *
 * @example
 * const def = new ConfigDef()
 *   .define({ name: 'batch.size', type: 'INT', defaultValue: 100, validator: Range.atLeast(1),
 *             importance: 'MEDIUM', documentation: 'Records per request.' })
 *   .define({ name: 'api.key', type: 'PASSWORD', importance: 'HIGH', documentation: 'API key.' });
 * const parsed = def.parse({ 'api.key': 's3cret' }); // { 'batch.size': 100, 'api.key': Password }
 */
export class ConfigDef {
  readonly #keys = new Map<string, ConfigKey>();
  readonly #groups: string[] = [];

  /** A copy of `base` when given (Kafka's copy constructor). */
  constructor(base?: ConfigDef) {
    if (base !== undefined) this.withAll(base);
  }

  /** Defines a key. Throws {@link ConfigError} if the name is taken or the default is invalid. */
  define(spec: ConfigKeySpec): this {
    const hasDefault = spec.defaultValue !== undefined && spec.defaultValue !== NO_DEFAULT;
    const defaultValue = hasDefault
      ? parseType(spec.name, spec.defaultValue, spec.type)
      : NO_DEFAULT;
    if (hasDefault && spec.validator !== undefined)
      spec.validator.ensureValid(spec.name, defaultValue);
    return this.defineKey({
      name: spec.name,
      type: spec.type,
      defaultValue,
      hasDefault,
      validator: spec.validator,
      importance: spec.importance,
      documentation: spec.documentation,
      group: spec.group ?? null,
      orderInGroup: spec.orderInGroup ?? -1,
      width: spec.width ?? 'NONE',
      displayName: spec.displayName ?? spec.name,
      dependents: [...(spec.dependents ?? [])],
      recommender: spec.recommender,
    });
  }

  /** Adds an already-built key (e.g. one taken from another ConfigDef). */
  defineKey(key: ConfigKey, onDuplicate: 'throw' | 'replace' | 'skip' = 'throw'): this {
    if (this.#keys.has(key.name)) {
      if (onDuplicate === 'skip') return this;
      if (onDuplicate === 'throw') {
        throw new ConfigError(`Configuration ${key.name} is defined twice.`, key.name);
      }
    }
    if (key.group !== null && !this.#groups.includes(key.group)) this.#groups.push(key.group);
    this.#keys.set(key.name, key);
    return this;
  }

  /**
   * Adds every key of `other`, in its order. A key already defined here throws (`'throw'`),
   * takes `other`'s definition in place (`'replace'`, like Connect's `putAll`), or is kept
   * (`'skip'`, like `putIfAbsent`).
   */
  withAll(other: ConfigDef, onDuplicate: 'throw' | 'replace' | 'skip' = 'throw'): this {
    for (const group of other.groups()) if (!this.#groups.includes(group)) this.#groups.push(group);
    for (const key of other.configKeys().values()) this.defineKey(key, onDuplicate);
    return this;
  }

  /**
   * Adds `child`'s keys under `keyPrefix` (Kafka's `embed`): groups become
   * `groupPrefix[: childGroup]`, orders count up from `startingOrd` in child's sorted order,
   * validators and recommenders see unprefixed names. `onDuplicate` as in {@link ConfigDef.defineKey}.
   */
  embed(
    keyPrefix: string,
    groupPrefix: string,
    startingOrd: number,
    child: ConfigDef,
    onDuplicate: 'throw' | 'replace' | 'skip' = 'throw',
  ): this {
    let order = startingOrd;
    for (const key of child.sortedConfigs()) {
      const validator = key.validator;
      const recommender = key.recommender;
      this.defineKey(
        {
          ...key,
          name: keyPrefix + key.name,
          group: groupPrefix + (key.group === null ? '' : `: ${key.group}`),
          orderInGroup: order++,
          dependents: key.dependents.map((d) => keyPrefix + d),
          validator: validator && {
            ensureValid: (name, value) =>
              validator.ensureValid(name.slice(keyPrefix.length), value),
            toString: () => validator.toString(),
          },
          recommender: recommender && embeddedRecommender(keyPrefix, recommender),
        },
        onDuplicate,
      );
    }
    return this;
  }

  /** Every key, in definition order. */
  configKeys(): ReadonlyMap<string, ConfigKey> {
    return this.#keys;
  }

  configKey(name: string): ConfigKey | undefined {
    return this.#keys.get(name);
  }

  names(): string[] {
    return [...this.#keys.keys()];
  }

  /** Group names in order of first use. */
  groups(): string[] {
    return [...this.#groups];
  }

  /** Keys sorted as Kafka documents them: group, order in group, required first, importance, name. */
  sortedConfigs(): ConfigKey[] {
    const groupOrder = (g: string | null) => (g === null ? -1 : this.#groups.indexOf(g));
    return [...this.#keys.values()].sort(
      (a, b) =>
        groupOrder(a.group) - groupOrder(b.group) ||
        a.orderInGroup - b.orderInGroup ||
        Number(a.hasDefault) - Number(b.hasDefault) ||
        IMPORTANCE_ORDER[a.importance] - IMPORTANCE_ORDER[b.importance] ||
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
  }

  /**
   * Parses and validates `props` strictly (Kafka's `parse`): every defined key gets its parsed
   * value or default. Undeclared keys are ignored. Throws the first {@link ConfigError}.
   */
  parse(props: ConfigProps): Record<string, unknown> {
    const undefinedKeys = this.#undefinedDependents();
    if (undefinedKeys.length > 0) {
      throw new ConfigError(
        `Some configurations in are referred in the dependents, but not defined: ${undefinedKeys.join(',')}`,
      );
    }
    const values: Record<string, unknown> = {};
    for (const key of this.#keys.values()) {
      let value: unknown;
      if (isSet(props, key.name)) value = parseType(key.name, props[key.name], key.type);
      else if (!key.hasDefault) throw missingRequired(key.name);
      else value = key.defaultValue;
      key.validator?.ensureValid(key.name, value);
      values[key.name] = value;
    }
    return values;
  }

  /** {@link ConfigDef.validateAll} as a list, in definition order. Never throws. */
  validate(props: ConfigProps): ConfigValue[] {
    return [...this.validateAll(props).values()];
  }

  /**
   * Validates `props` for the validate endpoint (Kafka's `validateAll`). Never throws: parse
   * errors, missing required keys, validator and recommender failures become messages on the
   * key's {@link ConfigValue}. Parents are parsed before their `dependents`; recommenders see
   * every parsed value.
   */
  validateAll(props: ConfigProps): Map<string, ConfigValue> {
    const values = new Map<string, ConfigValue>();
    for (const name of this.#keys.keys()) {
      values.set(name, { name, value: null, recommendedValues: [], errors: [], visible: true });
    }
    for (const name of this.#undefinedDependents()) {
      const error = `${name} is referred in the dependents, but not defined.`;
      values.set(name, {
        name,
        value: null,
        recommendedValues: [],
        errors: [error],
        visible: false,
      });
    }
    const parsed: Record<string, unknown> = {};
    const order = this.#parentsFirst();
    for (const name of order) this.#parseForValidate(name, props, parsed, values);
    for (const name of order) this.#recommend(name, parsed, values);
    return values;
  }

  #parseForValidate(
    name: string,
    props: ConfigProps,
    parsed: Record<string, unknown>,
    values: Map<string, ConfigValue>,
  ): void {
    const key = this.#keys.get(name);
    const config = values.get(name);
    if (key === undefined || config === undefined) return;
    let value: unknown = null;
    if (isSet(props, name)) {
      try {
        value = parseType(name, props[name], key.type);
      } catch (error) {
        config.errors.push(errorMessage(error));
      }
    } else if (!key.hasDefault) {
      config.errors.push(missingRequired(name).message);
    } else {
      value = key.defaultValue;
    }
    if (key.validator !== undefined) {
      try {
        key.validator.ensureValid(name, value);
      } catch (error) {
        config.errors.push(errorMessage(error));
      }
    }
    config.value = value;
    parsed[name] = value;
  }

  #recommend(
    name: string,
    parsed: Record<string, unknown>,
    values: Map<string, ConfigValue>,
  ): void {
    const key = this.#keys.get(name);
    const config = values.get(name);
    if (key?.recommender === undefined || config === undefined) return;
    try {
      config.recommendedValues = [...key.recommender.validValues(name, parsed)];
      config.visible = key.recommender.visible(name, parsed);
    } catch (error) {
      config.errors.push(errorMessage(error));
    }
  }

  /** Keys with no parent first, each followed by its dependents (depth first, once each). */
  #parentsFirst(): string[] {
    const withParent = new Set<string>();
    for (const key of this.#keys.values()) for (const d of key.dependents) withParent.add(d);
    const order: string[] = [];
    const seen = new Set<string>();
    const visit = (name: string) => {
      const key = this.#keys.get(name);
      if (key === undefined || seen.has(name)) return;
      seen.add(name);
      order.push(name);
      for (const dependent of key.dependents) visit(dependent);
    };
    for (const name of this.#keys.keys()) if (!withParent.has(name)) visit(name);
    for (const name of this.#keys.keys()) visit(name); // keys only reachable through a cycle
    return order;
  }

  #undefinedDependents(): string[] {
    const missing = new Set<string>();
    for (const key of this.#keys.values()) {
      for (const d of key.dependents) if (!this.#keys.has(d)) missing.add(d);
    }
    return [...missing];
  }
}

function isSet(props: ConfigProps, name: string): boolean {
  return Object.hasOwn(props, name) && props[name] !== undefined;
}

function embeddedRecommender(prefix: string, base: Recommender): Recommender {
  const unprefixed = (parsed: Readonly<Record<string, unknown>>) =>
    Object.fromEntries(
      Object.entries(parsed)
        .filter(([k]) => k.startsWith(prefix))
        .map(([k, v]) => [k.slice(prefix.length), v]),
    );
  return {
    validValues: (name, parsed) => base.validValues(name.slice(prefix.length), unprefixed(parsed)),
    visible: (name, parsed) => base.visible(name.slice(prefix.length), unprefixed(parsed)),
  };
}
