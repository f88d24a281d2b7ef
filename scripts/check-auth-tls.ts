/**
 * The TLS part of `npm run check:auth`, run by scripts/check-auth.ts as a child process because
 * Node reads `NODE_EXTRA_CA_CERTS` only when a process starts. The Kafka clients are the
 * functions' own: `compose(readEnv(env))` (functions/_compose.ts, functions/_env.ts) with the
 * environment a deployed function would get: `KAFKA_BROKERS` (a SASL_SSL listener),
 * `KAFKA_AUTH=scram`, `KAFKA_SSL=true`, `KAFKA_SASL_MECHANISM`, `KAFKA_SASL_SECRET_ARN` (read
 * from a local Secrets Manager stand-in at `AWS_ENDPOINT_URL_SECRETS_MANAGER`).
 *
 * `trusted` (run with `NODE_EXTRA_CA_CERTS` naming the broker's CA): per SCRAM mechanism, a topic
 * created, a transaction committed and read back read_committed, and a wrong password refused,
 * all over TLS. `untrusted` (run without it): the connection is refused for its certificate.
 * Prints one line per check; exits non-zero on the first failure.
 */
import { compose } from '../functions/_compose.js';
import { readEnv } from '../functions/_env.js';
import type { ScramMechanism } from '../shared/adapters/kafkajs/auth.js';
import { refusedConnect, roundTrip, SECRET_ARN, WRONG_SECRET_ARN } from './check-auth-steps.js';

/** The functions' composition for `mechanism`, reading the secret `secretArn`. */
function functionClients(mechanism: ScramMechanism, secretArn: string) {
  return compose(
    readEnv({
      ...process.env,
      KAFKA_AUTH: 'scram',
      KAFKA_SSL: 'true',
      KAFKA_SASL_MECHANISM: mechanism,
      KAFKA_SASL_SECRET_ARN: secretArn,
    }),
  );
}

async function trusted(): Promise<void> {
  for (const mechanism of ['scram-sha-256', 'scram-sha-512'] as const) {
    const good = functionClients(mechanism, SECRET_ARN);
    try {
      await roundTrip(good.kafka, `tls-${mechanism}`);
    } finally {
      await good.close();
    }
    const wrong = functionClients(mechanism, WRONG_SECRET_ARN);
    let refused: string;
    try {
      refused = await refusedConnect(
        wrong.kafka,
        `tls-${mechanism}`,
        `a wrong ${mechanism} password was accepted over SASL_SSL`,
      );
    } finally {
      await wrong.close();
    }
    if (!/authentication failed/i.test(refused)) {
      throw new Error(`the wrong ${mechanism} password was refused, but not by SASL: ${refused}`);
    }
    console.log(
      `tls ${mechanism}: topic created, transaction committed and read back over SASL_SSL; wrong password refused (${refused})`,
    );
  }
}

async function untrusted(): Promise<void> {
  const clients = functionClients('scram-sha-512', SECRET_ARN);
  // The worker's admin client settings (TLS included), without retries: a refused certificate
  // is a retriable connection error to kafkajs, and retrying it only takes time.
  const admin = clients.kafka.admin({ retry: { retries: 0 } });
  let refused: string | undefined;
  try {
    await admin.listTopics();
  } catch (error) {
    refused = error instanceof Error ? error.message : String(error);
  } finally {
    await admin.close();
    await clients.close();
  }
  if (refused === undefined) {
    throw new Error('a client that does not trust the CA connected over SASL_SSL');
  }
  if (!/certificate/i.test(refused)) {
    throw new Error(
      `the client without the CA was refused, but not for the certificate: ${refused}`,
    );
  }
  console.log(`tls without the CA: refused (${refused})`);
}

const mode = process.argv[2];
try {
  if (mode === 'trusted') await trusted();
  else if (mode === 'untrusted') await untrusted();
  else throw new Error(`usage: check-auth-tls.ts trusted|untrusted (got ${mode})`);
} catch (error) {
  console.error(error);
  console.log(`tls ${mode}: FAILED (${error instanceof Error ? error.message : String(error)})`);
  process.exitCode = 1;
}
