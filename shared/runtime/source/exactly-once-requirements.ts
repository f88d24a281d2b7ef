import type { ParsedSourceConnectorConfig } from '../../config/connector-config.js';
import { ConfigError } from '../../connect/errors.js';
import type { SourceConnector } from '../../connect/source.js';

/**
 * Kafka Connect's preflight checks: `exactly.once.support=required` needs a connector that
 * declares exactly-once support, and `transaction.boundary=connector` one that can define
 * transaction boundaries.
 */
export function checkExactlyOnceRequirements(
  connector: SourceConnector,
  config: ParsedSourceConnectorConfig,
): void {
  const originals = config.originals;
  if (
    config.exactlyOnceSupport === 'required' &&
    connector.exactlyOnceSupport(originals) !== 'SUPPORTED'
  ) {
    throw new ConfigError(
      `The connector does not implement the API required for preflight validation of exactly-once source support. Please consult the documentation for the connector to determine whether it supports exactly-once guarantees, and then consider reconfiguring the connector to use the value "requested" for this property (which will disable this preflight check and allow the connector to be created).`,
      'exactly.once.support',
    );
  }
  if (
    config.transactionBoundary === 'connector' &&
    connector.canDefineTransactionBoundaries(originals) !== 'SUPPORTED'
  ) {
    throw new ConfigError(
      'The connector does not support connector-defined transaction boundaries with the given configuration. Please reconfigure it to use a different transaction boundary definition.',
      'transaction.boundary',
    );
  }
}
