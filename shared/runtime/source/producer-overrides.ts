import type { ParsedConnectorConfigBase } from '../../connect/connector-config.js';
import { ConfigError } from '../../connect/errors.js';
import type { ProducerOptions } from '../../ports/kafka.js';

const prefix = 'producer.override.';

/**
 * The `producer.override.*` keys the runtime honours: `compression.type` (none, gzip) and
 * `transaction.timeout.ms`. Settings that would break the delivery guarantee are refused
 * (`acks` other than all, `enable.idempotence=false`), and so are codecs not bundled yet.
 * Other keys are accepted and have no effect (kafkajs has no equivalent, e.g. `linger.ms`).
 */
export function producerOptionsOf(config: ParsedConnectorConfigBase): ProducerOptions {
  const overrides = config.clientOverrides.producer;
  const acks = overrides.acks?.trim().toLowerCase();
  if (acks !== undefined && acks !== 'all' && acks !== '-1') {
    throw new ConfigError(
      `Invalid value ${overrides.acks} for configuration ${prefix}acks: serverless-connect producers are idempotent and require acks=all`,
      `${prefix}acks`,
    );
  }
  const idempotence = overrides['enable.idempotence']?.trim().toLowerCase();
  if (idempotence !== undefined && idempotence !== 'true') {
    throw new ConfigError(
      `Invalid value ${overrides['enable.idempotence']} for configuration ${prefix}enable.idempotence: idempotence cannot be disabled (delivery guarantees depend on it)`,
      `${prefix}enable.idempotence`,
    );
  }
  const compression = (overrides['compression.type'] ?? 'none').trim().toLowerCase();
  if (compression !== 'none' && compression !== 'gzip') {
    const known = ['snappy', 'lz4', 'zstd'].includes(compression);
    throw new ConfigError(
      `Invalid value ${overrides['compression.type']} for configuration ${prefix}compression.type: ${
        known ? 'this codec is not bundled yet; use gzip or none' : 'must be one of none, gzip'
      }`,
      `${prefix}compression.type`,
    );
  }
  const timeoutText = overrides['transaction.timeout.ms'];
  let transactionTimeoutMs: number | undefined;
  if (timeoutText !== undefined) {
    transactionTimeoutMs = Number(timeoutText.trim());
    if (!Number.isInteger(transactionTimeoutMs) || transactionTimeoutMs <= 0) {
      throw new ConfigError(
        `Invalid value ${timeoutText} for configuration ${prefix}transaction.timeout.ms: must be a positive integer`,
        `${prefix}transaction.timeout.ms`,
      );
    }
  }
  return {
    compression,
    ...(transactionTimeoutMs === undefined ? {} : { transactionTimeoutMs }),
  };
}
