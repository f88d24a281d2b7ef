import { afterAll, describe, expect, it } from 'vitest';
import { requestClasses } from '../../../bench/cost.js';
import { installRequestCounter, requestCounts } from '../../../bench/request-counter.js';
import { enumeratorHandler } from '../../../functions/enumerator/handler.js';
import { localLambdaContext } from '../../../local/esm/lambda-context.js';
import { MemorySinkMappings } from '../../../shared/adapters/memory/memory-sink-mappings.js';
import type { SourceTaskInvocation } from '../../../shared/ports/dispatch.js';
import type { Usage, UsageOwner } from '../../../shared/ports/metering.js';
import { HOUR_MS } from '../../../shared/runtime/metering/metering.js';
import { sumUsage } from '../../../shared/runtime/metering/usage.js';
import { type TestEngine, testEngine } from '../../support/engine.js';
import { uniqueName } from '../../support/services.js';

/**
 * The enumerator's run, metered: each connector's reconcile is that connector's share of the run
 * (its time, its requests), the rest the shared line's; every state store request is metered.
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
    const handler = enumeratorHandler(() => engine);
    const before = requestCounts();

    // Act: a scheduled run
    await handler({}, localLambdaContext({ functionName: 'enumerator', timeoutMs: 60_000 }));
    const sent = new Map<string, number>();
    for (const [key, n] of requestCounts()) {
      if (n > (before.get(key) ?? 0)) sent.set(key, n - (before.get(key) ?? 0));
    }

    // Assess
    expect(dispatched.map((d) => d.connector).sort()).toEqual([...names].sort());
    const now = Date.now();
    const usageOf = async (owner: UsageOwner): Promise<Usage> =>
      sumUsage(
        (
          await store.usage.readUsage(owner, {
            fromHour: now - 2 * HOUR_MS,
            toHour: now + HOUR_MS,
          })
        ).map((h) => h.usage),
      );
    const [a, b, shared] = await Promise.all([
      usageOf(names[0]),
      usageOf(names[1]),
      usageOf(undefined),
    ]);
    const total = sumUsage([a, b, shared]);
    const classes = requestClasses(Object.fromEntries(sent));
    for (const own of [a, b]) {
      expect(own.invocations).toBeGreaterThan(0);
      expect(own.dynamoWrites).toBeGreaterThan(0);
    }
    // One run, split (each share is kept to 6 decimals)
    expect(total.invocations).toBeCloseTo(1, 5);
    expect(total.lambdaMbMs).toBeCloseTo(total.lambdaMs * 512, 0);
    // Every request metered; the run's three usage writes (a, b, shared) carried to the next run
    expect(total.dynamoReads).toBe(classes.dynamoReads);
    expect(total.dynamoWrites).toBe(classes.dynamoWrites - 3);
  });
});
