/**
 * Plugin descriptors and the registry that resolves plugin names (Kafka Connect's plugin
 * scanning and aliases, without dynamic loading: every plugin is registered explicitly).
 */
import type { Converter, HeaderConverter } from './converter.js';
import { AlreadyExistsError, NotFoundError } from './errors.js';
import type { Predicate } from './predicate.js';
import type { ConnectRecord } from './records.js';
import type { SinkConnector } from './sink.js';
import type { SourceConnector } from './source.js';
import type { Transformation } from './transformation.js';

/** The plugin kinds, named like the `type` of Connect's `GET /connector-plugins`. */
export type PluginType =
  | 'source'
  | 'sink'
  | 'converter'
  | 'header_converter'
  | 'transformation'
  | 'predicate';

export const PLUGIN_TYPES: readonly PluginType[] = Object.freeze([
  'source',
  'sink',
  'converter',
  'header_converter',
  'transformation',
  'predicate',
] as const);

/**
 * The factory of each plugin type. Transformations and predicates are generic in the record
 * kind: write `create: <R extends ConnectRecord>() => new MyTransform<R>()`.
 */
export interface PluginFactories {
  source: () => SourceConnector;
  sink: () => SinkConnector;
  converter: () => Converter;
  header_converter: () => HeaderConverter;
  transformation: <R extends ConnectRecord>() => Transformation<R>;
  predicate: <R extends ConnectRecord>() => Predicate<R>;
}

/** Describes one plugin: its names, kind, version and factory. */
export interface PluginDescriptor<T extends PluginType = PluginType> {
  /** The Connect class name, e.g. `org.apache.kafka.connect.transforms.InsertField$Value`. */
  readonly className: string;
  /**
   * Extra names, e.g. `InsertField$Value`. The simple class name (after the last `.`) and the
   * simple name without its kind suffix (`Connector`, `Converter`, `Transformation`,
   * `Predicate`) are added automatically when no other plugin claims them.
   */
  readonly aliases: readonly string[];
  readonly type: T;
  readonly version: string;
  /** A new, unconfigured instance on every call. */
  readonly create: PluginFactories[T];
}

/** A descriptor of any one plugin type (a union, so `type` narrows `create`). */
export type AnyPluginDescriptor = { [T in PluginType]: PluginDescriptor<T> }[PluginType];

const TYPE_SUFFIXES: Readonly<Record<PluginType, string>> = {
  source: 'Connector',
  sink: 'Connector',
  converter: 'Converter',
  header_converter: 'Converter',
  transformation: 'Transformation',
  predicate: 'Predicate',
};

const TYPE_NAMES: Readonly<Record<PluginType, string>> = {
  source: 'SourceConnector',
  sink: 'SinkConnector',
  converter: 'Converter',
  header_converter: 'HeaderConverter',
  transformation: 'Transformation',
  predicate: 'Predicate',
};

function derivedAliases(className: string, type: PluginType): string[] {
  const simple = className.slice(className.lastIndexOf('.') + 1);
  const suffix = TYPE_SUFFIXES[type];
  const pruned =
    simple.endsWith(suffix) && simple.length > suffix.length
      ? simple.slice(0, -suffix.length)
      : simple;
  return [...new Set([simple, pruned])].filter((a) => a !== className);
}

/**
 * Resolves plugin names the way Connect does: the full class name, an explicit alias, the
 * simple class name, or the simple name without its kind suffix. A class may be registered
 * once per type (a JSON converter is both a `converter` and a `header_converter`). A name
 * matching several plugins of the requested type resolves to none (use the full name).
 *
 * @example
 * registry.register({ className: 'org.apache.kafka.connect.transforms.InsertField$Value',
 *   aliases: [], type: 'transformation', version: '1.0.0', create: () => new InsertFieldValue() });
 * registry.resolve('InsertField$Value', 'transformation').create();
 */
export class PluginRegistry {
  readonly #plugins: AnyPluginDescriptor[] = [];

  /**
   * Adds a plugin. AlreadyExistsError when a plugin of the same type has the same class name,
   * or already uses one of its explicit aliases as class name or alias.
   */
  register(descriptor: AnyPluginDescriptor): this {
    const sameType = this.#plugins.filter((d) => d.type === descriptor.type);
    if (sameType.some((d) => d.className === descriptor.className)) {
      throw new AlreadyExistsError(
        `Plugin ${descriptor.className} is already registered as a ${descriptor.type}`,
      );
    }
    for (const alias of [descriptor.className, ...descriptor.aliases]) {
      const owner = sameType.find((d) => d.className === alias || d.aliases.includes(alias));
      if (owner !== undefined) {
        throw new AlreadyExistsError(`Plugin alias ${alias} is already used by ${owner.className}`);
      }
    }
    this.#plugins.push(descriptor);
    return this;
  }

  /**
   * The plugin named `name`, of `expectedType` when given. Throws NotFoundError, listing the
   * known names of that type, when no (unambiguous) plugin matches.
   */
  resolve<T extends PluginType>(name: string, expectedType: T): PluginDescriptor<T>;
  resolve(name: string): AnyPluginDescriptor;
  resolve(name: string, expectedType?: PluginType): AnyPluginDescriptor {
    const candidates = this.#candidates(name, expectedType);
    const [found] = candidates;
    if (found !== undefined && candidates.length === 1) return found;
    const kind = expectedType === undefined ? 'plugin' : TYPE_NAMES[expectedType];
    if (candidates.length > 1) {
      throw new NotFoundError(
        `More than one ${kind} matches alias ${name}. Please use full package and class name instead. Classes found: ${candidates.map((d) => `${d.className} (${d.type})`).join(', ')}`,
      );
    }
    const known = this.list(expectedType).map((d) => d.className);
    throw new NotFoundError(
      `Failed to find any class that implements ${kind} and which name matches ${name}, available plugins are: ${known.join(', ')}`,
    );
  }

  /** The plugins `name` designates, by the strongest kind of match that finds any. */
  #candidates(name: string, type?: PluginType): AnyPluginDescriptor[] {
    const ofType = this.#plugins.filter((d) => type === undefined || d.type === type);
    const matchers: ((d: AnyPluginDescriptor) => boolean)[] = [
      (d) => d.className === name,
      (d) => d.aliases.includes(name),
      (d) => derivedAliases(d.className, d.type).includes(name),
    ];
    for (const matches of matchers) {
      const found = ofType.filter(matches);
      if (found.length > 0) return found;
    }
    return [];
  }

  /** True when `name` resolves (of `expectedType` when given). */
  has(name: string, expectedType?: PluginType): boolean {
    const candidates = this.#candidates(name, expectedType);
    return candidates.length === 1;
  }

  /** Every registered plugin (of `type` when given), sorted by class name. */
  list(type?: PluginType): AnyPluginDescriptor[] {
    return this.#plugins
      .filter((d) => type === undefined || d.type === type)
      .sort((a, b) => a.className.localeCompare(b.className));
  }
}
