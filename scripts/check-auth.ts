/**
 * `npm run check:auth`: the worker's SASL/SCRAM login (shared/adapters/kafkajs/auth.ts, what
 * `KAFKA_AUTH=scram` builds from a Secrets Manager secret) against a real broker, in plaintext
 * and over TLS. Starts a second pinned broker, in a fresh folder of its own, with a
 * SASL_PLAINTEXT and a SASL_SSL listener taking SCRAM-SHA-256 and SCRAM-SHA-512
 * (scripts/kafka/start.sh with KAFKA_SASL_PORT and KAFKA_SASL_SSL_PORT; the SASL_SSL certificate
 * is signed by a throwaway CA, written to <broker folder>/tls/ca.pem).
 *
 * SCRAM, over SASL_PLAINTEXT, per mechanism: creates a topic through the admin client, commits a
 * transaction through the transactional producer and reads its record back read_committed; and
 * checks that a wrong password is refused.
 *
 * TLS, over SASL_SSL (scripts/check-auth-tls.ts in child processes, with the functions' own
 * environment parsing and clients, `KAFKA_SSL=true`): the same checks by a process trusting the
 * CA through `NODE_EXTRA_CA_CERTS`, as a function reaching a cluster with a private CA would;
 * and a process without it refused for the broker's certificate.
 *
 * Stops and deletes that broker at the end. Prints `scram: ok …` then `tls: ok …`, or
 * `scram: FAILED …` / `tls: FAILED …` with a non-zero exit.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { logLevel } from 'kafkajs';
import { freePort } from '../local/services/free-port.js';
import { kafkaSasl, type ScramMechanism } from '../shared/adapters/kafkajs/auth.js';
import { KafkaJsClientFactory } from '../shared/adapters/kafkajs/client.js';
import {
  fakeSecretsManager,
  PASSWORD,
  refusedConnect,
  roundTrip,
  SECRET_ARN,
  USER,
  WRONG_SECRET_ARN,
} from './check-auth-steps.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));

/** The worker's client factory with `KAFKA_AUTH=scram`, its secret holding `password`. */
function scramClients(broker: string, mechanism: ScramMechanism, password: string) {
  const sasl = kafkaSasl(
    { mode: 'scram', mechanism, secretArn: SECRET_ARN },
    {
      readSecret: async () => JSON.stringify({ username: USER, password }),
      iamToken: async () => {
        throw new Error('MSK IAM is not used here');
      },
    },
  );
  return new KafkaJsClientFactory({
    brokers: [broker],
    clientId: 'check-auth',
    logLevel: logLevel.NOTHING,
    ...(sasl === undefined ? {} : { sasl }),
  });
}

async function scram(broker: string): Promise<void> {
  for (const mechanism of ['scram-sha-256', 'scram-sha-512'] as const) {
    await roundTrip(scramClients(broker, mechanism, PASSWORD), mechanism);
    const refused = await refusedConnect(
      scramClients(broker, mechanism, `${PASSWORD}-wrong`),
      mechanism,
      `a wrong ${mechanism} password was accepted`,
    );
    console.log(
      `${mechanism}: topic created, transaction committed and read back; wrong password refused (${refused})`,
    );
  }
}

/**
 * Runs scripts/check-auth-tls.ts `mode` in a child process with the functions' environment
 * `env`, printing its result lines; its other output (kafkajs logs) only when it fails.
 */
async function tlsChild(mode: 'trusted' | 'untrusted', env: NodeJS.ProcessEnv): Promise<void> {
  try {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', `${root}scripts/check-auth-tls.ts`, mode],
      { cwd: root, env, timeout: 120_000 },
    );
    process.stdout.write(stdout);
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    process.stderr.write(stderr ?? '');
    process.stdout.write(stdout ?? '');
    const failed = stdout?.split('\n').find((line) => line.includes(': FAILED ('));
    throw new Error(`the ${mode} TLS client failed: ${failed ?? (error as Error).message}`);
  }
}

async function tls(broker: string, ca: string): Promise<void> {
  const secrets = await fakeSecretsManager(
    new Map([
      [SECRET_ARN, JSON.stringify({ username: USER, password: PASSWORD })],
      [WRONG_SECRET_ARN, JSON.stringify({ username: USER, password: `${PASSWORD}-wrong` })],
    ]),
  );
  try {
    const { NODE_EXTRA_CA_CERTS: _inherited, ...inherited } = process.env;
    // What a deployed function would be given; STATE_TABLE is required but never reached.
    const env: NodeJS.ProcessEnv = {
      ...inherited,
      KAFKA_BROKERS: broker,
      STATE_TABLE: 'check-auth',
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
      AWS_ACCESS_KEY_ID: 'check-auth',
      AWS_SECRET_ACCESS_KEY: 'check-auth',
      KAFKAJS_NO_PARTITIONER_WARNING: '1',
    };
    delete env.AWS_SESSION_TOKEN;
    delete env.AWS_PROFILE;
    await tlsChild('trusted', { ...env, NODE_EXTRA_CA_CERTS: ca });
    if ((secrets.reads.get(SECRET_ARN) ?? 0) === 0) {
      throw new Error('the functions did not read the SCRAM secret from Secrets Manager');
    }
    await tlsChild('untrusted', env);
  } finally {
    await secrets.close();
  }
}

async function main(): Promise<number> {
  const home = await mkdtemp(join(tmpdir(), 'sc-kafka-sasl-'));
  const ports = [await freePort(), await freePort(), await freePort(), await freePort()];
  const [port, controller, saslPort, saslSslPort] = ports.map(String);
  // The project's broker jars (fetched once, as for the test broker), this broker's own data.
  const { stdout: lib } = await run('bash', [
    '-c',
    `source "${root}scripts/kafka/common.sh" && echo "$KAFKA_LIB_DIR"`,
  ]);
  const env = {
    ...process.env,
    KAFKA_HOME_DIR: home,
    KAFKA_LIB_DIR: lib.trim(),
    KAFKA_PORT: port,
    KAFKA_CONTROLLER_PORT: controller,
    KAFKA_SASL_PORT: saslPort,
    KAFKA_SASL_SSL_PORT: saslSslPort,
    KAFKA_SCRAM_USER: USER,
    KAFKA_SCRAM_PASSWORD: PASSWORD,
    KAFKA_HEAP: '512m',
  };
  const started = Date.now();
  let part = 'scram';
  try {
    await run('bash', [`${root}scripts/kafka/start.sh`], { env });
    await scram(`127.0.0.1:${saslPort}`);
    console.log('scram: ok (SCRAM-SHA-256 and SCRAM-SHA-512 over SASL_PLAINTEXT)');
    part = 'tls';
    await tls(`127.0.0.1:${saslSslPort}`, join(home, 'tls', 'ca.pem'));
    console.log(
      `tls: ok (SCRAM-SHA-256 and SCRAM-SHA-512 over SASL_SSL with KAFKA_SSL=true, the CA trusted through NODE_EXTRA_CA_CERTS; refused without it; ${Math.round((Date.now() - started) / 1000)} s in all)`,
    );
    return 0;
  } catch (error) {
    console.error(error);
    console.log(`${part}: FAILED (${error instanceof Error ? error.message : String(error)})`);
    return 1;
  } finally {
    await run('bash', [`${root}scripts/kafka/stop.sh`, '--wipe'], { env }).catch(() => undefined);
    await rm(home, { recursive: true, force: true });
  }
}

process.exitCode = await main();
