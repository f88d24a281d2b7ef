/**
 * Usage → dollars, one line per AWS price: the one arithmetic behind `GET
 * /connectors/{c}/cost` and the `EstimatedCost` metric.
 */
import type { Usage } from '../../ports/metering.js';
import type { PriceTable } from './prices.js';

/** Dollars by resource line. */
export interface CostLines {
  /** Billed duration × memory, at the arm64 GB-second price. */
  readonly lambdaCompute: number;
  readonly lambdaRequests: number;
  /** Read and write units of the state table (on demand). */
  readonly dynamodb: number;
  /** S3 requests by price class (storage is not metered). */
  readonly s3: number;
  /** REST calls through API Gateway. */
  readonly apiGateway: number;
  readonly total: number;
}

/** MB·ms in one GB-second (Lambda's GB is 1,024 MB). */
export const MB_MS_PER_GB_SECOND = 1024 * 1000;

/** Lambda GB-seconds of `usage`. */
export function gbSecondsOf(usage: Usage): number {
  return usage.lambdaMbMs / MB_MS_PER_GB_SECOND;
}

/** What `usage` costs at `prices`, by line. */
export function costOf(usage: Usage, prices: PriceTable): CostLines {
  const lambdaCompute = gbSecondsOf(usage) * prices.lambdaArmPerGbSecond;
  const lambdaRequests = usage.invocations * prices.lambdaPerRequest;
  const dynamodb =
    usage.dynamoReadUnits * prices.dynamoPerReadUnit +
    usage.dynamoWriteUnits * prices.dynamoPerWriteUnit;
  const s3 =
    usage.s3Tier1Requests * prices.s3PerTier1Request +
    usage.s3Tier2Requests * prices.s3PerTier2Request;
  const apiGateway = usage.apiCalls * prices.apiGatewayPerCall;
  return {
    lambdaCompute,
    lambdaRequests,
    dynamodb,
    s3,
    apiGateway,
    total: lambdaCompute + lambdaRequests + dynamodb + s3 + apiGateway,
  };
}

/** Records moved through Kafka (consumed by sinks plus produced by sources). */
export function recordsMoved(usage: Usage): number {
  return usage.kafkaRecordsIn + usage.kafkaRecordsOut;
}

/** Dollars per million records moved, or `null` when none moved. */
export function dollarsPerMillionRecords(dollars: number, records: number): number | null {
  return records > 0 ? (dollars / records) * 1_000_000 : null;
}

/**
 * MSK Connect for the same work over `hours`: at least one worker of one MCU (1 vCPU), more
 * when the connector's Lambda time averaged more than one vCPU busy over the hours (its
 * MB·ms at the memory that buys one vCPU, `lambdaMbPerVcpu`; an upper bound of the CPU used).
 */
export function mskConnectCost(
  usage: Usage,
  hours: number,
  prices: PriceTable,
): { readonly mcus: number; readonly dollars: number } {
  const vcpuHours = usage.lambdaMbMs / prices.lambdaMbPerVcpu / 3_600_000;
  const mcus = Math.max(1, hours > 0 ? Math.ceil(vcpuHours / hours - 1e-9) : 1);
  return { mcus, dollars: mcus * hours * prices.mskConnectPerMcuHour };
}
