import { describe, expect, it } from 'vitest';
import { connectorCostReport } from '../../../../shared/control-plane/cost-report.js';
import type { HourlyUsage, Usage } from '../../../../shared/ports/metering.js';
import { DEFAULT_PRICES } from '../../../../shared/runtime/metering/prices.js';
import { emptyUsage } from '../../../../shared/runtime/metering/usage.js';

/** One GB-second in MB·ms. */
const GB_S = 1024 * 1000;
const hour = (iso: string) => Date.parse(`${iso}:00:00Z`);
const at = (iso: string, usage: Partial<Usage>): HourlyUsage => ({
  hour: hour(iso),
  usage: { ...emptyUsage(), ...usage },
});

/**
 * December 2026 (31 days, 744 hours), now the 11th at 12:30 UTC: 252.5 hours into the month,
 * 491.5 left; the last 24 hours' window reads the hours from the 10th 13:00 (23.5 hours).
 */
const NOW = Date.parse('2026-12-11T12:30:00Z');
const own: HourlyUsage[] = [
  // Before the month: in neither window.
  at('2026-11-25T08', { invocations: 999, lambdaMbMs: 999 * GB_S, kafkaRecordsIn: 999 }),
  // Month to date only: 1,000 sink batches of 500 records, 300 ms at 1,024 MB (300 GB-s).
  at('2026-12-01T00', {
    invocations: 1000,
    lambdaMbMs: 300 * GB_S,
    dynamoReadUnits: 2000,
    dynamoWriteUnits: 1000,
    s3Tier1Requests: 1000,
    s3Tier2Requests: 100,
    kafkaRecordsIn: 500_000,
  }),
  // Both windows: 10 REST calls (1 GB-s), and 100 sink batches (30 GB-s).
  at('2026-12-10T13', { invocations: 10, lambdaMbMs: 1 * GB_S, apiCalls: 10 }),
  at('2026-12-11T12', {
    invocations: 100,
    lambdaMbMs: 30 * GB_S,
    dynamoReadUnits: 200,
    dynamoWriteUnits: 100,
    s3Tier1Requests: 100,
    s3Tier2Requests: 10,
    kafkaRecordsIn: 50_000,
  }),
];
// The enumerator's shared line, split between 2 connectors: 1,440 runs (360 GB-s) on the 5th,
// 60 runs (15 GB-s) in the last 24 hours.
const shared: HourlyUsage[] = [
  at('2026-12-05T00', { invocations: 1440, lambdaMbMs: 360 * GB_S }),
  at('2026-12-11T00', { invocations: 60, lambdaMbMs: 15 * GB_S }),
];

describe('connectorCostReport', () => {
  const report = connectorCostReport({
    name: 'orders-s3',
    createdAt: Date.parse('2026-11-20T09:00:00Z'),
    now: NOW,
    own,
    shared,
    connectors: 2,
    prices: DEFAULT_PRICES,
  });

  it('prices month to date by line: its own usage plus half the shared line', () => {
    // 1,110 + 750 invocations; 331 + 187.5 GB-s; 2,200 RRU, 1,100 WRU; 1,100 tier-1 and 110
    // tier-2 S3 requests; 10 API calls.
    const mtd = report.month_to_date;
    expect(mtd.from).toBe('2026-12-01T00:00:00.000Z');
    expect(mtd.hours).toBe(252.5);
    expect(mtd.usage).toMatchObject({
      invocations: 1860,
      lambda_gb_seconds: 518.5,
      dynamodb_read_units: 2200,
      dynamodb_write_units: 1100,
      s3_tier1_requests: 1100,
      s3_tier2_requests: 110,
      api_calls: 10,
    });
    expect(mtd.lines.lambda_compute).toBeCloseTo(0.0069133679, 12); // 518.5 x $0.0000133334
    expect(mtd.lines.lambda_requests).toBeCloseTo(0.000372, 12); // 1,860 x $0.20/M
    expect(mtd.lines.dynamodb).toBeCloseTo(0.0009625, 12); // 2,200 x $0.125/M + 1,100 x $0.625/M
    expect(mtd.lines.s3).toBeCloseTo(0.005544, 12); // 1,100 x $0.005/k + 110 x $0.0004/k
    expect(mtd.lines.api_gateway).toBeCloseTo(0.000035, 12); // 10 x $3.50/M
    expect(mtd.total_dollars).toBeCloseTo(0.0138268679, 12);
    expect(mtd.shared_dollars).toBeCloseTo(0.0026500125, 12); // 187.5 GB-s + 750 requests
  });

  it('gives records moved and dollars per million records from the connector’s own usage', () => {
    expect(report.month_to_date.records).toEqual({ in: 550_000, out: 0, moved: 550_000 });
    expect(report.month_to_date.dollars_per_million_records).toBeCloseTo(0.0251397598, 10);
  });

  it('prices the last 24 hours from the 10th 13:00 on', () => {
    const day = report.last_24_hours;
    expect(day.from).toBe('2026-12-10T13:00:00.000Z');
    expect(day.hours).toBe(23.5);
    expect(day.usage).toMatchObject({ invocations: 140, lambda_gb_seconds: 38.5, api_calls: 10 });
    expect(day.total_dollars).toBeCloseTo(0.0011678359, 12);
    expect(day.shared_dollars).toBeCloseTo(0.0001060005, 12);
    expect(day.records.moved).toBe(50_000);
  });

  it('projects the month from month to date and the last 24 hours’ rate', () => {
    // 0.0138268679 + 0.0011678359 / 23.5 h x 491.5 h
    expect(report.projected_month.total_dollars).toBeCloseTo(0.0382520315, 10);
    // One MCU for the 744 hours of December
    expect(report.projected_month.msk_connect_dollars).toBeCloseTo(81.84, 10);
  });

  it('compares with one MSK Connect worker over the same hours', () => {
    expect(report.month_to_date.msk_connect).toEqual({ mcus: 1, dollars: 252.5 * 0.11 });
    expect(report.last_24_hours.msk_connect.mcus).toBe(1);
    expect(report.last_24_hours.msk_connect.dollars).toBeCloseTo(2.585, 12);
  });

  it('counts nothing from before a connector was created, and prices no record as null', () => {
    // Prepare: created at 10:15 today; only the current hour's usage is its own
    const created = Date.parse('2026-12-11T10:15:00Z');
    // Act
    const fresh = connectorCostReport({
      name: 'fresh',
      createdAt: created,
      now: NOW,
      own: [at('2026-12-11T12', { invocations: 4, lambdaMbMs: 2 * GB_S })],
      shared,
      connectors: 2,
      prices: DEFAULT_PRICES,
    });
    // Assess: the shared line's hours before 10:00 are not its share
    expect(fresh.month_to_date.from).toBe('2026-12-11T10:15:00.000Z');
    expect(fresh.month_to_date.hours).toBe(2.25);
    expect(fresh.month_to_date.usage).toMatchObject({ invocations: 4, lambda_gb_seconds: 2 });
    expect(fresh.month_to_date.dollars_per_million_records).toBeNull();
    expect(fresh.last_24_hours.total_dollars).toBeCloseTo(fresh.month_to_date.total_dollars, 15);
    // 2 GB-s x $0.0000133334 + 4 x $0.20/M over 2.25 h, for the 491.5 h left
    const perHour = (2 * 0.0000133334 + 4 * 0.2e-6) / 2.25;
    expect(fresh.projected_month.total_dollars).toBeCloseTo(
      fresh.month_to_date.total_dollars + perHour * 491.5,
      14,
    );
    // One MCU from 10:15 on the 11th to the month's end: 493.75 hours
    expect(fresh.projected_month.msk_connect_dollars).toBeCloseTo(493.75 * 0.11, 10);
  });

  it('names the prices it used', () => {
    expect(report.prices).toBe(DEFAULT_PRICES);
    expect(report.currency).toBe('USD');
    expect(report.shared.connectors).toBe(2);
  });
});
