/**
 * The event source mapping as the campaign plays it for one sink connector: randomized batches
 * (redeliveries that go back, random sizes, several partitions), crashes, recycled containers
 * and overlapping invocations, until every input record was acknowledged.
 */

import { parseEsmEvent, toEsmEvent } from '../../../shared/adapters/lambda/esm-event.js';
import { isRetriable } from '../../../shared/connect/errors.js';
import type { Engine } from '../../../shared/engine/engine.js';
import { runSinkInvocation } from '../../../shared/runtime/sink/sink-task-runner.js';
import { FAULT_POINTS, type Faults, isInjected } from './faults.js';
import type { InputRecord } from './input.js';

/** One warm Lambda container: its engine (task cache, plugins, clients) and crash plan. */
export interface Container {
  readonly faults: Faults;
  readonly engine: Engine;
}

export interface ReplayPlan {
  readonly connector: string;
  /** Each input partition's records, in offset order. */
  readonly input: readonly (readonly InputRecord[])[];
  readonly newContainer: () => Container;
  /** The sink client's crash steps (see SinkTarget.clientSteps). */
  readonly clientSteps: readonly string[];
  readonly random: () => number;
  /** The event's `bootstrapServers`. */
  readonly bootstrapServers: string;
  /** Randomized replays before the clean ones that finish the input. */
  readonly replays: number;
  readonly log: (line: string) => void;
}

/** What the mapping did. */
export interface ReplayStats {
  /** Invocations, all phases. */
  replays: number;
  /** Injected crashes that fired. */
  crashes: number;
  /** Replays that ran a second invocation of the same partitions at the same time. */
  overlaps: number;
  /** Containers recycled without a crash (the warm task cache dropped). */
  coldStarts: number;
  /** Invocations that failed retriably without an injected crash (fenced, lost races). */
  failures: number;
  /** Those failures by their root cause's message. */
  failureReasons: Map<string, number>;
  /** Non-retriable failures: each fails a task, so the campaign stops at the first. */
  errors: string[];
  /** Whether every input record was acknowledged. */
  acknowledged: boolean;
}

interface Window {
  readonly partition: number;
  /** Index of the first record (into the partition's input). */
  readonly start: number;
  /** Index after the last record. */
  readonly end: number;
}

const describe = (error: unknown): string => {
  const parts: string[] = [];
  for (let e: unknown = error; e instanceof Error && parts.length < 4; e = e.cause) {
    parts.push(`${e.name}: ${e.message}`);
  }
  return parts.length > 0 ? parts.join(' <- ') : String(error);
};

/** The message of the innermost cause, without resource names. */
function rootMessage(error: unknown): string {
  let root: unknown = error;
  for (
    let depth = 0;
    root instanceof Error && root.cause instanceof Error && depth < 6;
    depth += 1
  ) {
    root = root.cause;
  }
  const text = root instanceof Error ? `${root.name}: ${root.message}` : String(root);
  return text
    .replace(/s3:\/\/\S+/g, 's3://…')
    .replace(/sink-campaign-[\w./-]+/g, '…')
    .slice(0, 140);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Plays the mapping for `plan.connector`; see the module notes. */
export async function runReplays(plan: ReplayPlan): Promise<ReplayStats> {
  const { input, random } = plan;
  const sizes = input.map((records) => records.length);
  const acked = input.map(() => 0);
  const perPartition = Math.max(1, ...sizes);
  const maxBatch = Math.min(
    400,
    Math.max(5, Math.ceil((5 * perPartition) / Math.max(1, plan.replays))),
  );
  const containers: Container[] = [plan.newContainer(), plan.newContainer()];
  const stats: ReplayStats = {
    replays: 0,
    crashes: 0,
    overlaps: 0,
    coldStarts: 0,
    failures: 0,
    failureReasons: new Map(),
    errors: [],
    acknowledged: false,
  };
  const remaining = () => sizes.reduce((sum, size, p) => sum + size - (acked[p] ?? 0), 0);

  const invoke = async (container: Container, windows: readonly Window[]) => {
    const records = windows.flatMap((w) => input[w.partition]?.slice(w.start, w.end) ?? []);
    stats.replays += 1;
    const event = toEsmEvent(records, {
      eventSource: 'SelfManagedKafka',
      bootstrapServers: plan.bootstrapServers,
    });
    try {
      await runSinkInvocation(container.engine.sink, {
        connector: plan.connector,
        // As on the wire: JSON, base64 keys and values, signed header bytes.
        records: () => parseEsmEvent(JSON.parse(JSON.stringify(event))),
        deadline: Date.now() + 60_000,
        workerId: 'sink-campaign',
      });
      for (const w of windows) acked[w.partition] = Math.max(acked[w.partition] ?? 0, w.end);
      return undefined;
    } catch (error) {
      return error;
    }
  };

  const classify = (error: unknown) => {
    if (!isRetriable(error)) stats.errors.push(describe(error));
    else if (!isInjected(error)) {
      stats.failures += 1;
      const reason = rootMessage(error);
      stats.failureReasons.set(reason, (stats.failureReasons.get(reason) ?? 0) + 1);
    }
  };

  const recycle = async (i: number) => {
    const old = containers[i] as Container;
    containers[i] = plan.newContainer();
    await old.engine.close();
  };

  const windowsFor = (partitions: readonly number[]): Window[] =>
    partitions.flatMap((p) => {
      const size = sizes[p] ?? 0;
      const done = acked[p] ?? 0;
      // Mostly from the acknowledged position; sometimes from earlier (a lost commit).
      const back = done >= size || random() < 0.25;
      const start = back ? Math.floor(random() * Math.min(done + 1, size)) : done;
      const end = Math.min(size, start + 1 + Math.floor(random() * maxBatch));
      return end > start ? [{ partition: p, start, end }] : [];
    });

  const all = sizes.map((_, p) => p);
  const pickPartitions = (): number[] => {
    const open = all.filter((p) => (acked[p] ?? 0) < (sizes[p] ?? 0));
    const chosen = all.filter((p) => random() < (open.includes(p) ? 0.6 : 0.05));
    if (chosen.length > 0) return chosen;
    const pool = open.length > 0 ? open : all;
    return [pool[Math.floor(random() * pool.length)] as number];
  };

  for (let i = 0; i < plan.replays && stats.errors.length === 0; i += 1) {
    const partitions = pickPartitions();
    const windows = windowsFor(partitions);
    if (windows.length === 0) continue;
    const c = random() < 0.5 ? 0 : 1;
    const container = containers[c] as Container;
    const overlap = random() < 0.15;
    if (random() < 0.4) {
      const point = FAULT_POINTS[Math.floor(random() * FAULT_POINTS.length)] ?? 'client';
      const many = point === 'client' || point === 'offsets';
      const skip = many && random() < 0.5 ? Math.floor(random() * 3) : 0;
      const steps = plan.clientSteps;
      const step = point === 'client' ? steps[Math.floor(random() * steps.length)] : undefined;
      container.faults.arm(point, skip, step);
    }
    const runs = [invoke(container, windows)];
    if (overlap) {
      stats.overlaps += 1;
      runs.push(invoke(containers[1 - c] as Container, windowsFor(partitions)));
    }
    for (const error of await Promise.all(runs)) if (error !== undefined) classify(error);
    const fired = container.faults.disarm();
    if (fired !== undefined) {
      stats.crashes += 1;
      // The container died with the invocation, or survived the failed invocation.
      if (random() < 0.5) await recycle(c);
    } else if (random() < 0.08) {
      stats.coldStarts += 1;
      await recycle(c);
    }
    if ((i + 1) % 50 === 0) {
      plan.log(
        `${plan.connector}: replays=${stats.replays} crashes=${stats.crashes} ` +
          `overlaps=${stats.overlaps} unacknowledged=${remaining()}`,
      );
    }
  }

  // Clean replays from the acknowledged positions until every record is acknowledged.
  for (let attempt = 0; remaining() > 0 && stats.errors.length === 0; attempt += 1) {
    if (attempt >= 300) {
      stats.errors.push(`${remaining()} record(s) still unacknowledged after 300 clean replays`);
      break;
    }
    const windows = sizes.flatMap((size, p) => {
      const start = acked[p] ?? 0;
      return start < size
        ? [{ partition: p, start, end: Math.min(size, start + 2 * maxBatch) }]
        : [];
    });
    const error = await invoke(containers[0] as Container, windows);
    if (error !== undefined) {
      classify(error);
      await sleep(200);
    }
  }

  // A new container gets everything again (every commit of the mapping lost): a no-op.
  if (stats.errors.length === 0) {
    await recycle(1);
    const everything = sizes.map((size, p) => ({ partition: p, start: 0, end: size }));
    let error = await invoke(containers[1] as Container, everything);
    for (let retry = 0; error !== undefined && retry < 5; retry += 1) {
      classify(error);
      await sleep(200);
      error = await invoke(containers[1] as Container, everything);
    }
    if (error !== undefined) classify(error);
  }
  stats.acknowledged = remaining() === 0;
  await Promise.all(containers.map((c) => c.engine.close()));
  return stats;
}
