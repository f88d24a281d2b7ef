/**
 * The steps `npm run check:auth` runs against its SASL broker, shared by its SCRAM part
 * (scripts/check-auth.ts) and its TLS part (scripts/check-auth-tls.ts, a child process).
 */
import { createServer as createHttpServer } from 'node:http';
import type { KafkaClientFactory } from '../shared/ports/kafka.js';

/** The SCRAM user the broker stores, and its password. */
export const USER = 'connect-check';
export const PASSWORD = 'connect-check-secret';
/** The secret holding USER and PASSWORD, and one holding a wrong password. */
export const SECRET_ARN = 'arn:aws:secretsmanager:local:000000000000:secret:AmazonMSK_check';
export const WRONG_SECRET_ARN =
  'arn:aws:secretsmanager:local:000000000000:secret:AmazonMSK_check_wrong';

/**
 * Creates the topic `check-auth-<name>` through the admin client, commits one record to it
 * through the transactional producer `check-auth-<name>`, and checks that read_committed
 * readers see it (as recovery decides a record's fate).
 */
export async function roundTrip(clients: KafkaClientFactory, name: string): Promise<void> {
  const admin = clients.admin();
  const topic = `check-auth-${name}`;
  const producer = clients.transactionalProducer(`check-auth-${name}`);
  try {
    await admin.createTopics([{ topic, partitions: 1 }]);
    await producer.connect();
    const tx = await producer.begin();
    const [position] = await tx.send([
      { topic, key: null, value: new TextEncoder().encode(`check-auth ${name}`) },
    ]);
    await tx.commit();
    if (position === undefined) throw new Error('the send returned no position');
    // The fate is `open` until the partition's stable offset passes it.
    let fate = await admin.transactionalRecordFate(position);
    for (let attempt = 0; fate === 'open' && attempt < 50; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      fate = await admin.transactionalRecordFate(position);
    }
    if (fate !== 'committed') throw new Error(`the committed record reads as ${fate}`);
  } finally {
    await producer.close();
    await admin.close();
  }
}

/**
 * Resolves the error that connecting the transactional producer `check-auth-refused-<name>`
 * fails with; throws `accepted` if it connects.
 */
export async function refusedConnect(
  clients: KafkaClientFactory,
  name: string,
  accepted: string,
): Promise<string> {
  const producer = clients.transactionalProducer(`check-auth-refused-${name}`);
  try {
    await producer.connect();
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await producer.close();
  }
  throw new Error(accepted);
}

/** A local stand-in for Secrets Manager's GetSecretValue (the AWS JSON 1.1 protocol). */
export interface FakeSecretsManager {
  /** For `AWS_ENDPOINT_URL_SECRETS_MANAGER`. */
  readonly endpoint: string;
  /** How many times each secret was read. */
  readonly reads: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

/** Serves `secrets` (ARN → secret string) on a free loopback port; other ids are not found. */
export async function fakeSecretsManager(
  secrets: ReadonlyMap<string, string>,
): Promise<FakeSecretsManager> {
  const reads = new Map<string, number>();
  const server = createHttpServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const reply = (status: number, payload: object, type?: string) => {
        response.writeHead(status, {
          'content-type': 'application/x-amz-json-1.1',
          ...(type === undefined ? {} : { 'x-amzn-errortype': type }),
        });
        response.end(JSON.stringify(payload));
      };
      let secretId: unknown;
      try {
        secretId = (JSON.parse(body) as { SecretId?: unknown }).SecretId;
      } catch {
        secretId = undefined;
      }
      const value = typeof secretId === 'string' ? secrets.get(secretId) : undefined;
      if (request.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue') {
        reply(400, { __type: 'UnknownOperationException' }, 'UnknownOperationException');
      } else if (typeof secretId !== 'string' || value === undefined) {
        const message = "Secrets Manager can't find the specified secret.";
        reply(400, { __type: 'ResourceNotFoundException', message }, 'ResourceNotFoundException');
      } else {
        reads.set(secretId, (reads.get(secretId) ?? 0) + 1);
        reply(200, { ARN: secretId, Name: secretId.split(':').pop(), SecretString: value });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    reads,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
