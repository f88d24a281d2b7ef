import { afterEach, describe, expect, it } from 'vitest';
import { LocalReconciler, type Reconciles } from '../../../../local/runtime/local-reconciler.js';
import { silentLogger } from '../../../../shared/ports/logger.js';
import type { ConnectorReport } from '../../../../shared/runtime/enumerator/enumerator.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const report = (connector: string): ConnectorReport => ({
  connector,
  state: 'RUNNING',
  tasks: 1,
  dispatched: [],
});

/** An enumerator that records its runs; each run takes `runMs`. */
class RecordingEnumerator implements Reconciles {
  readonly runs: string[][] = [];
  active = 0;
  maxActive = 0;
  constructor(private readonly runMs = 20) {}
  async reconcile(connector: string): Promise<ConnectorReport> {
    return (await this.#run([connector]))[0] as ConnectorReport;
  }
  async reconcileAll(): Promise<ConnectorReport[]> {
    return this.#run(['*']);
  }
  async #run(names: string[]): Promise<ConnectorReport[]> {
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    this.runs.push(names);
    await sleep(this.runMs);
    this.active -= 1;
    return names.map(report);
  }
}

describe('LocalReconciler', () => {
  const opened: LocalReconciler[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((r) => r.close()));
  });

  function reconciler(enumerator: Reconciles, intervalMs = 60_000, debounceMs = 10) {
    const r = new LocalReconciler(enumerator, { intervalMs, debounceMs, logger: silentLogger });
    opened.push(r);
    return r;
  }

  it('reconciles the connectors nudged within the debounce window in one run', async () => {
    // Prepare
    const enumerator = new RecordingEnumerator();
    const r = reconciler(enumerator);
    // Act
    await r.nudge('a');
    await r.nudge('b');
    await r.nudge('a');
    await sleep(50);
    await r.whenIdle();
    // Assess
    expect(enumerator.runs.flat().sort()).toEqual(['a', 'b']);
    expect(r.runs).toBe(1);
  });

  it('never runs twice at once, and runs again for nudges that arrive during a run', async () => {
    // Prepare
    const enumerator = new RecordingEnumerator(60);
    const r = reconciler(enumerator);
    // Act
    await r.nudge('a');
    await sleep(30); // the run for a is in progress
    await r.nudge('b');
    await sleep(150);
    await r.whenIdle();
    // Assess
    expect(enumerator.maxActive).toBe(1);
    expect(enumerator.runs).toEqual([['a'], ['b']]);
  });

  it('reconciles every connector on its schedule, and nothing after close', async () => {
    // Prepare
    const enumerator = new RecordingEnumerator(1);
    const r = reconciler(enumerator, 40);
    // Act
    r.start();
    await sleep(150);
    await r.close();
    const runsAtClose = enumerator.runs.length;
    await r.nudge('late');
    await sleep(100);
    // Assess
    expect(runsAtClose).toBeGreaterThanOrEqual(2);
    expect(enumerator.runs.every((names) => names[0] === '*')).toBe(true);
    expect(enumerator.runs.length).toBe(runsAtClose);
  });

  it('keeps going after a failed run', async () => {
    // Prepare
    let calls = 0;
    const failing: Reconciles = {
      reconcile: async (c) => {
        calls += 1;
        if (calls === 1) throw new Error('store unavailable');
        return report(c);
      },
      reconcileAll: async () => [],
    };
    const r = reconciler(failing);
    // Act
    await r.nudge('a');
    await sleep(40);
    await r.nudge('a');
    await sleep(40);
    await r.whenIdle();
    // Assess
    expect(calls).toBe(2);
    expect(r.runs).toBe(2);
  });
});
