import type { Authenticator, KafkaConfig, Mechanism, OauthbearerProviderResponse } from 'kafkajs';
import scram256 from 'kafkajs/src/broker/saslAuthenticator/scram256.js';
import scram512 from 'kafkajs/src/broker/saslAuthenticator/scram512.js';
import { ConfigError, ConnectError, RetriableError } from '../../connect/errors.js';

/** The SCRAM mechanisms kafkajs speaks (MSK supports `scram-sha-512` only). */
export type ScramMechanism = 'scram-sha-256' | 'scram-sha-512';

/**
 * How the worker's Kafka clients authenticate (`KAFKA_AUTH`):
 * - `none`: no SASL (TLS is decided apart, by `KAFKA_SSL`);
 * - `scram`: SASL/SCRAM with `{"username", "password"}` read from a Secrets Manager secret (the
 *   format MSK requires of its `AmazonMSK_*` secrets);
 * - `iam`: MSK IAM access control, SASL/OAUTHBEARER with a SigV4-signed token.
 */
export type KafkaAuthSettings =
  | { readonly mode: 'none' }
  | { readonly mode: 'scram'; readonly mechanism: ScramMechanism; readonly secretArn: string }
  | { readonly mode: 'iam' };

/** An MSK IAM auth token, as `aws-msk-iam-sasl-signer-js` returns it. */
export interface MskIamToken {
  readonly token: string;
  /** Milliseconds since the epoch. */
  readonly expiryTime: number;
}

/** What building the SASL options needs from the outside world; injected so tests need no AWS. */
export interface KafkaAuthDeps {
  /**
   * Reads a secret's string value; `undefined` when the secret does not exist or holds no string.
   * Called on the first authentication of the container, and again only after the broker rejected
   * the credentials (the secret may have been rotated) or the read failed.
   */
  readonly readSecret: (secretId: string) => Promise<string | undefined>;
  /** Signs a fresh MSK IAM token (for the function's region, with its role's credentials). */
  readonly iamToken: () => Promise<MskIamToken>;
  /** @default Date.now */
  readonly now?: () => number;
}

/** A token this close to its expiry is signed again before it is handed to a broker. */
export const IAM_TOKEN_REFRESH_MARGIN_MS = 60_000;

const SECRET_KEY = 'KAFKA_SASL_SECRET_ARN';

interface ScramCredentials {
  readonly username: string;
  readonly password: string;
}

/**
 * The kafkajs `sasl` option for `settings`, or `undefined` for `none`. Nothing is read or signed
 * here: kafkajs asks when it opens its first authenticated connection.
 *
 * - `scram`: a kafkajs `Mechanism` whose authenticator reads the secret (once, then cached) and
 *   runs kafkajs' own SCRAM exchange with it. A missing or malformed secret fails with a
 *   {@link ConfigError} naming the secret, never its value; a rejected login forgets the cached
 *   credentials so the next connection reads the secret again.
 * - `iam`: kafkajs' `oauthbearer` mechanism with a provider that reuses a token until a minute
 *   before it expires.
 *
 * @example
 * const sasl = kafkaSasl({ mode: 'iam' }, { readSecret, iamToken: mskIamTokenProvider(region) });
 * new KafkaJsClientFactory({ brokers, ssl: true, ...(sasl === undefined ? {} : { sasl }) });
 */
export function kafkaSasl(
  settings: KafkaAuthSettings,
  deps: KafkaAuthDeps,
): KafkaConfig['sasl'] | undefined {
  switch (settings.mode) {
    case 'none':
      return undefined;
    case 'scram':
      return scramMechanism(settings.mechanism, settings.secretArn, deps.readSecret);
    case 'iam':
      return {
        mechanism: 'oauthbearer',
        oauthBearerProvider: iamTokenProvider(deps.iamToken, deps.now ?? Date.now),
      };
  }
}

function scramMechanism(
  mechanism: ScramMechanism,
  secretArn: string,
  readSecret: KafkaAuthDeps['readSecret'],
): Mechanism {
  const builtin = mechanism === 'scram-sha-512' ? scram512 : scram256;
  let credentials: Promise<ScramCredentials> | undefined;
  const load = (): Promise<ScramCredentials> => {
    if (credentials === undefined) {
      const pending = readSecret(secretArn).then((value) => parseScramSecret(secretArn, value));
      credentials = pending;
      // A failed read is not cached: the next connection tries again.
      pending.catch(() => {
        if (credentials === pending) credentials = undefined;
      });
    }
    return credentials;
  };
  return {
    mechanism,
    authenticationProvider: (args): Authenticator => ({
      authenticate: async () => {
        const { username, password } = await load();
        try {
          await builtin({ mechanism, username, password })(args).authenticate();
        } catch (error) {
          if ((error as { name?: unknown }).name === 'KafkaJSSASLAuthenticationError') {
            credentials = undefined;
          }
          throw error;
        }
      },
    }),
  };
}

/** `{"username": ..., "password": ...}`, both non-empty strings. */
export function parseScramSecret(secretArn: string, value: string | undefined): ScramCredentials {
  if (value === undefined) {
    throw new ConfigError(
      `The SASL/SCRAM secret ${secretArn} (${SECRET_KEY}) does not exist or holds no string value`,
      SECRET_KEY,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  const { username, password } = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as {
    username?: unknown;
    password?: unknown;
  };
  if (typeof username !== 'string' || username === '' || typeof password !== 'string') {
    throw new ConfigError(
      `The SASL/SCRAM secret ${secretArn} (${SECRET_KEY}) must hold JSON {"username": "...", "password": "..."}`,
      SECRET_KEY,
    );
  }
  return { username, password };
}

function iamTokenProvider(
  sign: KafkaAuthDeps['iamToken'],
  now: () => number,
): () => Promise<OauthbearerProviderResponse> {
  let current: MskIamToken | undefined;
  return async () => {
    if (current === undefined || current.expiryTime - IAM_TOKEN_REFRESH_MARGIN_MS <= now()) {
      try {
        current = await sign();
      } catch (error) {
        if (error instanceof ConnectError) throw error;
        // Usually the credentials could not be fetched: worth another try.
        const reason = error instanceof Error ? error.message : String(error);
        throw new RetriableError(`MSK IAM: signing an auth token failed: ${reason}`, {
          cause: error,
        });
      }
    }
    return { value: current.token };
  };
}
