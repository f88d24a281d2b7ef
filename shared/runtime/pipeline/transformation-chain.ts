/**
 * The transformation chain (Connect's `TransformationChain` and `TransformationStage`): the
 * connector's `transforms`, applied in order to each record, each gated by its predicate.
 *
 * - A stage with a predicate runs only when `predicate.test(record) !== negate`.
 * - A stage returning `null` drops the record: the chain stops and returns `null`.
 * - The chain never changes the record it is given; stages return new records.
 * - A stage (or its predicate) that throws makes the chain throw a {@link TransformationError}
 *   naming the stage's alias and class, with the original error as `cause`. Its `retriable`
 *   and `code` are the cause's, so the error handler (stage `transform`) can retry retriable
 *   failures and tolerate or report the rest.
 *
 * {@link buildTransformationChain} builds a chain from a connector config through a
 * {@link PluginRegistry}; this module knows no concrete plugin.
 */
import {
  type ConfigProps,
  invalidValue,
  missingRequired,
  parseType,
} from '../../connect/config-def.js';
import { uniqueAliases } from '../../connect/config-validators.js';
import { ConfigError, ConnectError, type ConnectErrorCode } from '../../connect/errors.js';
import type { PluginRegistry } from '../../connect/plugin.js';
import type { Predicate } from '../../connect/predicate.js';
import type { ConnectRecord } from '../../connect/records.js';
import type { Transformation } from '../../connect/transformation.js';

/** One step of a {@link TransformationChain}. */
export interface TransformationStage<R extends ConnectRecord> {
  /** The alias from `transforms`, e.g. `route`. */
  readonly alias: string;
  readonly transformation: Transformation<R>;
  /** The class name reported on failure. @default the transformation's constructor name */
  readonly className?: string;
  /** Gates the stage; absent means the stage always runs. */
  readonly predicate?: Predicate<R>;
  /** Run the stage when the predicate is false instead. @default false */
  readonly negate?: boolean;
}

/**
 * A transformation stage failed (Connect reports such failures with stage `TRANSFORMATION` and
 * the class name). `cause` is what the transformation or its predicate threw.
 */
export class TransformationError extends ConnectError {
  override readonly code: ConnectErrorCode;
  /** The alias of the failed stage. */
  readonly alias: string;
  /** The transformation's class name, e.g. `org.apache.kafka.connect.transforms.Cast$Value`. */
  readonly className: string;
  /** Always `'transform'`: the error-handling stage this failure belongs to. */
  readonly stage = 'transform' as const;

  constructor(alias: string, className: string, cause: unknown) {
    const message = cause instanceof Error ? cause.message : String(cause);
    super(`Transformation '${alias}' (${className}) failed: ${message}`, {
      cause,
      retriable: cause instanceof ConnectError && cause.retriable,
    });
    this.code = cause instanceof ConnectError ? cause.code : 'CONNECT';
    this.alias = alias;
    this.className = className;
  }
}

/**
 * The class reported when a transformation chain fails: the failing transformation's class
 * (`TransformationError.className`), or `TransformationChain` when the chain itself failed.
 */
export function transformationClassOf(error: unknown): string {
  return error instanceof TransformationError ? error.className : 'TransformationChain';
}

/**
 * Applies transformation stages in order; see the module comment.
 *
 * @example
 * const chain = new TransformationChain([{ alias: 'drop', transformation: filter,
 *   predicate: isTombstone, negate: false }]);
 * const out = chain.apply(record); // null when dropped
 */
export class TransformationChain<R extends ConnectRecord> {
  readonly stages: readonly TransformationStage<R>[];

  constructor(stages: readonly TransformationStage<R>[]) {
    this.stages = Object.freeze([...stages]);
  }

  /** True when there is no stage (every record passes unchanged). */
  get isEmpty(): boolean {
    return this.stages.length === 0;
  }

  /** The transformed record, or `null` when a stage dropped it. Throws TransformationError. */
  apply(record: R): R | null {
    let current = record;
    for (const stage of this.stages) {
      let next: R | null;
      try {
        const runs =
          stage.predicate === undefined ||
          stage.predicate.test(current) !== (stage.negate ?? false);
        next = runs ? stage.transformation.apply(current) : current;
      } catch (error) {
        throw new TransformationError(stage.alias, classNameOf(stage), error);
      }
      if (next === null) return null;
      current = next;
    }
    return current;
  }

  /**
   * Closes every transformation and predicate once, in order, even when some throw (as
   * Connect closes them quietly); returns the errors thrown, if any.
   */
  close(): unknown[] {
    const errors: unknown[] = [];
    const closed = new Set<unknown>();
    const closeOnce = (plugin: { close(): void } | undefined) => {
      if (plugin === undefined || closed.has(plugin)) return;
      closed.add(plugin);
      try {
        plugin.close();
      } catch (error) {
        errors.push(error);
      }
    };
    for (const stage of this.stages) {
      closeOnce(stage.transformation);
      closeOnce(stage.predicate);
    }
    return errors;
  }
}

function classNameOf(stage: TransformationStage<ConnectRecord>): string {
  return stage.className ?? stage.transformation.constructor.name;
}

/** The string-valued keys under `prefix`, with the prefix removed. */
function withPrefix(props: ConfigProps, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(props)) {
    if (key.startsWith(prefix) && typeof value === 'string') out[key.slice(prefix.length)] = value;
  }
  return out;
}

function aliases(props: ConfigProps, name: string): string[] {
  const parsed = parseType(name, props[name] ?? '', 'LIST');
  const list = Array.isArray(parsed) ? parsed.map(String).filter((a) => a !== '') : [];
  uniqueAliases(name).ensureValid(name, list);
  return list;
}

function className(props: ConfigProps, key: string): string {
  const value = parseType(key, props[key], 'CLASS');
  if (typeof value !== 'string') throw missingRequired(key);
  return value;
}

/** Resolves `key`'s class through `registry`; ConfigError naming `key` when unknown. */
function resolve<T extends 'transformation' | 'predicate'>(
  registry: PluginRegistry,
  props: ConfigProps,
  key: string,
  type: T,
) {
  const name = className(props, key);
  if (!registry.has(name, type)) {
    throw invalidValue(key, name, `Class ${name} could not be found.`);
  }
  return registry.resolve(name, type);
}

/** Runs `configure`, re-keying a ConfigError to the full (prefixed) config key. */
function configure(
  plugin: { configure(props: Readonly<Record<string, string>>): void },
  props: Readonly<Record<string, string>>,
  prefix: string,
): void {
  try {
    plugin.configure(props);
  } catch (error) {
    if (error instanceof ConfigError) {
      throw new ConfigError(
        error.message,
        error.key === undefined ? undefined : prefix + error.key,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
}

/**
 * Builds the chain a connector config describes (Connect's `ConnectorConfig.transformationStages`):
 * for each alias in `transforms`, a fresh `transforms.<alias>.type` instance configured with
 * every `transforms.<alias>.*` key unprefixed (including `type`, without `predicate` and
 * `negate`), gated by a fresh instance of the predicate `transforms.<alias>.predicate` names
 * (configured with `predicates.<name>.*` unprefixed).
 *
 * Throws ConfigError naming the key for: a missing or unknown class, `negate` without
 * `predicate`, a predicate alias not listed in `predicates`, duplicate aliases, and any
 * ConfigError a plugin's `configure` throws (re-keyed with its prefix). Plugins created before
 * a failure are closed.
 */
export function buildTransformationChain<R extends ConnectRecord>(
  props: ConfigProps,
  registry: PluginRegistry,
): TransformationChain<R> {
  const predicateAliases = aliases(props, 'predicates');
  const stages: TransformationStage<R>[] = [];
  const created: { close(): void }[] = [];
  const create = <P extends { close(): void }>(plugin: P): P => {
    created.push(plugin);
    return plugin;
  };
  try {
    for (const alias of aliases(props, 'transforms')) {
      const prefix = `transforms.${alias}.`;
      const descriptor = resolve(registry, props, `${prefix}type`, 'transformation');
      const { predicate: predicateAlias, negate: negateText, ...own } = withPrefix(props, prefix);
      const negate = parseType(`${prefix}negate`, negateText, 'BOOLEAN') === true;
      if (negateText !== undefined && predicateAlias === undefined) {
        throw new ConfigError(
          `Config '${prefix}negate' was provided but there is no config '${prefix}predicate' defining a predicate to be negated.`,
          `${prefix}negate`,
        );
      }
      if (predicateAlias !== undefined && !predicateAliases.includes(predicateAlias)) {
        throw invalidValue(
          `${prefix}predicate`,
          predicateAlias,
          `Predicate alias '${predicateAlias}' is not listed in 'predicates'`,
        );
      }
      const transformation = create(descriptor.create<R>());
      configure(transformation, own, prefix);
      const stage = { alias, transformation, className: descriptor.className, negate };
      if (predicateAlias === undefined) {
        stages.push(stage);
        continue;
      }
      const predicatePrefix = `predicates.${predicateAlias}.`;
      const predicateType = resolve(registry, props, `${predicatePrefix}type`, 'predicate');
      const predicate = create(predicateType.create<R>());
      configure(predicate, withPrefix(props, predicatePrefix), predicatePrefix);
      stages.push({ ...stage, predicate });
    }
  } catch (error) {
    for (const plugin of created) {
      try {
        plugin.close();
      } catch {
        // Closing quietly: the configuration error is what the caller needs to see.
      }
    }
    throw error;
  }
  return new TransformationChain(stages);
}
