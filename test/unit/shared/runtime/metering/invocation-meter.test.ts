import { describe, expect, it } from 'vitest';
import type { Usage } from '../../../../../shared/ports/metering.js';
import { InvocationMeter } from '../../../../../shared/runtime/metering/invocation-meter.js';
import { emptyUsage } from '../../../../../shared/runtime/metering/usage.js';

const usage = (fields: Partial<Usage>): Usage => ({ ...emptyUsage(), ...fields });

describe('InvocationMeter', () => {
  it('bills a source invocation to its connector: duration rounded up to the ms, times memory', () => {
    // Prepare
    const meter = new InvocationMeter({ function: 'source-task', memoryMb: 1024 }, 1_000);
    meter.record(undefined, { dynamoReads: 2, dynamoReadUnits: 2 });
    meter.assign('orders');
    meter.record(undefined, { kafkaRecordsOut: 500, kafkaBytesOut: 64_000 });
    // Act
    const byOwner = meter.finish(1_000 + 2_500.2);
    // Assess
    expect([...byOwner]).toEqual([
      [
        'orders',
        usage({
          invocations: 1,
          lambdaMs: 2_501,
          lambdaMbMs: 2_501 * 1024,
          dynamoReads: 2,
          dynamoReadUnits: 2,
          kafkaRecordsOut: 500,
          kafkaBytesOut: 64_000,
        }),
      ],
    ]);
  });

  it('counts an api invocation as one API Gateway call, and bills a sub-millisecond one 1 ms', () => {
    // Prepare
    const meter = new InvocationMeter({ function: 'api', memoryMb: 512 }, 50);
    meter.assign('orders');
    // Act
    const byOwner = meter.finish(50.3);
    // Assess
    expect(byOwner.get('orders')).toEqual(
      usage({ invocations: 1, lambdaMs: 1, lambdaMbMs: 512, apiCalls: 1 }),
    );
  });

  it('gives a call that ends up about no connector (assigned undefined) to the shared line', () => {
    // Prepare
    const meter = new InvocationMeter({ function: 'api', memoryMb: 512 }, 0);
    meter.assign('ghost');
    meter.record(undefined, { dynamoReads: 1, dynamoReadUnits: 0.5 });
    meter.assign(undefined);
    // Act
    const byOwner = meter.finish(10);
    // Assess
    expect([...byOwner.keys()]).toEqual([undefined]);
    expect(byOwner.get(undefined)).toEqual(
      usage({
        invocations: 1,
        lambdaMs: 10,
        lambdaMbMs: 5_120,
        apiCalls: 1,
        dynamoReads: 1,
        dynamoReadUnits: 0.5,
      }),
    );
  });

  it("splits an enumerator run by the connectors' spans and gives the rest to the shared line", () => {
    // Prepare: 1,000 ms billed; orders worked 300 ms, invoices 200 ms, one list read outside
    const meter = new InvocationMeter({ function: 'enumerator', memoryMb: 512 }, 0);
    meter.record(undefined, { dynamoReads: 1, dynamoReadUnits: 1 });
    meter.span('orders', 300);
    meter.record('orders', { dynamoWrites: 3, dynamoWriteUnits: 3 });
    meter.span('invoices', 200);
    // Act
    const byOwner = meter.finish(1_000);
    // Assess
    expect(byOwner.get('orders')).toEqual(
      usage({
        invocations: 0.3,
        lambdaMs: 300,
        lambdaMbMs: 300 * 512,
        dynamoWrites: 3,
        dynamoWriteUnits: 3,
      }),
    );
    expect(byOwner.get('invoices')).toEqual(
      usage({ invocations: 0.2, lambdaMs: 200, lambdaMbMs: 200 * 512 }),
    );
    expect(byOwner.get(undefined)?.invocations).toBeCloseTo(0.5, 12);
    expect(byOwner.get(undefined)?.lambdaMbMs).toBeCloseTo(500 * 512, 6);
    expect(byOwner.get(undefined)?.dynamoReads).toBe(1);
  });

  it('shares a run among overlapping spans in proportion, leaving nothing to the shared line', () => {
    // Prepare: three connectors reconciled at once, 800 ms each, in a 1,000 ms run
    const meter = new InvocationMeter({ function: 'enumerator', memoryMb: 512 }, 0);
    for (const name of ['a', 'b', 'c']) meter.span(name, 800);
    // Act
    const byOwner = meter.finish(1_000);
    // Assess
    expect(byOwner.has(undefined)).toBe(false);
    for (const name of ['a', 'b', 'c']) {
      expect(byOwner.get(name)?.invocations).toBeCloseTo(1 / 3, 12);
      expect(byOwner.get(name)?.lambdaMs).toBeCloseTo(1_000 / 3, 9);
    }
  });
});
