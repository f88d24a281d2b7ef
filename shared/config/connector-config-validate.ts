/**
 * Validation of connector configs, as Connect's `AbstractHerder.validateConnectorConfig` and
 * `SinkConnectorConfig.validate`. Never throws: every problem becomes a message on a
 * {@link ConfigValue}. Unknown keys are kept and are not errors, as in Connect.
 *
 * Beyond Connect, validation also reports: a `transforms.<a>.predicate` naming an alias not
 * listed in `predicates`, a converter class the plugin lookup does not know, (for sources
 * that use topic creation) the `topic.creation.*` keys, which Connect only checks at start,
 * and invalid or refused `producer.override.*` / `admin.override.*` values (Connect's `All`
 * override policy leaves those to the client at task start; see client-overrides.ts).
 * Connect's exactly-once preflight (`exactly.once.support=required`) needs the connector
 * instance and the deployment's EOS setting, so it is left to the caller.
 */

import {
  ConfigDef,
  type ConfigProps,
  type ConfigValue,
  formatValue,
  invalidValue,
  javaTrim,
  parseType,
} from '../connect/config-def.js';
import { compileFullMatch } from '../connect/config-validators.js';
import { clientOverrideErrors } from './client-overrides.js';
import {
  type ConfigInfos,
  type ConfigKeyInfo,
  configKeyInfos,
  toConfigInfos,
} from './config-infos.js';
import {
  type ConnectorKind,
  ConnectorConfigNames as N,
  ConnectorConfigPrefixes as P,
} from './connector-config-defs.js';
import {
  aliasesOf,
  type EnrichOptions,
  enrichConnectorConfigDef,
  findPlugin,
  type PluginConfigLookup,
} from './connector-config-enrich.js';
import { connectorConfigDef } from './connector-config-kinds.js';
import { enrichTopicCreation, usesTopicCreation } from './topic-creation-config.js';

/** Options of {@link validateConnectorConfig}. */
export interface ValidateConnectorOptions {
  /**
   * The connector's own results, when its `validate()` does more than `config().validate()`.
   * @default connectorDef.validate(props)
   */
  readonly connectorValues?: readonly ConfigValue[];
  /** Class names offered as `recommended_values` of `transforms.<a>.type` / `predicates.<a>.type`. */
  readonly pluginClasses?: EnrichOptions['pluginClasses'];
}

const NULL_VALUE = 'Null value can not be supplied as the configuration value.';

/**
 * The framework keys for `props` (Connect's enriched `ConfigDef`): the common and sink or
 * source keys, the keys of every transformation and predicate alias, and for sources using
 * topic creation the `topic.creation.*` keys.
 */
export function frameworkConfigDef(
  props: ConfigProps,
  kind: ConnectorKind,
  lookup: PluginConfigLookup,
  options: Pick<ValidateConnectorOptions, 'pluginClasses'> = {},
): ConfigDef {
  const enrichOptions = options.pluginClasses ? { pluginClasses: options.pluginClasses } : {};
  const def = enrichConnectorConfigDef(connectorConfigDef(kind), props, lookup, enrichOptions);
  return kind === 'source' && usesTopicCreation(props) ? enrichTopicCreation(def, props) : def;
}

/**
 * The definitions a validate response lists: {@link frameworkConfigDef} followed by the
 * connector's keys; a connector key with a framework name replaces it in place.
 */
export function enrichedConnectorConfigDef(
  props: ConfigProps,
  kind: ConnectorKind,
  connectorDef: ConfigDef,
  lookup: PluginConfigLookup,
  options: Pick<ValidateConnectorOptions, 'pluginClasses'> = {},
): ConfigDef {
  return frameworkConfigDef(props, kind, lookup, options).withAll(connectorDef, 'replace');
}

function addError(values: Map<string, ConfigValue>, name: string, value: unknown, error: string) {
  const existing = values.get(name);
  if (existing !== undefined) existing.errors.push(error);
  else values.set(name, { name, value, recommendedValues: [], errors: [error], visible: true });
}

function isBlank(value: unknown): boolean {
  return typeof value !== 'string' || javaTrim(value) === '';
}

function topicsList(props: ConfigProps): string[] {
  try {
    const parsed = parseType(N.TOPICS, props[N.TOPICS], 'LIST');
    return Array.isArray(parsed) ? [...new Set(parsed.map(String).filter((t) => t !== ''))] : [];
  } catch {
    return [];
  }
}

/**
 * Connect's sink checks (`SinkConnectorConfig.validate`): exactly one of `topics` and
 * `topics.regex` (an error on both keys otherwise) and a DLQ topic neither listed in `topics`
 * nor matched by `topics.regex`. Adds messages to `values`.
 */
export function validateSinkTopics(props: ConfigProps, values: Map<string, ConfigValue>): void {
  const topics = props[N.TOPICS];
  const regex = props[N.TOPICS_REGEX];
  const dlq = javaTrim(props[N.DLQ_TOPIC_NAME] ?? '');
  const hasTopics = !isBlank(topics);
  const hasRegex = !isBlank(regex);
  if (hasTopics && hasRegex) {
    const error = `${N.TOPICS} and ${N.TOPICS_REGEX} are mutually exclusive options, but both are set.`;
    addError(values, N.TOPICS, topics, error);
    addError(values, N.TOPICS_REGEX, regex, error);
  }
  if (!hasTopics && !hasRegex) {
    const error = `Must configure one of ${N.TOPICS} or ${N.TOPICS_REGEX}`;
    addError(values, N.TOPICS, topics ?? null, error);
    addError(values, N.TOPICS_REGEX, regex ?? null, error);
  }
  if (dlq === '') return;
  const list = topicsList(props);
  if (hasTopics && list.includes(dlq)) {
    addError(
      values,
      N.TOPICS,
      topics,
      `The DLQ topic '${dlq}' may not be included in the list of topics ('${N.TOPICS}=${formatValue(list)}') consumed by the connector`,
    );
  }
  if (hasRegex && typeof regex === 'string' && matchesFully(regex, dlq)) {
    addError(
      values,
      N.TOPICS_REGEX,
      regex,
      `The DLQ topic '${dlq}' may not be matched by the regex for the topics ('${N.TOPICS_REGEX}=${regex}') consumed by the connector`,
    );
  }
}

function matchesFully(pattern: string, input: string): boolean {
  try {
    return compileFullMatch(pattern).test(input);
  } catch {
    return false; // an invalid regex is already reported by the topics.regex validator
  }
}

function validateConverters(
  props: ConfigProps,
  values: Map<string, ConfigValue>,
  lookup: PluginConfigLookup,
): void {
  const converters = [
    [N.KEY_CONVERTER, 'converter'],
    [N.VALUE_CONVERTER, 'converter'],
    [N.HEADER_CONVERTER, 'header_converter'],
  ] as const;
  for (const [name, kind] of converters) {
    const value = values.get(name)?.value;
    if (typeof props[name] !== 'string' || typeof value !== 'string') continue;
    if (findPlugin(lookup, value, kind) === undefined) {
      addError(
        values,
        name,
        value,
        invalidValue(name, value, `Class ${value} could not be found.`).message,
      );
    }
  }
}

function validatePredicateReferences(props: ConfigProps, values: Map<string, ConfigValue>): void {
  const predicates = aliasesOf(props, N.PREDICATES);
  for (const alias of aliasesOf(props, N.TRANSFORMS)) {
    const name = `${P.TRANSFORMS}${alias}.predicate`;
    const value = values.get(name)?.value;
    if (typeof value === 'string' && !predicates.includes(value)) {
      const error = `Predicate alias '${value}' is not listed in '${N.PREDICATES}'`;
      addError(values, name, value, invalidValue(name, value, error).message);
    }
  }
}

function safeValidate(def: ConfigDef, props: ConfigProps): ConfigValue[] {
  try {
    return def.validate(props);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return [
      {
        name: N.CONNECTOR_CLASS,
        value: null,
        recommendedValues: [],
        errors: [message],
        visible: true,
      },
    ];
  }
}

/**
 * Validates a connector config for the validate endpoint and before create/update (Connect's
 * `AbstractHerder.validateConnectorConfig`). Never throws: every problem is a message on a
 * {@link ConfigValue}. Returns the framework values (common + sink/source + transforms,
 * predicates, topic creation) then the connector's values; `null` props get Connect's
 * "Null value can not be supplied as the configuration value." Undeclared keys get no value
 * unless they carry an error.
 */
export function validateConnectorConfig(
  props: ConfigProps,
  kind: ConnectorKind,
  connectorDef: ConfigDef,
  lookup: PluginConfigLookup,
  options: ValidateConnectorOptions = {},
): ConfigValue[] {
  const values = frameworkConfigDef(props, kind, lookup, options).validateAll(props);
  if (kind === 'sink') validateSinkTopics(props, values);
  validateConverters(props, values, lookup);
  validatePredicateReferences(props, values);
  for (const override of clientOverrideErrors(props, kind)) {
    for (const error of override.errors) addError(values, override.name, override.value, error);
  }
  const all = [
    ...values.values(),
    ...(options.connectorValues ?? safeValidate(connectorDef, props)),
  ];
  for (const name of Object.keys(props)) {
    if (props[name] !== null) continue;
    const target = all.findLast((v) => v.name === name);
    if (target !== undefined) target.errors.push(NULL_VALUE);
    else
      all.unshift({
        name,
        value: null,
        recommendedValues: [],
        errors: [NULL_VALUE],
        visible: true,
      });
  }
  return all;
}

/**
 * {@link validateConnectorConfig} rendered as Connect's ConfigInfos JSON (the body of
 * `PUT /connector-plugins/{p}/config/validate`), named after `props['connector.class']`.
 */
export function validateConnectorConfigInfos(
  props: ConfigProps,
  kind: ConnectorKind,
  connectorDef: ConfigDef,
  lookup: PluginConfigLookup,
  options: ValidateConnectorOptions = {},
): ConfigInfos {
  const values = validateConnectorConfig(props, kind, connectorDef, lookup, options);
  const def = enrichedConnectorConfigDef(props, kind, connectorDef, lookup, options);
  return toConfigInfos(String(props[N.CONNECTOR_CLASS] ?? ''), def, values);
}

/**
 * The body of `GET /connector-plugins/{p}/config` for a connector: its own keys first, then
 * the framework keys it does not redefine.
 */
export function connectorPluginConfigKeyInfos(
  kind: ConnectorKind,
  connectorDef: ConfigDef,
): ConfigKeyInfo[] {
  return configKeyInfos(new ConfigDef(connectorDef).withAll(connectorConfigDef(kind), 'skip'));
}
