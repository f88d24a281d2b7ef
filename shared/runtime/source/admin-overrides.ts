import { type AdminOverrides, parseAdminOverrides } from '../../config/client-overrides.js';
import type { ParsedConnectorConfigBase } from '../../config/connector-config.js';
import type { AdminOptions, SaslCredentials, SecurityOverrides } from '../../ports/kafka.js';

const mechanisms: Readonly<Record<string, SaslCredentials['mechanism']>> = {
  PLAIN: 'plain',
  'SCRAM-SHA-256': 'scram-sha-256',
  'SCRAM-SHA-512': 'scram-sha-512',
};

function securityOf(parsed: AdminOverrides): SecurityOverrides | undefined {
  const { securityProtocol, sasl, tls } = parsed;
  const mechanism = sasl === undefined ? undefined : mechanisms[sasl.mechanism];
  const security: SecurityOverrides = {
    ...(securityProtocol === undefined ? {} : { protocol: securityProtocol }),
    ...(sasl === undefined || mechanism === undefined
      ? {}
      : { sasl: { mechanism, username: sasl.username, password: sasl.password } }),
    ...(tls === undefined
      ? {}
      : {
          tls: {
            ...(tls.ca === undefined ? {} : { ca: tls.ca }),
            ...(tls.cert === undefined ? {} : { cert: tls.cert }),
            ...(tls.key === undefined ? {} : { key: tls.key }),
            ...(tls.keyPassword === undefined ? {} : { passphrase: tls.keyPassword }),
            ...(tls.verifyHostname === undefined ? {} : { verifyHostname: tls.verifyHostname }),
          },
        }),
  };
  return Object.keys(security).length === 0 ? undefined : security;
}

/**
 * The admin client settings of a connector from its `admin.override.*` keys (Kafka Connect's
 * per-connector admin overrides): `client.id`, `request.timeout.ms`,
 * `socket.connection.setup.timeout.ms`, `retries`, `retry.backoff.ms`, `retry.backoff.max.ms`
 * and the security settings kafkajs can honour (`security.protocol`, `sasl.mechanism` PLAIN or
 * SCRAM with `sasl.jaas.config`, PEM key and trust material, `ssl.endpoint.identification.algorithm`).
 * Undefined when none is set: the task then uses the worker's admin client.
 *
 * @throws ConfigError naming the first invalid or refused `admin.override.*` key.
 */
export function adminOptionsOf(config: ParsedConnectorConfigBase): AdminOptions | undefined {
  const parsed = parseAdminOverrides(config.clientOverrides.admin);
  const retry = {
    ...(parsed.retries === undefined ? {} : { retries: parsed.retries }),
    ...(parsed.retryBackoffMs === undefined ? {} : { initialRetryTimeMs: parsed.retryBackoffMs }),
    ...(parsed.retryBackoffMaxMs === undefined ? {} : { maxRetryTimeMs: parsed.retryBackoffMaxMs }),
  };
  const security = securityOf(parsed);
  const options: AdminOptions = {
    ...(parsed.clientId === undefined ? {} : { clientId: parsed.clientId }),
    ...(parsed.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: parsed.requestTimeoutMs }),
    ...(parsed.connectionSetupTimeoutMs === undefined
      ? {}
      : { connectionTimeoutMs: parsed.connectionSetupTimeoutMs }),
    ...(Object.keys(retry).length === 0 ? {} : { retry }),
    ...(security === undefined ? {} : { security }),
  };
  return Object.keys(options).length === 0 ? undefined : options;
}
