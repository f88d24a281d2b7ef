/**
 * `npm run check:auth`: the worker's SASL/SCRAM login (shared/adapters/kafkajs/auth.ts, what
 * `KAFKA_AUTH=scram` builds from a Secrets Manager secret) against a real broker. Starts a
 * second pinned broker, in a fresh folder of its own, with a SASL_PLAINTEXT listener taking
 * SCRAM-SHA-256 and SCRAM-SHA-512 (scripts/kafka/start.sh with KAFKA_SASL_PORT), then per
 * mechanism: creates a topic through the admin client, commits a transaction through the
 * transactional producer and reads its record back read_committed, all over SASL; and checks
 * that a wrong password is refused. Stops and deletes that broker at the end.
 *
 * Last line `scram: ok …`, or `scram: FAILED …` with a non-zero exit.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { logLevel } from 'kafkajs';
import { kafkaSasl, type ScramMechanism } from '../shared/adapters/kafkajs/auth.js';
import { KafkaJsClientFactory } from '../shared/adapters/kafkajs/client.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const USER = 'connect-check';
const PASSWORD = 'connect-check-secret';
const SECRET_ARN = 'arn:aws:secretsmanager:local:000000000000:secret:AmazonMSK_check';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

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

/** Creates a topic, commits one record, and tells whether read_committed readers see it. */
async function roundTrip(broker: string, mechanism: ScramMechanism): Promise<void> {
  const clients = scramClients(broker, mechanism, PASSWORD);
  const admin = clients.admin();
  const topic = `check-auth-${mechanism}`;
  await admin.createTopics([{ topic, partitions: 1 }]);
  const producer = clients.transactionalProducer(`check-auth-${mechanism}`);
  try {
    await producer.connect();
    const tx = await producer.begin();
    const [position] = await tx.send([
      { topic, key: null, value: new TextEncoder().encode(`over ${mechanism}`) },
    ]);
    await tx.commit();
    if (position === undefined) throw new Error('the send returned no position');
    // As recovery does: the fate is `open` until the partition's stable offset passes it.
    let fate = await admin.transactionalRecordFate(position);
    for (let attempt = 0; fate === 'open' && attempt < 50; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      fate = await admin.transactionalRecordFate(position);
    }
    if (fate !== 'committed') throw new Error(`the committed record reads as ${fate}`);
  } finally {
    await producer.close();
  }
}

/** Resolves the error a login with a wrong password fails with; throws if it succeeds. */
async function refusedLogin(broker: string, mechanism: ScramMechanism): Promise<string> {
  const producer = scramClients(broker, mechanism, `${PASSWORD}-wrong`).transactionalProducer(
    `check-auth-refused-${mechanism}`,
  );
  try {
    await producer.connect();
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await producer.close();
  }
  throw new Error(`a wrong ${mechanism} password was accepted`);
}

async function main(): Promise<number> {
  const home = await mkdtemp(join(tmpdir(), 'sc-kafka-sasl-'));
  const [port, controller, saslPort] = [await freePort(), await freePort(), await freePort()];
  // The project's broker jars (fetched once, as for the test broker), this broker's own data.
  const { stdout: lib } = await run('bash', [
    '-c',
    `source "${root}scripts/kafka/common.sh" && echo "$KAFKA_LIB_DIR"`,
  ]);
  const env = {
    ...process.env,
    KAFKA_HOME_DIR: home,
    KAFKA_LIB_DIR: lib.trim(),
    KAFKA_PORT: String(port),
    KAFKA_CONTROLLER_PORT: String(controller),
    KAFKA_SASL_PORT: String(saslPort),
    KAFKA_SCRAM_USER: USER,
    KAFKA_SCRAM_PASSWORD: PASSWORD,
    KAFKA_HEAP: '512m',
  };
  const started = Date.now();
  try {
    await run('bash', [`${root}scripts/kafka/start.sh`], { env });
    const broker = `127.0.0.1:${saslPort}`;
    for (const mechanism of ['scram-sha-256', 'scram-sha-512'] as const) {
      await roundTrip(broker, mechanism);
      const refused = await refusedLogin(broker, mechanism);
      console.log(
        `${mechanism}: topic created, transaction committed and read back; wrong password refused (${refused})`,
      );
    }
    console.log(`seconds=${Math.round((Date.now() - started) / 1000)}`);
    console.log('scram: ok (SCRAM-SHA-256 and SCRAM-SHA-512 over SASL_PLAINTEXT)');
    return 0;
  } catch (error) {
    console.error(error);
    console.log(`scram: FAILED (${error instanceof Error ? error.message : String(error)})`);
    return 1;
  } finally {
    await run('bash', [`${root}scripts/kafka/stop.sh`, '--wipe'], { env }).catch(() => undefined);
    await rm(home, { recursive: true, force: true });
  }
}

process.exitCode = await main();
