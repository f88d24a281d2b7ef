import type { Consumer } from 'kafkajs';
import { Kafka, logLevel } from 'kafkajs';
import { apiHandler } from '../functions/api/handler.js';
import { sinkTaskHandler } from '../functions/sink-task/handler.js';
import { chunksOf, toEsmSourceRecord } from '../local/esm/kafkajs-records.js';
import { localLambdaContext } from '../local/esm/lambda-context.js';
import { type EsmSourceRecord, toEsmEvent } from '../shared/adapters/lambda/esm-event.js';
import type { Engine } from '../shared/engine/engine.js';
import type { Clock } from '../shared/ports/clock.js';
import type { Metering } from '../shared/runtime/metering/metering.js';
import { sinkFunctionAlias } from '../shared/runtime/sink/function-alias.js';
import { proxyEvent } from '../test/support/lambda-function.js';

/**
 * The rest of docs/deploy.md's small workload beside the idle-floor schedule (idle-floor.bench.ts):
 * the S3 sink fed as Lambda's Kafka event source mapping feeds it, and the REST calls. Both go
 * through the functions' handlers (`sinkTaskHandler`, `apiHandler`), so each invocation is
 * metered as the deployed function's is, by the metering of the function's own container.
 */

/** The mapping's batch size (the CDK construct's default). */
export const SINK_BATCH = 500;

/** Billed time of the invocations of one function, for splitting the compute line. */
export interface FunctionTime {
  invocations: number;
  ms: number;
}

/**
 * The sink-task function behind its mapping: a read_committed consumer of `topic` from the
 * beginning (as the mapping reads it) and, on {@link SinkFeeder.feed}, the records the source
 * delivered delivered to the handler in batches of {@link SINK_BATCH}, each through the
 * connector's alias.
 */
export class SinkFeeder {
  readonly time: FunctionTime = { invocations: 0, ms: 0 };
  readonly #consumer: Consumer;
  readonly #received: EsmSourceRecord[] = [];
  readonly #handler: ReturnType<typeof sinkTaskHandler>;
  readonly #alias: string;
  readonly #clock: Clock;
  #fed = 0;

  private constructor(
    engine: Engine,
    metering: Metering,
    brokers: string[],
    connector: string,
    clock: Clock,
  ) {
    const kafka = new Kafka({
      brokers,
      clientId: 'idle-floor-mapping',
      logLevel: logLevel.NOTHING,
    });
    this.#consumer = kafka.consumer({ groupId: `${connector}-mapping`, maxWaitTimeInMs: 100 });
    this.#handler = sinkTaskHandler(() => ({
      sink: engine.sink,
      loggers: engine.loggers,
      metering,
    }));
    this.#alias = sinkFunctionAlias(connector);
    this.#clock = clock;
  }

  static async start(
    engine: Engine,
    metering: Metering,
    brokers: string[],
    topic: string,
    connector: string,
    clock: Clock,
  ): Promise<SinkFeeder> {
    const feeder = new SinkFeeder(engine, metering, brokers, connector, clock);
    await feeder.#consumer.connect();
    await feeder.#consumer.subscribe({ topic, fromBeginning: true });
    await feeder.#consumer.run({
      eachMessage: async ({ partition, message }) => {
        feeder.#received.push(toEsmSourceRecord(topic, partition, message));
      },
    });
    return feeder;
  }

  /** Waits for the topic's first `total` records, then runs the batches of those not fed yet. */
  async feed(total: number): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (this.#received.length < total) {
      if (Date.now() > deadline) {
        throw new Error(`the sink's mapping read ${this.#received.length} of ${total} records`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const fresh = this.#received.slice(this.#fed, total);
    this.#fed = total;
    for (const batch of chunksOf(fresh, SINK_BATCH)) {
      const event = JSON.parse(JSON.stringify(toEsmEvent(batch)));
      const started = this.#clock.now();
      await this.#handler(event, localLambdaContext({ alias: this.#alias, timeoutMs: 60_000 }));
      this.time.invocations += 1;
      this.time.ms += this.#clock.now() - started;
    }
  }

  async close(): Promise<void> {
    await this.#consumer.disconnect();
  }
}

/**
 * The REST calls of the workload: `perTick` calls a scheduled minute on average (10,000 a month:
 * 0.228), each through the api function's handler: the status of either connector, or the list
 * (a call naming no connector: the shared line's), in turn.
 */
export class RestCaller {
  readonly time: FunctionTime = { invocations: 0, ms: 0 };
  readonly #handler: ReturnType<typeof apiHandler>;
  readonly #paths: readonly string[];
  readonly #perTick: number;
  readonly #clock: Clock;

  constructor(
    engine: Engine,
    metering: Metering,
    connectors: readonly string[],
    perTick: number,
    clock: Clock,
  ) {
    // The engine as the api function's container has it: its own metering.
    const container: Engine = Object.create(engine, { metering: { value: metering } });
    this.#handler = apiHandler(() => container);
    this.#paths = [
      ...connectors.map((c) => `/connectors/${encodeURIComponent(c)}/status`),
      '/connectors',
    ];
    this.#perTick = perTick;
    this.#clock = clock;
  }

  /** The calls due in scheduled minute `tick` (a call whenever the running total passes one). */
  async tick(tick: number): Promise<void> {
    const due = Math.floor((tick + 1) * this.#perTick) - Math.floor(tick * this.#perTick);
    for (let i = 0; i < due; i += 1) {
      const path = this.#paths[this.time.invocations % this.#paths.length] ?? '/connectors';
      const started = this.#clock.now();
      const response = await this.#handler(
        proxyEvent('GET', path),
        localLambdaContext({ functionName: 'api', timeoutMs: 30_000 }),
      );
      this.time.invocations += 1;
      this.time.ms += this.#clock.now() - started;
      if (response.statusCode !== 200) {
        throw new Error(`GET ${path} answered ${response.statusCode}: ${response.body}`);
      }
    }
  }
}
