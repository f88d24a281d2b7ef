import type { ParsedConnectorConfigBase } from '../../config/connector-config.js';
import type { Converter, HeaderConverter } from '../../connect/converter.js';
import { ConfigError } from '../../connect/errors.js';
import type { PluginRegistry } from '../../connect/plugin.js';

/** The key, value and header converters of one connector, configured from its config. */
export interface ConverterSet {
  readonly key: Converter;
  readonly keyClass: string;
  readonly value: Converter;
  readonly valueClass: string;
  readonly header: HeaderConverter;
  readonly headerClass: string;
}

function resolve<T>(
  registry: PluginRegistry,
  className: string,
  type: 'converter' | 'header_converter',
  key: string,
): T {
  try {
    return registry.resolve(className, type).create() as T;
  } catch (error) {
    throw new ConfigError(
      `Invalid value ${className} for configuration ${key}: Class ${className} could not be found.`,
      key,
      { cause: error },
    );
  }
}

/** Creates and configures the converters named by `key.converter`, `value.converter`, `header.converter`. */
export function createConverterSet(
  config: ParsedConnectorConfigBase,
  registry: PluginRegistry,
): ConverterSet {
  const key = resolve<Converter>(
    registry,
    config.keyConverter.className,
    'converter',
    'key.converter',
  );
  key.configure(config.keyConverter.config, true);
  const value = resolve<Converter>(
    registry,
    config.valueConverter.className,
    'converter',
    'value.converter',
  );
  value.configure(config.valueConverter.config, false);
  const header = resolve<HeaderConverter>(
    registry,
    config.headerConverter.className,
    'header_converter',
    'header.converter',
  );
  header.configure(config.headerConverter.config);
  return {
    key,
    keyClass: config.keyConverter.className,
    value,
    valueClass: config.valueConverter.className,
    header,
    headerClass: config.headerConverter.className,
  };
}
