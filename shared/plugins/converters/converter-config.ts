/**
 * What every Connect converter config holds (Kafka Connect's `ConverterConfig`): the
 * `converter.type` key, which the runtime sets to `key`, `value` or `header`.
 */
import { ConfigDef, ValidString } from 'serverless-connect/connect';

export const CONVERTER_TYPE_CONFIG = 'converter.type';

/** How a converter is used (Connect's `ConverterType`). */
export type ConverterType = 'key' | 'value' | 'header';

/** A new ConfigDef holding `converter.type` (Connect's `ConverterConfig.newConfigDef()`). */
export function newConverterConfigDef(): ConfigDef {
  return new ConfigDef().define({
    name: CONVERTER_TYPE_CONFIG,
    type: 'STRING',
    validator: ValidString.in('key', 'value', 'header'),
    importance: 'LOW',
    documentation: 'How this converter will be used.',
  });
}

/**
 * `props` with `converter.type` set as Connect's `configure(props, isKey)` sets it: `key` or
 * `value` when `isKey` is given; otherwise (a header converter) kept, or `header` when absent.
 */
export function withConverterType(
  props: Readonly<Record<string, string>>,
  isKey: boolean | undefined,
): Record<string, string> {
  if (isKey !== undefined) return { ...props, [CONVERTER_TYPE_CONFIG]: isKey ? 'key' : 'value' };
  return { [CONVERTER_TYPE_CONFIG]: 'header', ...props };
}
