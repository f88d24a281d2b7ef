import { parseProducerOverrides } from '../../config/client-overrides.js';
import type { ParsedConnectorConfigBase } from '../../config/connector-config.js';
import type { ProducerOptions } from '../../ports/kafka.js';

/**
 * The producer settings of a connector from its `producer.override.*` keys: `compression.type`
 * (none, gzip, snappy, lz4, zstd; the worker's default when absent) and
 * `transaction.timeout.ms`. Settings that would break the delivery guarantee are refused
 * (`acks` other than all, `enable.idempotence=false`, `transactional.id`, `bootstrap.servers`);
 * other keys are accepted and have no effect (kafkajs has no equivalent, e.g. `linger.ms`).
 * The rules are those of the validate endpoint (`connect/client-overrides.ts`).
 *
 * @throws ConfigError naming the first invalid or refused `producer.override.*` key.
 */
export function producerOptionsOf(config: ParsedConnectorConfigBase): ProducerOptions {
  const parsed = parseProducerOverrides(config.clientOverrides.producer);
  return {
    ...(parsed.compressionType === undefined ? {} : { compression: parsed.compressionType }),
    ...(parsed.transactionTimeoutMs === undefined
      ? {}
      : { transactionTimeoutMs: parsed.transactionTimeoutMs }),
  };
}
