/**
 * `GET /connectors/{c}/cost` as arithmetic (no I/O): the hourly usage of a connector and of the
 * shared line → month to date, the last 24 hours, the projected month, each priced by line, and
 * MSK Connect for the same hours. Our own extension of the REST API, not Apache Kafka Connect's.
 */
import type { HourlyUsage, Usage } from '../ports/metering.js';
import {
  costOf,
  dollarsPerMillionRecords,
  gbSecondsOf,
  mskConnectCost,
  recordsMoved,
} from '../runtime/metering/cost-model.js';
import { HOUR_MS } from '../runtime/metering/metering.js';
import type { PriceTable } from '../runtime/metering/prices.js';
import { addUsage, emptyUsage, scaleUsage, sumUsage } from '../runtime/metering/usage.js';

/** What a window's figures count, in the units they are priced in. */
export interface CostUsageDto {
  readonly invocations: number;
  readonly lambda_gb_seconds: number;
  readonly dynamodb_read_units: number;
  readonly dynamodb_write_units: number;
  readonly dynamodb_requests: number;
  readonly s3_tier1_requests: number;
  readonly s3_tier2_requests: number;
  readonly api_calls: number;
}

/** Dollars by resource line. */
export interface CostLinesDto {
  readonly lambda_compute: number;
  readonly lambda_requests: number;
  readonly dynamodb: number;
  readonly s3: number;
  readonly api_gateway: number;
}

/** One window (month to date, the last 24 hours). */
export interface CostWindowDto {
  /** What the figures cover: the later of the window's start and the connector's creation. */
  readonly from: string;
  readonly to: string;
  readonly hours: number;
  /** The connector's usage plus its share of the shared line. */
  readonly usage: CostUsageDto;
  readonly lines: CostLinesDto;
  readonly total_dollars: number;
  /** The part of `total_dollars` that is the connector's share of the shared line. */
  readonly shared_dollars: number;
  readonly records: { readonly in: number; readonly out: number; readonly moved: number };
  readonly bytes: { readonly in: number; readonly out: number };
  /** `null` when no record moved. */
  readonly dollars_per_million_records: number | null;
  /** MSK Connect over the same hours: at least one worker of one MCU. */
  readonly msk_connect: { readonly mcus: number; readonly dollars: number };
}

/** The body of `GET /connectors/{c}/cost` (and `cost` of `GET /connectors?expand=cost`). */
export interface ConnectorCostDto {
  readonly name: string;
  readonly currency: 'USD';
  readonly as_of: string;
  readonly month_to_date: CostWindowDto;
  readonly last_24_hours: CostWindowDto;
  readonly projected_month: {
    readonly total_dollars: number;
    readonly msk_connect_dollars: number;
    readonly basis: string;
  };
  readonly shared: { readonly connectors: number; readonly basis: string };
  readonly prices: PriceTable;
}

/** What a report is computed from. */
export interface CostInputs {
  readonly name: string;
  /** When the connector was created (epoch ms): no window counts hours before it. */
  readonly createdAt: number;
  readonly now: number;
  /** The connector's hours and the shared line's, covering at least both windows. */
  readonly own: readonly HourlyUsage[];
  readonly shared: readonly HourlyUsage[];
  /** How many connectors share the shared line (at least 1). */
  readonly connectors: number;
  readonly prices: PriceTable;
}

/** The start of the UTC month `at` falls in, and of the next one. */
export function monthOf(at: number): { readonly start: number; readonly end: number } {
  const date = new Date(at);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  return { start: Date.UTC(year, month, 1), end: Date.UTC(year, month + 1, 1) };
}

/** The hours both windows read: from the earlier window start to the current hour. */
export function hoursToRead(now: number): { readonly fromHour: number; readonly toHour: number } {
  const current = Math.floor(now / HOUR_MS) * HOUR_MS;
  return { fromHour: Math.min(monthOf(now).start, current - 23 * HOUR_MS), toHour: current };
}

const PROJECTION_BASIS =
  "month to date, plus the last 24 hours' cost per hour times the hours left in the month";

function usageDto(usage: Usage): CostUsageDto {
  return {
    invocations: usage.invocations,
    lambda_gb_seconds: gbSecondsOf(usage),
    dynamodb_read_units: usage.dynamoReadUnits,
    dynamodb_write_units: usage.dynamoWriteUnits,
    dynamodb_requests: usage.dynamoReads + usage.dynamoWrites,
    s3_tier1_requests: usage.s3Tier1Requests,
    s3_tier2_requests: usage.s3Tier2Requests,
    api_calls: usage.apiCalls,
  };
}

/**
 * One window from `windowStart` (an hour start) to `now`: the connector's hours in it, plus
 * its share (1/connectors) of the shared line's hours from its creation on.
 */
function costWindow(inputs: CostInputs, windowStart: number): CostWindowDto {
  const { now, prices } = inputs;
  const from = Math.max(windowStart, inputs.createdAt);
  const fromHour = Math.floor(from / HOUR_MS) * HOUR_MS;
  const inWindow = (hours: readonly HourlyUsage[]) =>
    sumUsage(hours.filter((h) => h.hour >= fromHour && h.hour <= now).map((h) => h.usage));
  const own = inWindow(inputs.own);
  const share = scaleUsage(inWindow(inputs.shared), 1 / Math.max(1, inputs.connectors));
  const usage = addUsage(addUsage(emptyUsage(), own), share);
  const cost = costOf(usage, prices);
  const hours = Math.max(0, now - from) / HOUR_MS;
  const moved = recordsMoved(own);
  return {
    from: new Date(from).toISOString(),
    to: new Date(now).toISOString(),
    hours,
    usage: usageDto(usage),
    lines: {
      lambda_compute: cost.lambdaCompute,
      lambda_requests: cost.lambdaRequests,
      dynamodb: cost.dynamodb,
      s3: cost.s3,
      api_gateway: cost.apiGateway,
    },
    total_dollars: cost.total,
    shared_dollars: costOf(share, prices).total,
    records: { in: own.kafkaRecordsIn, out: own.kafkaRecordsOut, moved },
    bytes: { in: own.kafkaBytesIn, out: own.kafkaBytesOut },
    dollars_per_million_records: dollarsPerMillionRecords(cost.total, moved),
    msk_connect: mskConnectCost(usage, hours, prices),
  };
}

/** The connector's cost report; see the module notes and docs/rest-api.md. */
export function connectorCostReport(inputs: CostInputs): ConnectorCostDto {
  const { now, prices } = inputs;
  const month = monthOf(now);
  const currentHour = Math.floor(now / HOUR_MS) * HOUR_MS;
  const monthToDate = costWindow(inputs, month.start);
  const lastDay = costWindow(inputs, currentHour - 23 * HOUR_MS);
  const hoursLeft = (month.end - now) / HOUR_MS;
  const perHour = lastDay.hours > 0 ? lastDay.total_dollars / lastDay.hours : 0;
  const monthHours = (month.end - Math.max(month.start, inputs.createdAt)) / HOUR_MS;
  return {
    name: inputs.name,
    currency: 'USD',
    as_of: new Date(now).toISOString(),
    month_to_date: monthToDate,
    last_24_hours: lastDay,
    projected_month: {
      total_dollars: monthToDate.total_dollars + perHour * hoursLeft,
      msk_connect_dollars: lastDay.msk_connect.mcus * monthHours * prices.mskConnectPerMcuHour,
      basis: PROJECTION_BASIS,
    },
    shared: {
      connectors: Math.max(1, inputs.connectors),
      basis:
        'work for no connector in particular (the enumerator outside any connector, REST calls naming none) divided equally among the connectors',
    },
    prices,
  };
}
