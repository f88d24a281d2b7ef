/**
 * What the REST API needs from the plugin registry: the kind of a connector class, connector
 * plugins resolved with Connect's error texts, the lookup that config validation uses, and the
 * `GET /connector-plugins…` bodies.
 */

import { type ConfigKeyInfo, configKeyInfos } from '../config/config-infos.js';
import {
  type ConnectorKind,
  connectorPluginConfigKeyInfos,
  type PluginConfigLookup,
  type PluginLookupKind,
} from '../config/connector-config.js';
import type { ConfigDef } from '../connect/config-def.js';
import type { AnyPluginDescriptor, PluginDescriptor, PluginRegistry } from '../connect/plugin.js';
import type { ConnectorType, PluginInfo } from './dto.js';
import { BadRequestError, RestNotFoundError } from './errors.js';

/** A connector plugin and its kind. */
export type ConnectorDescriptor = PluginDescriptor<'source'> | PluginDescriptor<'sink'>;

/** The connector kinds in the order `GET /connector-plugins` lists them (sinks first). */
const CONNECTOR_KINDS: readonly ConnectorKind[] = ['sink', 'source'];

/** The other kinds, in the order `connectorsOnly=false` appends them. */
const OTHER_KINDS = ['transformation', 'predicate', 'converter', 'header_converter'] as const;

/** The connector plugin `className` names, or `undefined` when none (or several) match. */
export function findConnectorPlugin(
  registry: PluginRegistry,
  className: string,
): ConnectorDescriptor | undefined {
  const matches = CONNECTOR_KINDS.filter((kind) => registry.has(className, kind));
  const [kind] = matches;
  if (kind === undefined || matches.length > 1) return undefined;
  return kind === 'sink'
    ? registry.resolve(className, 'sink')
    : registry.resolve(className, 'source');
}

/** `source`, `sink`, or `unknown` when the class does not resolve (Connect's ConnectorType). */
export function connectorTypeOf(
  registry: PluginRegistry,
  className: string | undefined,
): ConnectorType {
  if (className === undefined) return 'unknown';
  return findConnectorPlugin(registry, className)?.type ?? 'unknown';
}

/**
 * The connector plugin `className` names. 400 (Apache Kafka Connect 3.x answers 500) naming
 * the installed connector classes when none matches.
 */
export function resolveConnectorPlugin(
  registry: PluginRegistry,
  className: string,
): ConnectorDescriptor {
  const found = findConnectorPlugin(registry, className);
  if (found !== undefined) return found;
  const known = CONNECTOR_KINDS.flatMap((kind) => registry.list(kind).map((d) => d.className));
  throw new BadRequestError(
    `Failed to find any class that implements Connector and which name matches ${className}, available connectors are: ${known.join(', ')}`,
  );
}

/** The ConfigDef of a fresh plugin instance, or `undefined` when the plugin fails to build it. */
function configOf(descriptor: {
  readonly create: () => { config(): ConfigDef };
}): ConfigDef | undefined {
  try {
    return descriptor.create().config();
  } catch {
    return undefined;
  }
}

/** The lookup config validation uses for converters, transformations and predicates. */
export function pluginConfigLookup(registry: PluginRegistry): PluginConfigLookup {
  return (className: string, kind: PluginLookupKind) =>
    registry.has(className, kind) ? configOf(registry.resolve(className, kind)) : undefined;
}

/** Class names offered as recommended values of `transforms.<a>.type` and friends. */
export function pluginClasses(registry: PluginRegistry): (kind: PluginLookupKind) => string[] {
  return (kind) => registry.list(kind).map((d) => d.className);
}

function toPluginInfo(descriptor: AnyPluginDescriptor): PluginInfo {
  return descriptor.version === ''
    ? { class: descriptor.className, type: descriptor.type }
    : { class: descriptor.className, type: descriptor.type, version: descriptor.version };
}

/** `GET /connector-plugins`: sinks then sources, then (unless `connectorsOnly`) the rest. */
export function listPluginInfos(registry: PluginRegistry, connectorsOnly: boolean): PluginInfo[] {
  const kinds = connectorsOnly ? CONNECTOR_KINDS : [...CONNECTOR_KINDS, ...OTHER_KINDS];
  return kinds.flatMap((kind) => registry.list(kind).map(toPluginInfo));
}

/**
 * `GET /connector-plugins/{p}/config`: a connector's own keys then the framework keys; any
 * other plugin's own keys. 404 when no plugin (of one kind) is named `name`.
 */
export function pluginConfigKeyInfos(registry: PluginRegistry, name: string): ConfigKeyInfo[] {
  for (const kind of [...CONNECTOR_KINDS, ...OTHER_KINDS]) {
    if (!registry.has(name, kind)) continue;
    const def = configOf(registry.resolve(name, kind));
    if (def === undefined) {
      throw new BadRequestError(`The plugin ${name} could not describe its configuration`);
    }
    return kind === 'sink' || kind === 'source'
      ? connectorPluginConfigKeyInfos(kind, def)
      : configKeyInfos(def);
  }
  throw new RestNotFoundError(`Unknown plugin ${name}.`);
}
