/**
 * The HTTP sink task: POSTs the records of each `put` to the endpoint, in batches of one
 * topic-partition, each with an Idempotency-Key naming its first and last offset.
 */
import {
  ConnectError,
  DataError,
  IllegalStateError,
  type SinkRecord,
  SinkTask,
  type SinkTaskContext,
} from 'serverless-connect/connect';
import { type HttpSinkDeps, postWithRetries, safeUrl } from './http-client.js';
import { HTTP_SINK_VERSION, type HttpSinkConfig, parseHttpSinkConfig } from './http-sink-config.js';
import { jsonValue } from './json-value.js';

interface Running {
  readonly config: HttpSinkConfig;
  readonly context: SinkTaskContext;
}

/**
 * `<topic>-<partition>-<firstOffset>-<lastOffset>`, from the coordinates the records were
 * consumed at (before any transformation), so the same records redelivered carry the same key.
 */
export function idempotencyKey(batch: readonly SinkRecord[]): string {
  const first = batch[0];
  const last = batch.at(-1);
  if (first === undefined || last === undefined) throw new IllegalStateError('An empty batch');
  return `${first.originalTopic}-${first.originalKafkaPartition}-${first.originalKafkaOffset}-${last.originalKafkaOffset}`;
}

/** The records in batches of at most `max`, each of one topic-partition, in offset order. */
export function batchesOf(records: readonly SinkRecord[], max: number): SinkRecord[][] {
  const byPartition = new Map<string, SinkRecord[]>();
  for (const record of records) {
    const tp = `${record.originalTopic}\u0000${record.originalKafkaPartition}`;
    const list = byPartition.get(tp) ?? [];
    list.push(record);
    byPartition.set(tp, list);
  }
  const batches: SinkRecord[][] = [];
  for (const list of byPartition.values()) {
    for (let i = 0; i < list.length; i += max) batches.push(list.slice(i, i + max));
  }
  return batches;
}

/** The request body: `{"records":[{topic,partition,offset,key,value,headers,timestamp}]}`. */
export function requestBody(batch: readonly SinkRecord[]): string {
  return JSON.stringify({
    records: batch.map((r) => ({
      topic: r.topic,
      partition: r.kafkaPartition,
      offset: r.kafkaOffset,
      key: jsonValue(r.key),
      value: jsonValue(r.value),
      headers: [...r.headers].map((h) => ({ key: h.key, value: jsonValue(h.value) })),
      timestamp: r.timestamp,
    })),
  });
}

/**
 * Writes records to an HTTP endpoint.
 *
 * - Everything given to `put` is POSTed before `put` resolves, so `preCommit` returns the
 *   offsets as given (the default).
 * - Network errors, timeouts, 408, 429 and 5xx are retried (see `http-client.ts`); when the
 *   attempts run out, `put` rejects with RetriableError and the runtime redelivers the batch.
 * - Any other non-2xx answer rejects the batch's records: each goes to the errant record
 *   reporter when there is one (`errors.tolerance=all`, a DLQ), else `put` fails with a
 *   DataError naming the status and the endpoint's message (never a secret).
 *
 * @example
 * const task = new HttpSinkTask(systemHttpSinkDeps());
 * await task.start({ 'http.url': 'https://hooks.example.com/orders' }, context);
 * await task.put(records);
 */
export class HttpSinkTask extends SinkTask {
  readonly #deps: HttpSinkDeps;
  #running: Running | null = null;

  constructor(deps: HttpSinkDeps) {
    super();
    this.#deps = deps;
  }

  version(): string {
    return HTTP_SINK_VERSION;
  }

  /** Parses the config (ConfigError when invalid). No I/O. */
  async start(props: Readonly<Record<string, string>>, context: SinkTaskContext): Promise<void> {
    this.#running = { config: parseHttpSinkConfig(props), context };
  }

  async put(records: readonly SinkRecord[]): Promise<void> {
    const running = this.#running;
    if (running === null) throw new IllegalStateError('The HTTP sink task is not started');
    for (const batch of batchesOf(records, running.config.batchMaxRecords)) {
      await this.#send(running, batch);
    }
  }

  async stop(): Promise<void> {
    this.#running = null;
  }

  async #send({ config, context }: Running, batch: readonly SinkRecord[]): Promise<void> {
    const key = idempotencyKey(batch);
    const headers: Record<string, string> = {
      ...Object.fromEntries(config.headers),
      'content-type': 'application/json',
      'idempotency-key': key,
      ...(config.authToken === null ? {} : { authorization: `Bearer ${config.authToken}` }),
    };
    const rejection = await postWithRetries(config, this.#deps, headers, requestBody(batch));
    if (rejection === null) return;
    const error = new DataError(
      `HTTP sink: POST ${safeUrl(config.url)} rejected batch ${key}: ${rejection.message}`,
    );
    const reporter = context.errantRecordReporter;
    if (reporter === null) throw error;
    for (const record of batch) {
      await reporter.report(record, error).catch((cause: unknown) => {
        throw cause instanceof ConnectError ? cause : new ConnectError(error.message, { cause });
      });
    }
  }
}
