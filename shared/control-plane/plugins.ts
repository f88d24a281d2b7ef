/**
 * Plugins (`ConnectorPluginsResource`): the installed plugins, a plugin's config definition,
 * and config validation.
 */
import type { ConfigInfos, ConfigKeyInfo } from '../config/config-infos.js';
import type { PluginRegistry } from '../connect/plugin.js';
import type { ConnectorConfigValidator } from './config-validation.js';
import type { PluginInfo } from './dto.js';
import { BadRequestError } from './errors.js';
import { listPluginInfos, pluginConfigKeyInfos } from './plugin-catalog.js';
import type { ConfigInput } from './request-body.js';

const SUFFIX = 'Connector';

/** Connect's `normalizedPluginName`: a trailing `Connector` removed. */
function normalized(name: string): string {
  return name.endsWith(SUFFIX) && name.length > SUFFIX.length
    ? name.slice(0, -SUFFIX.length)
    : name;
}

export class PluginsApi {
  readonly #registry: PluginRegistry;
  readonly #validator: ConnectorConfigValidator;

  constructor(registry: PluginRegistry, validator: ConnectorConfigValidator) {
    this.#registry = registry;
    this.#validator = validator;
  }

  /** `GET /connector-plugins?connectorsOnly=…` (default true). */
  list(connectorsOnly: boolean): PluginInfo[] {
    return listPluginInfos(this.#registry, connectorsOnly);
  }

  /** `GET /connector-plugins/{p}/config`. */
  config(plugin: string): ConfigKeyInfo[] {
    return pluginConfigKeyInfos(this.#registry, plugin);
  }

  /**
   * `PUT /connector-plugins/{p}/config/validate`: always ConfigInfos (200) once validation
   * ran, errors included. 400 when the body's `connector.class` is missing or does not match
   * `plugin` (after removing a trailing `Connector` from both, by suffix).
   */
  async validate(plugin: string, config: ConfigInput): Promise<ConfigInfos> {
    const included = config['connector.class'];
    if (typeof included === 'string' && !normalized(included).endsWith(normalized(plugin))) {
      throw new BadRequestError(
        `Included connector type ${included} does not match request type ${plugin}`,
      );
    }
    return (await this.#validator.validate(config)).infos;
  }
}
