import { describe, expect, it } from 'vitest';
import { MemoryUsageStore } from '../../../../../shared/adapters/memory/memory-usage-store.js';
import { ConnectError } from '../../../../../shared/connect/errors.js';
import { StoreUnavailableError } from '../../../../../shared/ports/errors.js';
import type { LogFields, Logger } from '../../../../../shared/ports/logger.js';
import type { Usage, UsageOwner, UsageStore } from '../../../../../shared/ports/metering.js';
import type { MetricsSink, MetricValue } from '../../../../../shared/ports/metrics.js';
import { costOf } from '../../../../../shared/runtime/metering/cost-model.js';
import {
  ESTIMATED_COST_METRIC,
  HOUR_MS,
  Metering,
  SHARED_COST_DIMENSIONS,
} from '../../../../../shared/runtime/metering/metering.js';
import { DEFAULT_PRICES } from '../../../../../shared/runtime/metering/prices.js';
import { emptyUsage } from '../../../../../shared/runtime/metering/usage.js';
import { DEFAULT_USAGE_HOLD } from '../../../../../shared/runtime/metering/usage-hold.js';
import { UsageScopes } from '../../../../../shared/runtime/metering/usage-scopes.js';

/** A clock the test (and the store) move by hand. */
class Clock {
  constructor(public at: number) {}
  now(): number {
    return this.at;
  }
}

const HOUR = 1_764_000_000_000 - (1_764_000_000_000 % HOUR_MS);
const everything = { fromHour: 0, toHour: Number.MAX_SAFE_INTEGER };

function harness(store: UsageStore = new MemoryUsageStore()) {
  const clock = new Clock(HOUR + 1_000);
  const scopes = new UsageScopes(clock);
  const published: { dimensions: Record<string, string>; values: Record<string, MetricValue> }[] =
    [];
  const metrics: MetricsSink = {
    publish: (dimensions, values) => published.push({ dimensions, values }),
  };
  const warnings: { message: string; fields: LogFields | undefined }[] = [];
  const logger: Logger = {
    error: () => {},
    warn: (message, fields) => warnings.push({ message, fields }),
    info: () => {},
    debug: () => {},
  };
  const metering = new Metering({ scopes, store, prices: DEFAULT_PRICES, clock, logger, metrics });
  return { clock, scopes, metering, store, published, warnings };
}

const usageOf = async (store: UsageStore, owner: UsageOwner): Promise<Usage | undefined> =>
  (await store.readUsage(owner, everything))[0]?.usage;

describe('Metering', () => {
  it('adds an invocation to its connector’s hour and publishes its estimated cost', async () => {
    // Prepare
    const { clock, scopes, metering, store, published } = harness();
    // Act
    const result = await metering.run({ function: 'sink-task', memoryMb: 1024 }, async () => {
      scopes.assign('orders');
      scopes.dynamoRequest({ kind: 'read', units: 1 });
      scopes.dynamoRequest({ kind: 'write', units: 2 });
      scopes.s3Request('tier1');
      scopes.s3Request('tier2');
      scopes.s3Request('free');
      scopes.kafka({ recordsIn: 500, bytesIn: 50_000 });
      clock.at += 300;
      return 'written';
    });
    // Assess
    const expected: Usage = {
      ...emptyUsage(),
      invocations: 1,
      lambdaMs: 300,
      lambdaMbMs: 300 * 1024,
      dynamoReads: 1,
      dynamoReadUnits: 1,
      dynamoWrites: 1,
      dynamoWriteUnits: 2,
      s3Tier1Requests: 1,
      s3Tier2Requests: 1,
      kafkaRecordsIn: 500,
      kafkaBytesIn: 50_000,
    };
    expect(result).toBe('written');
    expect(await store.readUsage('orders', everything)).toEqual([{ hour: HOUR, usage: expected }]);
    expect(published).toEqual([
      {
        dimensions: { Connector: 'orders' },
        values: {
          [ESTIMATED_COST_METRIC]: { value: costOf(expected, DEFAULT_PRICES).total, unit: 'None' },
        },
      },
    ]);
  });

  it('meters a failed invocation too, and lets its error through', async () => {
    // Prepare
    const { clock, scopes, metering, store } = harness();
    // Act
    const run = metering.run({ function: 'sink-task', memoryMb: 1024 }, async () => {
      scopes.assign('orders');
      clock.at += 40;
      throw new ConnectError('put failed');
    });
    // Assess
    await expect(run).rejects.toThrow('put failed');
    expect(await usageOf(store, 'orders')).toMatchObject({ invocations: 1, lambdaMs: 40 });
  });

  it('publishes the shared line under its own dimension', async () => {
    // Prepare
    const { clock, metering, store, published } = harness();
    // Act
    await metering.run({ function: 'api', memoryMb: 512 }, async () => {
      clock.at += 3;
    });
    // Assess
    expect(await usageOf(store, undefined)).toMatchObject({ invocations: 1, apiCalls: 1 });
    expect(published.map((p) => p.dimensions)).toEqual([SHARED_COST_DIMENSIONS]);
  });

  it('carries the time of its own write to the next invocation', async () => {
    // Prepare: the store's write takes 7 ms
    const memory = new MemoryUsageStore();
    const h = harness({
      addUsage: async (owner, hour, usage) => {
        h.clock.at += 7;
        await memory.addUsage(owner, hour, usage);
      },
      readUsage: (owner, range) => memory.readUsage(owner, range),
    });
    const invocation = () =>
      h.metering.run({ function: 'source-task', memoryMb: 1024 }, async () => {
        h.scopes.assign('orders');
        h.clock.at += 100;
      });
    // Act
    await invocation();
    const afterFirst = await usageOf(memory, 'orders');
    await invocation();
    // Assess
    expect(afterFirst?.lambdaMs).toBe(100);
    expect(await usageOf(memory, 'orders')).toMatchObject({
      invocations: 2,
      lambdaMs: 207,
      lambdaMbMs: 207 * 1024,
    });
  });

  it('carries usage it could not write for a retriable reason, and drops it for another', async () => {
    // Prepare: the first write is throttled, the second refused, the rest succeed
    const memory = new MemoryUsageStore();
    const failures: Error[] = [
      new StoreUnavailableError('throttled'),
      new ConnectError('format from the future'),
    ];
    const h = harness({
      addUsage: async (owner, hour, usage) => {
        const failure = failures.shift();
        if (failure !== undefined) throw failure;
        await memory.addUsage(owner, hour, usage);
      },
      readUsage: (owner, range) => memory.readUsage(owner, range),
    });
    const invocation = (records: number) =>
      h.metering.run({ function: 'sink-task', memoryMb: 1024 }, async () => {
        h.scopes.assign('orders');
        h.scopes.kafka({ recordsIn: records });
      });
    // Act
    await invocation(1); // throttled: held
    await invocation(10); // refused: 1 + 10 dropped
    await invocation(100);
    // Assess
    expect((await usageOf(memory, 'orders'))?.kafkaRecordsIn).toBe(100);
    expect(h.warnings.map((w) => w.message)).toEqual([
      'could not record usage; held for the next invocation',
      'could not record usage; dropped',
    ]);
  });

  it('keeps invocations running at once apart, and drops reports made outside any', async () => {
    // Prepare
    const { scopes, metering, store } = harness();
    const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
    const invocation = (connector: string, reads: number) =>
      metering.run({ function: 'sink-task', memoryMb: 1024 }, async () => {
        scopes.assign(connector);
        for (let i = 0; i < reads; i += 1) {
          await tick();
          scopes.dynamoRequest({ kind: 'read', units: 1 });
        }
      });
    // Act
    scopes.dynamoRequest({ kind: 'write', units: 1 });
    await Promise.all([invocation('a', 3), invocation('b', 5)]);
    // Assess
    expect((await usageOf(store, 'a'))?.dynamoReads).toBe(3);
    expect((await usageOf(store, 'b'))?.dynamoReads).toBe(5);
    expect((await usageOf(store, 'a'))?.dynamoWrites).toBe(0);
  });

  it('writes one item per invocation for a container serving connectors in turn', async () => {
    // Prepare: each usage write is reported as one write unit, as the state table's is
    const memory = new MemoryUsageStore();
    let writes = 0;
    const h = harness({
      addUsage: async (owner, hour, usage) => {
        writes += 1;
        h.scopes.dynamoRequest({ kind: 'write', units: 1 });
        await memory.addUsage(owner, hour, usage);
      },
      readUsage: (owner, range) => memory.readUsage(owner, range),
    });
    const call = (connector: string) =>
      h.metering.run({ function: 'api', memoryMb: 512 }, async () => {
        h.scopes.assign(connector);
      });
    // Act: a, b, a, b
    for (const connector of ['a', 'b', 'a', 'b']) await call(connector);
    // Assess: one write each; the first write of each is in its second, the second carried
    expect(writes).toBe(4);
    expect(await usageOf(memory, 'a')).toMatchObject({ apiCalls: 2, dynamoWrites: 1 });
    expect(await usageOf(memory, 'b')).toMatchObject({ apiCalls: 2, dynamoWrites: 1 });
    await h.metering.flush();
    expect(writes).toBe(6);
    expect(await usageOf(memory, 'a')).toMatchObject({ dynamoWrites: 2 });
  });

  describe('holding usage in the container (the enumerator)', () => {
    /** A store counting its writes. */
    const counted = () => {
      const memory = new MemoryUsageStore();
      const writes: { owner: UsageOwner; hour: number }[] = [];
      const store: UsageStore = {
        addUsage: async (owner, hour, usage) => {
          writes.push({ owner, hour });
          await memory.addUsage(owner, hour, usage);
        },
        readUsage: (owner, range) => memory.readUsage(owner, range),
      };
      return { store, writes };
    };
    /** One enumerator run of 50 ms whose reconcile of `a` and `b` took 10 ms each. */
    const run = (h: ReturnType<typeof harness>) =>
      h.metering.run({ function: 'enumerator', memoryMb: 512 }, async () => {
        for (const connector of ['a', 'b']) {
          await h.scopes.attribute(connector, async () => {
            h.scopes.dynamoRequest({ kind: 'read', units: 1 });
            h.clock.at += 10;
          });
        }
        h.clock.at += 30;
      });

    it('writes a run every minute once per 5 minutes, and all of it when flushed', async () => {
      // Prepare
      const { store, writes } = counted();
      const h = harness(store);
      // Act: 13 runs a minute apart (from 1 s past the hour), then the process stops
      for (let i = 0; i < 13; i += 1) {
        h.clock.at = HOUR + 1_000 + i * 60_000;
        await run(h);
      }
      const beforeFlush = writes.length;
      await h.metering.flush();
      // Assess: the 6th and 12th runs wrote what was held (3 owners each), the flush the 13th
      expect(beforeFlush).toBe(6);
      expect(writes).toHaveLength(9);
      const [a, b, shared] = await Promise.all([
        usageOf(store, 'a'),
        usageOf(store, 'b'),
        usageOf(store, undefined),
      ]);
      expect(a?.invocations).toBeCloseTo(13 * 0.2, 9);
      expect(b?.invocations).toBeCloseTo(13 * 0.2, 9);
      expect(shared?.invocations).toBeCloseTo(13 * 0.6, 9);
      expect(a).toMatchObject({ lambdaMs: 13 * 10, dynamoReads: 13 });
      expect(b).toMatchObject({ lambdaMs: 13 * 10, dynamoReads: 13 });
      expect(shared).toMatchObject({ lambdaMs: 13 * 30 });
      expect(h.published).toHaveLength(9);
    });

    it('writes what it held at an hour’s change, to the hour it belongs to', async () => {
      // Prepare
      const { store, writes } = counted();
      const h = harness(store);
      // Act: a run 2 minutes before the hour ends, one just after
      h.clock.at = HOUR + HOUR_MS - 120_000;
      await run(h);
      h.clock.at = HOUR + HOUR_MS + 1_000;
      await run(h);
      await h.metering.flush();
      // Assess
      expect(writes.map((w) => w.hour)).toEqual([
        HOUR,
        HOUR,
        HOUR,
        HOUR + HOUR_MS,
        HOUR + HOUR_MS,
        HOUR + HOUR_MS,
      ]);
      expect(await store.readUsage('a', everything)).toEqual([
        { hour: HOUR, usage: expect.objectContaining({ invocations: 0.2 }) },
        { hour: HOUR + HOUR_MS, usage: expect.objectContaining({ invocations: 0.2 }) },
      ]);
    });

    it('writes at once when what it holds reaches the most a container may hold', async () => {
      // Prepare: a hold of 5 minutes or $0.000001 (one run costs more)
      const { store, writes } = counted();
      const h = harness(store);
      const metering = new Metering({
        scopes: h.scopes,
        store,
        prices: DEFAULT_PRICES,
        clock: h.clock,
        logger: { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} },
        hold: { ...DEFAULT_USAGE_HOLD, maxHeldDollars: 0.000001 },
      });
      // Act
      await metering.run({ function: 'enumerator', memoryMb: 512 }, async () => {
        h.scopes.assign('a');
        h.clock.at += 200; // 0.1 GB-s: $0.0000013 of compute
      });
      // Assess
      expect(writes).toEqual([{ owner: 'a', hour: HOUR }]);
    });
  });
});
