/**
 * The configuration every connector gets, as Connect's `ConnectorConfig`,
 * `SinkConnectorConfig` and `SourceConnectorConfig`. This module is the entry point:
 * - definitions: {@link connectorConfigDef} and friends (see `connector-config-defs.ts`);
 * - validation: {@link validateConnectorConfig} / {@link validateConnectorConfigInfos} for
 *   `PUT /connector-plugins/{p}/config/validate` and create/update, never throwing;
 *   {@link connectorPluginConfigKeyInfos} for `GET /connector-plugins/{p}/config`;
 * - parsing: {@link parseConnectorConfig}, the typed view the runtime uses at task start
 *   (throws {@link ConfigError}; resolve `${provider:...}` placeholders first).
 */
import {
  type ConfigProps,
  type ConfigValue,
  invalidValue,
  missingRequired,
  parseType,
} from '../connect/config-def.js';
import { ConfigError } from '../connect/errors.js';
import {
  type ConnectorKind,
  ConnectorConfigNames as N,
  ConnectorConfigPrefixes as P,
} from './connector-config-defs.js';
import { aliasesOf } from './connector-config-enrich.js';
import { connectorConfigDef } from './connector-config-kinds.js';
import { validateSinkTopics } from './connector-config-validate.js';
import { parseTopicCreation, type TopicCreationGroupConfig } from './topic-creation-config.js';

export {
  ConnectorConfigGroups,
  ConnectorConfigNames,
  ConnectorConfigPrefixes,
  type ConnectorKind,
  commonConnectorConfigDef,
  DEFAULT_CONVERTERS,
} from './connector-config-defs.js';
export {
  type EnrichOptions,
  enrichConnectorConfigDef,
  type PluginConfigLookup,
  type PluginLookupKind,
} from './connector-config-enrich.js';
export {
  connectorConfigDef,
  sinkConnectorConfigDef,
  sourceConnectorConfigDef,
} from './connector-config-kinds.js';
export {
  connectorPluginConfigKeyInfos,
  enrichedConnectorConfigDef,
  frameworkConfigDef,
  type ValidateConnectorOptions,
  validateConnectorConfig,
  validateConnectorConfigInfos,
  validateSinkTopics,
} from './connector-config-validate.js';
export {
  enrichTopicCreation,
  parseTopicCreation,
  type TopicCreationGroupConfig,
  topicCreationDefaultGroupConfigDef,
  topicCreationGroupConfigDef,
  usesTopicCreation,
} from './topic-creation-config.js';

/** A converter: its class (name or alias) and its `<key|value|header>.converter.*` settings, unprefixed. */
export interface ConverterSpec {
  readonly className: string;
  readonly config: Readonly<Record<string, string>>;
}

/**
 * One `transforms` alias. `config` holds every `transforms.<alias>.*` key unprefixed (including
 * `type`, as Connect passes it), except `predicate` and `negate`.
 */
export interface TransformationSpec {
  readonly alias: string;
  readonly className: string;
  /** The predicate alias gating this transformation, if any. */
  readonly predicate: string | undefined;
  readonly negate: boolean;
  readonly config: Readonly<Record<string, string>>;
}

/** One `predicates` alias; `config` holds every `predicates.<alias>.*` key unprefixed. */
export interface PredicateSpec {
  readonly alias: string;
  readonly className: string;
  readonly config: Readonly<Record<string, string>>;
}

/** `errors.*` settings. */
export interface ErrorHandlingConfig {
  /** 0 = no retry, -1 = retry forever. */
  readonly retryTimeoutMs: number;
  readonly retryDelayMaxMs: number;
  readonly tolerance: 'none' | 'all';
  readonly logEnable: boolean;
  readonly logIncludeMessages: boolean;
}

/** `errors.deadletterqueue.*` settings; `topicName` is undefined when blank (no DLQ). */
export interface DeadLetterQueueConfig {
  readonly topicName: string | undefined;
  readonly replicationFactor: number;
  readonly contextHeadersEnable: boolean;
}

/** What both kinds share. */
export interface ParsedConnectorConfigBase {
  readonly name: string;
  readonly connectorClass: string;
  readonly tasksMax: number;
  readonly tasksMaxEnforce: boolean;
  readonly keyConverter: ConverterSpec;
  readonly valueConverter: ConverterSpec;
  readonly headerConverter: ConverterSpec;
  /** In chain order. */
  readonly transforms: readonly TransformationSpec[];
  readonly predicates: readonly PredicateSpec[];
  readonly configActionReload: 'none' | 'restart';
  readonly errors: ErrorHandlingConfig;
  readonly deadLetterQueue: DeadLetterQueueConfig;
  /** `producer.override.*`, `consumer.override.*`, `admin.override.*`, unprefixed. */
  readonly clientOverrides: {
    readonly producer: Readonly<Record<string, string>>;
    readonly consumer: Readonly<Record<string, string>>;
    readonly admin: Readonly<Record<string, string>>;
  };
  /** Every string entry of the config as given, including keys no definition knows. */
  readonly originals: Readonly<Record<string, string>>;
}

export interface ParsedSinkConnectorConfig extends ParsedConnectorConfigBase {
  readonly kind: 'sink';
  /** Non-empty, de-duplicated; empty when `topics.regex` is used. */
  readonly topics: readonly string[];
  /** Undefined when `topics` is used. Match whole topic names (see `compileFullMatch`). */
  readonly topicsRegex: string | undefined;
}

export interface ParsedSourceConnectorConfig extends ParsedConnectorConfigBase {
  readonly kind: 'source';
  readonly exactlyOnceSupport: 'requested' | 'required';
  readonly transactionBoundary: 'poll' | 'interval' | 'connector';
  /** Undefined = the deployment's default commit interval. */
  readonly transactionBoundaryIntervalMs: number | undefined;
  readonly offsetsStorageTopic: string | undefined;
  /** Undefined when no `topic.creation.*` key is set. */
  readonly topicCreation: readonly TopicCreationGroupConfig[] | undefined;
}

export type ParsedConnectorConfig = ParsedSinkConnectorConfig | ParsedSourceConnectorConfig;

function stringsWithPrefix(props: ConfigProps, prefix: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(props)
      .filter((e): e is [string, string] => e[0].startsWith(prefix) && typeof e[1] === 'string')
      .map(([k, v]) => [k.slice(prefix.length), v]),
  );
}

function without(record: Record<string, string>, ...keys: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(record).filter(([k]) => !keys.includes(k)));
}

/** LONG values are `number | bigint`; the runtime wants numbers (ms beyond 2^53 are "forever"). */
function toNumber(value: unknown): number {
  return typeof value === 'bigint' ? Number(value) : (value as number);
}

function requiredClass(props: ConfigProps, name: string): string {
  const value = parseType(name, props[name], 'CLASS');
  if (typeof value !== 'string') throw missingRequired(name);
  return value;
}

function parseTransforms(props: ConfigProps): TransformationSpec[] {
  const predicates = aliasesOf(props, N.PREDICATES);
  return aliasesOf(props, N.TRANSFORMS).map((alias) => {
    const prefix = `${P.TRANSFORMS}${alias}.`;
    const className = requiredClass(props, `${prefix}type`);
    const predicate = parseType(`${prefix}predicate`, props[`${prefix}predicate`], 'STRING');
    const negate = parseType(`${prefix}negate`, props[`${prefix}negate`], 'BOOLEAN');
    if (Object.hasOwn(props, `${prefix}negate`) && !Object.hasOwn(props, `${prefix}predicate`)) {
      throw new ConfigError(
        `Config '${prefix}negate' was provided but there is no config '${prefix}predicate' defining a predicate to be negated.`,
        `${prefix}negate`,
      );
    }
    if (typeof predicate === 'string' && !predicates.includes(predicate)) {
      const message = `Predicate alias '${predicate}' is not listed in '${N.PREDICATES}'`;
      throw invalidValue(`${prefix}predicate`, predicate, message);
    }
    return {
      alias,
      className,
      predicate: typeof predicate === 'string' ? predicate : undefined,
      negate: negate === true,
      config: without(stringsWithPrefix(props, prefix), 'predicate', 'negate'),
    };
  });
}

function parsePredicates(props: ConfigProps): PredicateSpec[] {
  return aliasesOf(props, N.PREDICATES).map((alias) => {
    const prefix = `${P.PREDICATES}${alias}.`;
    return {
      alias,
      className: requiredClass(props, `${prefix}type`),
      config: stringsWithPrefix(props, prefix),
    };
  });
}

function parseBase(props: ConfigProps, values: Record<string, unknown>) {
  const converter = (name: string, prefix: string): ConverterSpec => ({
    className: values[name] as string,
    config: stringsWithPrefix(props, prefix),
  });
  const dlqTopic = values[N.DLQ_TOPIC_NAME] as string;
  return {
    name: values[N.NAME] as string,
    connectorClass: values[N.CONNECTOR_CLASS] as string,
    tasksMax: values[N.TASKS_MAX] as number,
    tasksMaxEnforce: values[N.TASKS_MAX_ENFORCE] as boolean,
    keyConverter: converter(N.KEY_CONVERTER, P.KEY_CONVERTER),
    valueConverter: converter(N.VALUE_CONVERTER, P.VALUE_CONVERTER),
    headerConverter: converter(N.HEADER_CONVERTER, P.HEADER_CONVERTER),
    transforms: parseTransforms(props),
    predicates: parsePredicates(props),
    configActionReload: values[N.CONFIG_ACTION_RELOAD] as 'none' | 'restart',
    errors: {
      retryTimeoutMs: toNumber(values[N.ERRORS_RETRY_TIMEOUT]),
      retryDelayMaxMs: toNumber(values[N.ERRORS_RETRY_MAX_DELAY]),
      tolerance: values[N.ERRORS_TOLERANCE] as 'none' | 'all',
      logEnable: values[N.ERRORS_LOG_ENABLE] as boolean,
      logIncludeMessages: values[N.ERRORS_LOG_INCLUDE_MESSAGES] as boolean,
    },
    deadLetterQueue: {
      topicName: dlqTopic === '' ? undefined : dlqTopic,
      replicationFactor: values[N.DLQ_TOPIC_REPLICATION_FACTOR] as number,
      contextHeadersEnable: values[N.DLQ_CONTEXT_HEADERS_ENABLE] as boolean,
    },
    clientOverrides: {
      producer: stringsWithPrefix(props, P.PRODUCER_OVERRIDE),
      consumer: stringsWithPrefix(props, P.CONSUMER_OVERRIDE),
      admin: stringsWithPrefix(props, P.ADMIN_OVERRIDE),
    },
    originals: stringsWithPrefix(props, ''),
  };
}

function firstSinkError(props: ConfigProps): ConfigError | undefined {
  const values = new Map<string, ConfigValue>();
  validateSinkTopics(props, values);
  for (const value of values.values()) {
    const [message] = value.errors;
    if (message !== undefined) return invalidValue(value.name, value.value, message);
  }
  return undefined;
}

/**
 * Parses a connector config for the runtime, strictly: the framework keys of `kind` with their
 * defaults, the sink topic rules, the transformation and predicate aliases. The plugins'
 * own keys are not parsed here: each plugin parses its `config` when configured.
 * Throws the first {@link ConfigError}, naming the key.
 */
export function parseConnectorConfig(props: ConfigProps, kind: 'sink'): ParsedSinkConnectorConfig;
export function parseConnectorConfig(
  props: ConfigProps,
  kind: 'source',
): ParsedSourceConnectorConfig;
export function parseConnectorConfig(
  props: ConfigProps,
  kind: ConnectorKind,
): ParsedConnectorConfig;
export function parseConnectorConfig(
  props: ConfigProps,
  kind: ConnectorKind,
): ParsedConnectorConfig {
  const values = connectorConfigDef(kind).parse(props);
  if (kind === 'sink') {
    const error = firstSinkError(props);
    if (error !== undefined) throw error;
    const regex = values[N.TOPICS_REGEX] as string;
    return {
      kind,
      ...parseBase(props, values),
      topics: [...new Set((values[N.TOPICS] as string[]).filter((t) => t !== ''))],
      topicsRegex: regex === '' ? undefined : regex,
    };
  }
  const interval = values[N.TRANSACTION_BOUNDARY_INTERVAL];
  const offsetsTopic = values[N.OFFSETS_STORAGE_TOPIC];
  return {
    kind,
    ...parseBase(props, values),
    exactlyOnceSupport: String(values[N.EXACTLY_ONCE_SUPPORT]).toLowerCase() as
      | 'requested'
      | 'required',
    transactionBoundary: String(values[N.TRANSACTION_BOUNDARY]).toLowerCase() as
      | 'poll'
      | 'interval'
      | 'connector',
    transactionBoundaryIntervalMs: interval === null ? undefined : toNumber(interval),
    offsetsStorageTopic: typeof offsetsTopic === 'string' ? offsetsTopic : undefined,
    topicCreation: parseTopicCreation(props),
  };
}
