/**
 * A local HTTP endpoint for the example's tests: records every request, answers from a script
 * of statuses (then 200), and keeps the records of accepted requests, once per Idempotency-Key.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  readonly headers: IncomingHttpHeaders;
  readonly body: { records: Record<string, unknown>[] };
}

export interface Answer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

export interface TestEndpoint {
  readonly url: string;
  /** Every request, in arrival order (retries included). */
  readonly requests: ReceivedRequest[];
  /** The records of the accepted requests, a key's batch stored once. */
  readonly accepted: Map<string, Record<string, unknown>[]>;
  /** The records of the accepted requests by `topic-partition-offset`: an upsert per record. */
  readonly upserted: Map<string, Record<string, unknown>>;
  /** Answers for the next requests, in order; 200 when empty. */
  readonly script: Answer[];
  close(): Promise<void>;
}

export async function startTestEndpoint(): Promise<TestEndpoint> {
  const requests: ReceivedRequest[] = [];
  const accepted = new Map<string, Record<string, unknown>[]>();
  const upserted = new Map<string, Record<string, unknown>>();
  const script: Answer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      requests.push({ headers: req.headers, body });
      const answer = script.shift() ?? { status: 200 };
      const key = req.headers['idempotency-key'];
      if (answer.status < 300 && typeof key === 'string' && !accepted.has(key)) {
        accepted.set(key, body.records);
      }
      if (answer.status < 300) {
        for (const r of body.records) upserted.set(`${r.topic}-${r.partition}-${r.offset}`, r);
      }
      res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/ingest`,
    requests,
    accepted,
    upserted,
    script,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
