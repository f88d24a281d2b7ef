/**
 * Connector config validation for `PUT /connector-plugins/{p}/config/validate` and for every
 * create and update (Connect's `AbstractHerder.validateConnectorConfig`): one code path, so a
 * config that validates cleanly is exactly a config the API accepts.
 */

import { type ConfigInfos, toConfigInfos } from '../config/config-infos.js';
import { type ConfigProviderResolver, refusedPlaceholders } from '../config/config-providers.js';
import {
  enrichedConnectorConfigDef,
  ConnectorConfigNames as N,
  validateConnectorConfig,
} from '../config/connector-config.js';
import type { ConfigDef, ConfigProps, ConfigValue } from '../connect/config-def.js';
import type { PluginRegistry } from '../connect/plugin.js';
import type { SourceConnector } from '../connect/source.js';
import { BadRequestError } from './errors.js';
import {
  type ConnectorDescriptor,
  pluginClasses,
  pluginConfigLookup,
  resolveConnectorPlugin,
} from './plugin-catalog.js';

export interface ConfigValidatorOptions {
  /**
   * The deployment's `exactly.once.source.support`: when false, `exactly.once.support=required`
   * fails validation, as on a Connect worker without exactly-once support. @default true
   */
  readonly exactlyOnceSourceEnabled?: boolean;
  /**
   * The worker's config providers: a placeholder one of them refuses (e.g. a variable outside
   * the env provider's allowlist) is an error on its config key. @default none
   */
  readonly configProviders?: Readonly<Record<string, ConfigProviderResolver>>;
}

/** The outcome of validating a config whose connector class resolved. */
export interface ValidatedConfig {
  readonly descriptor: ConnectorDescriptor;
  readonly infos: ConfigInfos;
}

const SENSITIVE = /password|secret|credential|token/i;

/** Java's `Map.toString` of the props, with values of secret-looking keys hidden. */
function renderProps(props: ConfigProps): string {
  const entries = Object.entries(props).map(
    ([k, v]) => `${k}=${SENSITIVE.test(k) && v !== null ? '[hidden]' : String(v)}`,
  );
  return `{${entries.join(', ')}}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function addError(values: ConfigValue[], name: string, value: unknown, error: string): void {
  const existing = values.findLast((v) => v.name === name);
  if (existing !== undefined) existing.errors.push(error);
  else values.push({ name, value, recommendedValues: [], errors: [error], visible: true });
}

function withoutNulls(props: ConfigProps): Record<string, string> {
  return Object.fromEntries(
    Object.entries(props).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}

/** Validates connector configs against the registry's plugins. */
export class ConnectorConfigValidator {
  readonly #registry: PluginRegistry;
  readonly #exactlyOnce: boolean;
  readonly #providers: Readonly<Record<string, ConfigProviderResolver>>;

  constructor(registry: PluginRegistry, options: ConfigValidatorOptions = {}) {
    this.#registry = registry;
    this.#exactlyOnce = options.exactlyOnceSourceEnabled ?? true;
    this.#providers = options.configProviders ?? {};
  }

  /**
   * ConfigInfos for `props` (errors are in the result, never thrown). 400 when `props` has no
   * `connector.class` or the class is not an installed connector.
   */
  async validate(props: ConfigProps): Promise<ValidatedConfig> {
    const className = props[N.CONNECTOR_CLASS];
    if (typeof className !== 'string') {
      throw new BadRequestError(
        `Connector config ${renderProps(props)} contains no connector type`,
      );
    }
    const descriptor = resolveConnectorPlugin(this.#registry, className);
    const stringProps = withoutNulls(props);
    let connectorDef: ConfigDef;
    let connectorValues: ConfigValue[];
    let connector: ReturnType<ConnectorDescriptor['create']>;
    try {
      connector = descriptor.create();
      connectorDef = connector.config();
    } catch (error) {
      throw new BadRequestError(
        `Failed to instantiate connector ${className}: ${messageOf(error)}`,
      );
    }
    try {
      connectorValues = connector.validate(stringProps);
    } catch (error) {
      connectorValues = [
        {
          name: N.CONNECTOR_CLASS,
          value: className,
          recommendedValues: [],
          errors: [`Error while validating connector config: ${messageOf(error)}`],
          visible: true,
        },
      ];
    }
    const lookup = pluginConfigLookup(this.#registry);
    const classes = pluginClasses(this.#registry);
    const kind = descriptor.type;
    const values = validateConnectorConfig(props, kind, connectorDef, lookup, {
      connectorValues,
      pluginClasses: classes,
    });
    if (kind === 'source') {
      this.#checkExactlyOnce(values, connector as SourceConnector, props, stringProps);
    }
    // Placeholders the worker refuses (Connect resolves them at validation; refusing is enough
    // here, and reads no secret).
    for (const { configKey, message } of await refusedPlaceholders(props, this.#providers)) {
      addError(values, configKey, props[configKey], message);
    }
    const def = enrichedConnectorConfigDef(props, kind, connectorDef, lookup, {
      pluginClasses: classes,
    });
    return { descriptor, infos: toConfigInfos(className, def, values) };
  }

  /**
   * Validates `props` for a create or an update: 400 listing every error (Connect's text,
   * pointing at the validate endpoint) unless the config is valid.
   */
  async assertValid(props: ConfigProps): Promise<ConnectorDescriptor> {
    const { descriptor, infos } = await this.validate(props);
    if (infos.error_count === 0) return descriptor;
    const messages = infos.configs.flatMap((c) => c.value?.errors ?? []);
    throw new BadRequestError(
      [
        `Connector configuration is invalid and contains the following ${infos.error_count} error(s):`,
        ...messages,
        'You can also find the above list of errors at the endpoint `/connector-plugins/{connectorType}/config/validate`',
      ].join('\n'),
    );
  }

  /** Connect's exactly-once preflight, as errors on the two keys it concerns. */
  #checkExactlyOnce(
    values: ConfigValue[],
    connector: SourceConnector,
    props: ConfigProps,
    stringProps: Readonly<Record<string, string>>,
  ): void {
    const support = props[N.EXACTLY_ONCE_SUPPORT];
    if (typeof support === 'string' && support.trim().toLowerCase() === 'required') {
      const error = this.#exactlyOnceError(connector, stringProps);
      if (error !== undefined) addError(values, N.EXACTLY_ONCE_SUPPORT, support, error);
    }
    const boundary = props[N.TRANSACTION_BOUNDARY];
    if (typeof boundary === 'string' && boundary.trim().toLowerCase() === 'connector') {
      let supported = false;
      try {
        supported = connector.canDefineTransactionBoundaries(stringProps) === 'SUPPORTED';
      } catch {
        supported = false;
      }
      if (!supported) {
        addError(
          values,
          N.TRANSACTION_BOUNDARY,
          boundary,
          'The connector does not support connector-defined transaction boundaries with the given configuration. Please reconfigure it to use a different transaction boundary definition.',
        );
      }
    }
  }

  #exactlyOnceError(
    connector: SourceConnector,
    props: Readonly<Record<string, string>>,
  ): string | undefined {
    if (!this.#exactlyOnce) {
      return 'This worker does not have exactly-once source support enabled.';
    }
    let support: string | null;
    try {
      support = connector.exactlyOnceSupport(props);
    } catch (error) {
      return `An unexpected error occurred during validation: ${messageOf(error)}`;
    }
    if (support === 'SUPPORTED') return undefined;
    return support === null
      ? 'The connector does not implement the API required for preflight validation of exactly-once source support. Please consult the documentation for the connector to determine whether it supports exactly-once guarantees, and then consider reconfiguring the connector to use the value "requested" for this property (which will disable this preflight check and allow the connector to be created).'
      : 'The connector does not support exactly-once semantics with the provided configuration.';
  }
}
