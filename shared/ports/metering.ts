/**
 * Metering (issue 25): what each invocation consumed, in the units AWS bills, aggregated per
 * connector and UTC hour in the state table. The runtime measures (shared/runtime/metering/),
 * adapters report the requests they make through a {@link UsageRecorder}, and the
 * {@link UsageStore} keeps the sums. Nothing here is on the record path: an invocation adds its
 * usage with at most one atomic write per connector when it ends.
 */

/**
 * What invocations consumed, as additive counters. Each is in the unit its price is quoted in
 * (docs/deploy.md, "Monthly cost"); a counter is fractional where one invocation served several
 * connectors (the enumerator) and was split between them.
 */
export interface Usage {
  /** Lambda invocations (Lambda's requests). */
  readonly invocations: number;
  /** Billed Lambda duration in ms, each invocation's rounded up to the millisecond. */
  readonly lambdaMs: number;
  /** Billed duration × configured memory, in MB·ms (GB-seconds × 1,024,000). */
  readonly lambdaMbMs: number;
  /** State store reads (GetItem, Query, BatchGetItem) and the read units DynamoDB reported. */
  readonly dynamoReads: number;
  readonly dynamoReadUnits: number;
  /** State store writes (PutItem, UpdateItem, DeleteItem, BatchWriteItem) and their write units. */
  readonly dynamoWrites: number;
  readonly dynamoWriteUnits: number;
  /** S3 PUT, COPY, POST and LIST requests (S3's first request price). */
  readonly s3Tier1Requests: number;
  /** S3 GET, HEAD and the other requests but DELETE (S3's second request price). */
  readonly s3Tier2Requests: number;
  /** REST calls through API Gateway (one per api function invocation). */
  readonly apiCalls: number;
  /** Records and bytes (keys, values, headers) a sink consumed from Kafka. */
  readonly kafkaRecordsIn: number;
  readonly kafkaBytesIn: number;
  /** Records and bytes a source produced to Kafka (committed or not). */
  readonly kafkaRecordsOut: number;
  readonly kafkaBytesOut: number;
}

/** The counters of {@link Usage}, in a fixed order (storage, arithmetic, tests). */
export const USAGE_COUNTERS = [
  'invocations',
  'lambdaMs',
  'lambdaMbMs',
  'dynamoReads',
  'dynamoReadUnits',
  'dynamoWrites',
  'dynamoWriteUnits',
  's3Tier1Requests',
  's3Tier2Requests',
  'apiCalls',
  'kafkaRecordsIn',
  'kafkaBytesIn',
  'kafkaRecordsOut',
  'kafkaBytesOut',
] as const satisfies readonly (keyof Usage)[];

/**
 * Whose usage: a connector's, or the deployment's shared line (`undefined`): work that served
 * no connector in particular (the enumerator's run outside any connector, REST calls that name
 * none, such as `GET /connectors`).
 */
export type UsageOwner = string | undefined;

/** One hour of an owner's usage. */
export interface HourlyUsage {
  /** The hour's start, epoch ms (a multiple of 3,600,000: UTC hours). */
  readonly hour: number;
  readonly usage: Usage;
}

/** The hours `[fromHour, toHour]`, both hour starts in epoch ms. */
export interface HourRange {
  readonly fromHour: number;
  readonly toHour: number;
}

/**
 * The hourly usage sums (in the state table: docs/adr/0002-state-table-layout.md).
 *
 * Contract:
 * - `addUsage` adds every counter of `usage` to the owner's hour with one atomic write (an
 *   `ADD`, never read-modify-write): concurrent adds from any number of containers all count.
 *   It rejects with `StateFormatError` when the stored sums were written by a newer format, and
 *   with a retriable error when the store is unavailable; the caller decides what to drop.
 * - `readUsage` returns the hours of `range` that have usage, ascending, one entry per hour
 *   (an adapter that spreads an hour over several items sums them). An owner without usage
 *   reads as `[]`. Usage outlives its connector: deleting a connector keeps what it consumed.
 */
export interface UsageStore {
  addUsage(owner: UsageOwner, hour: number, usage: Usage): Promise<void>;
  readUsage(owner: UsageOwner, range: HourRange): Promise<HourlyUsage[]>;
}

/** An S3 request's price class: tier 1 (PUT, COPY, POST, LIST), tier 2 (GET, other), free (DELETE). */
export type S3PriceClass = 'tier1' | 'tier2' | 'free';

/**
 * What adapters report of the billable requests they make: the metering's intake, implemented
 * by the runtime (`UsageScopes`), which adds each report to the invocation it belongs to.
 * Synchronous, never throws; a report made outside any invocation is dropped (no Lambda
 * invocation is billed for it either: the local runtime's own timers).
 */
export interface UsageRecorder {
  /** One state store request: a read or a write, and the capacity units DynamoDB reported. */
  dynamoRequest(request: { readonly kind: 'read' | 'write'; readonly units: number }): void;
  /** One S3 request (an attempt: S3 bills retries too). */
  s3Request(priceClass: S3PriceClass): void;
}

/** A recorder that drops every report (no metering). */
export const noUsageRecorder: UsageRecorder = {
  dynamoRequest: () => {},
  s3Request: () => {},
};
