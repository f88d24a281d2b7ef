import { afterAll, describe, expect, it } from 'vitest';
import { requestClasses } from '../../../bench/cost.js';
import { installRequestCounter, requestCounts } from '../../../bench/request-counter.js';
import { enumeratorHandler } from '../../../functions/enumerator/handler.js';
import { localLambdaContext } from '../../../local/esm/lambda-context.js';
import { createDynamoDbStateStore } from '../../../shared/adapters/dynamodb/dynamodb-state-store.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';
import { MemorySinkMappings } from '../../../shared/adapters/memory/memory-sink-mappings.js';
import type { SourceTaskInvocation } from '../../../shared/ports/dispatch.js';
import type { Usage, UsageOwner } from '../../../shared/ports/metering.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { HOUR_MS } from '../../../shared/runtime/metering/metering.js';
import { sumUsage } from '../../../shared/runtime/metering/usage.js';
import { UsageScopes } from '../../../shared/runtime/metering/usage-scopes.js';
import { type TestEngine, testEngine } from '../../support/engine.js';
import { testDynamo, uniqueName } from '../../support/services.js';
import { SimulatedClock } from '../../support/simulated-clock.js';

/** The requests this process sent since `before`, by `<service>:<operation>`. */
function requestsSince(before: ReadonlyMap<string, number>): Record<string, number> {
  const sent: Record<string, number> = {};
  for (const [key, n] of requestCounts()) {
    if (n > (before.get(key) ?? 0)) sent[key] = n - (before.get(key) ?? 0);
  }
  return sent;
}

/** Everything `owner` consumed, over the hours a test can span on `clock`. */
async function usageOf(store: StateStore, owner: UsageOwner, now: number): Promise<Usage> {
  const hours = await store.usage.readUsage(owner, {
    fromHour: now - 2 * HOUR_MS,
    toHour: now + HOUR_MS,
  });
  return sumUsage(hours.map((h) => h.usage));
}

/** Two datagen source connectors in `store`; their names. */
async function twoSources(store: StateStore): Promise<string[]> {
  const names = [uniqueName('a'), uniqueName('b')];
  for (const name of names) {
    await store.configs.createConnector(name, {
      name,
      'connector.class': 'datagen',
      'kafka.topic': name,
      quickstart: 'orders',
      'tasks.max': '1',
    });
  }
  return names;
}

/**
 * The enumerator's run, metered: each connector's reconcile is that connector's share of the run
 * (its time, its requests), the rest the shared line's; every state store request is metered.
 * Its container holds the usage up to 5 minutes (usage-hold.ts): a run a minute writes every
 * fifth run, one write per owner.
 */
describe('metering the enumerator (dynalite)', () => {
  const engines: TestEngine[] = [];

  afterAll(async () => {
    for (const built of engines) await built.close();
  });

  it('splits one run between the connectors it reconciled and the shared line', async () => {
    // Prepare: two datagen source connectors, an invoker that only records
    installRequestCounter();
    const dispatched: SourceTaskInvocation[] = [];
    const built = await testEngine({
      invoker: { invoke: async (invocation) => void dispatched.push(invocation) },
      mappings: new MemorySinkMappings(),
    });
    engines.push(built);
    const { engine, store } = built;
    const names = await twoSources(store);
    const handler = enumeratorHandler(() => engine);
    const before = requestCounts();

    // Act: a scheduled run (its container holds the usage), then the process stops (flush)
    await handler({}, localLambdaContext({ functionName: 'enumerator', timeoutMs: 60_000 }));
    const sent = requestsSince(before);
    const beforeFlush = requestCounts();
    await engine.metering.flush();
    const flushed = requestsSince(beforeFlush);

    // Assess
    expect(dispatched.map((d) => d.connector).sort()).toEqual([...names].sort());
    const now = Date.now();
    const [a, b, shared] = await Promise.all([
      usageOf(store, names[0], now),
      usageOf(store, names[1], now),
      usageOf(store, undefined, now),
    ]);
    const total = sumUsage([a, b, shared]);
    const classes = requestClasses(sent);
    for (const own of [a, b]) {
      expect(own.invocations).toBeGreaterThan(0);
      expect(own.dynamoWrites).toBeGreaterThan(0);
    }
    // One run, split (each share is kept to 6 decimals)
    expect(total.invocations).toBeCloseTo(1, 5);
    expect(total.lambdaMbMs).toBeCloseTo(total.lambdaMs * 512, 0);
    // Every request of the run metered, the run itself wrote no usage; the flush wrote three
    // (a, b, shared), whose own units are carried (a stopping process writes them no more)
    expect(total.dynamoReads).toBe(classes.dynamoReads);
    expect(total.dynamoWrites).toBe(classes.dynamoWrites);
    expect(flushed).toEqual({ 'dynamodb:UpdateItem': 3 });
  });

  it('writes 13 runs a minute apart with 9 usage writes, losing nothing across the flushes', async () => {
    // Prepare: the engine on a simulated clock, the usage writes counted as they are made
    installRequestCounter();
    const clock = new SimulatedClock();
    const usage = new UsageScopes(clock);
    const client = testDynamo();
    const tableName = uniqueName('hold');
    await ensureTable(client, tableName);
    const state = createDynamoDbStateStore({ client, tableName, clock, usage });
    const usageWrites: number[] = [];
    const store: StateStore = {
      ...state,
      usage: {
        addUsage: (owner, hour, added) => {
          usageWrites.push(clock.now());
          return state.usage.addUsage(owner, hour, added);
        },
        readUsage: (owner, range) => state.usage.readUsage(owner, range),
      },
    };
    const built = await testEngine({
      store,
      clock,
      usage,
      invoker: { invoke: async () => {} },
      mappings: new MemorySinkMappings(),
    });
    engines.push(built);
    const names = await twoSources(store);
    const handler = enumeratorHandler(() => built.engine);
    // From a second past the next hour: the 13 minutes stay in one hour
    clock.advanceTo(Math.floor(clock.now() / HOUR_MS) * HOUR_MS + HOUR_MS + 1_000);
    const start = clock.now();
    const before = requestCounts();

    // Act: 13 scheduled runs, a minute apart, then the process stops
    const writesAfterRun: number[] = [];
    for (let run = 0; run < 13; run += 1) {
      clock.advanceTo(start + run * 60_000);
      await handler({}, localLambdaContext({ functionName: 'enumerator', timeoutMs: 60_000 }));
      writesAfterRun.push(usageWrites.length);
    }
    await built.engine.metering.flush();
    const sent = requestClasses(requestsSince(before));

    // Assess: the 6th and the 12th runs wrote what the container held (3 owners each), the
    // flush the 13th's: 9 writes where one per owner per run made 39
    expect(writesAfterRun).toEqual([0, 0, 0, 0, 0, 3, 3, 3, 3, 3, 3, 6, 6]);
    expect(usageWrites).toHaveLength(9);
    const now = clock.now();
    const [a, b, shared] = await Promise.all([
      usageOf(store, names[0], now),
      usageOf(store, names[1], now),
      usageOf(store, undefined, now),
    ]);
    const total = sumUsage([a, b, shared]);
    expect(total.invocations).toBeCloseTo(13, 5);
    expect(total.dynamoReads).toBe(sent.dynamoReads);
    // Every write metered but the flush's own three (carried, never written)
    expect(total.dynamoWrites).toBe(sent.dynamoWrites - 3);
    client.destroy();
  });
});
