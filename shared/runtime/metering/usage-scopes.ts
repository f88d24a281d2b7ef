/**
 * Where a usage report belongs: the invocation it was made in, found through the async context
 * (AsyncLocalStorage), so invocations running at once in one process (the local runtime) keep
 * their own meters, and adapters report without knowing any invocation.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock } from '../../ports/clock.js';
import type { S3PriceClass, Usage, UsageOwner, UsageRecorder } from '../../ports/metering.js';
import type { InvocationMeter, UsageLedger } from './invocation-meter.js';

/** What the runtime reports of the Kafka traffic of an invocation. */
export interface KafkaTraffic {
  readonly recordsIn?: number;
  readonly bytesIn?: number;
  readonly recordsOut?: number;
  readonly bytesOut?: number;
}

/**
 * What the runtime tells the metering: whose work an invocation (or a part of it) is, and its
 * Kafka traffic. Outside a metered invocation every method does nothing (runs `work` as is).
 */
export interface UsageAttribution {
  /**
   * The whole current invocation works for `connector` (a task's, a REST call's), or, with
   * `undefined`, for the shared line after all (a REST call about a connector that does not exist).
   */
  assign(connector: string | undefined): void;
  /** Runs `work` as work for `connector`: its time and requests are the connector's. */
  attribute<T>(connector: string, work: () => Promise<T>): Promise<T>;
  /** Records and bytes the current invocation moved through Kafka. */
  kafka(traffic: KafkaTraffic): void;
}

/** An attribution that meters nothing. */
export const noUsageAttribution: UsageAttribution = {
  assign: () => {},
  attribute: (_connector, work) => work(),
  kafka: () => {},
};

type Frame =
  | { readonly kind: 'invocation'; readonly meter: InvocationMeter; readonly span: UsageOwner }
  | { readonly kind: 'carry'; readonly into: UsageLedger; readonly owner: UsageOwner };

/**
 * The metering's async context, one per process or Lambda container (the composition root makes
 * it and gives it to the state store's adapter, the S3 clients and the engine). It is the
 * adapters' {@link UsageRecorder} and the runtime's {@link UsageAttribution}. Reports made while
 * the metering writes usage (its own requests) go to the ledger the metering gives
 * ({@link UsageScopes.carrying}): its container's carry, added to its next write.
 */
export class UsageScopes implements UsageRecorder, UsageAttribution {
  readonly #storage = new AsyncLocalStorage<Frame>();
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Runs `work` as the invocation `meter` measures. */
  within<T>(meter: InvocationMeter, work: () => Promise<T>): Promise<T> {
    return this.#storage.run({ kind: 'invocation', meter, span: undefined }, work);
  }

  /** Runs `work` (the metering's own write for `owner`) with its reports added to `into` as `owner`'s. */
  carrying<T>(into: UsageLedger, owner: UsageOwner, work: () => Promise<T>): Promise<T> {
    return this.#storage.run({ kind: 'carry', into, owner }, work);
  }

  assign(connector: string | undefined): void {
    const frame = this.#storage.getStore();
    if (frame?.kind === 'invocation') frame.meter.assign(connector);
  }

  async attribute<T>(connector: string, work: () => Promise<T>): Promise<T> {
    const frame = this.#storage.getStore();
    if (frame?.kind !== 'invocation') return work();
    const started = this.#clock.now();
    try {
      return await this.#storage.run({ ...frame, span: connector }, work);
    } finally {
      frame.meter.span(connector, this.#clock.now() - started);
    }
  }

  kafka(traffic: KafkaTraffic): void {
    this.#record({
      kafkaRecordsIn: traffic.recordsIn ?? 0,
      kafkaBytesIn: traffic.bytesIn ?? 0,
      kafkaRecordsOut: traffic.recordsOut ?? 0,
      kafkaBytesOut: traffic.bytesOut ?? 0,
    });
  }

  dynamoRequest(request: { readonly kind: 'read' | 'write'; readonly units: number }): void {
    this.#record(
      request.kind === 'read'
        ? { dynamoReads: 1, dynamoReadUnits: request.units }
        : { dynamoWrites: 1, dynamoWriteUnits: request.units },
    );
  }

  s3Request(priceClass: S3PriceClass): void {
    if (priceClass === 'tier1') this.#record({ s3Tier1Requests: 1 });
    else if (priceClass === 'tier2') this.#record({ s3Tier2Requests: 1 });
  }

  #record(usage: Partial<Usage>): void {
    const frame = this.#storage.getStore();
    if (frame === undefined) return;
    if (frame.kind === 'carry') frame.into.add(frame.owner, usage);
    else frame.meter.record(frame.span, usage);
  }
}
