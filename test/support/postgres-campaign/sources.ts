/**
 * The PostgreSQL campaign's two sources, postgres-cdc and postgres-source, invoked again and
 * again through the exactly-once source runtime, crashing at random protocol steps
 * (source-crashes.ts), while the workload writes.
 */
import type { KafkaClientFactory } from '../../../shared/ports/kafka.js';
import type { StateStore } from '../../../shared/ports/state-store.js';
import { derivedSeed, seededRandom } from '../seeded-random.js';
import {
  type CrashingOutcome,
  CrashingSource,
  type SkewedClock,
  skewedClock,
  storeSourceConnector,
} from '../source-crashes.js';
import type { NamedConfig } from './connectors.js';
import type { Verdict } from './verify.js';
import type { Workload } from './workload.js';

/** One connector's run and verdict. */
export interface PartReport extends Verdict {
  readonly crashes: number;
  readonly invocations: number;
  /** Invocations that ended otherwise than completed (interrupted, fenced, …), by outcome. */
  readonly outcomes: ReadonlyMap<string, number>;
  /** Crashes by where they happened. */
  readonly crashPoints: ReadonlyMap<string, number>;
}

/** Each invocation's time budget. */
const BUDGET_MS = 3_000;
/** The workload's mean pause between transactions. */
const WORKLOAD_PAUSE_MS = 15;

/** Invocations of one source connector, and what ended them. */
export class SourcePart {
  readonly outcomes = new Map<string, number>();

  constructor(
    readonly label: string,
    readonly source: CrashingSource,
  ) {}

  /** One randomized invocation; a task failure (non-retriable) ends the campaign. */
  async invoke(): Promise<CrashingOutcome> {
    const outcome = await this.source.invoke();
    if (!outcome.crashed && outcome.result.outcome !== 'completed') {
      const { outcome: ended, error } = outcome.result;
      this.outcomes.set(ended, (this.outcomes.get(ended) ?? 0) + 1);
      if (ended === 'failed') throw new Error(`${this.label} failed: ${error?.message ?? ''}`);
    }
    return outcome;
  }

  /** Clean invocations until one finds nothing new (the workload has stopped). */
  async catchUp(): Promise<void> {
    for (let attempt = 0; attempt < 30; attempt += 1) {
      if ((await this.source.settle()).records === 0) return;
    }
    throw new Error(`${this.label} still finds records after 30 clean invocations`);
  }

  report(verdict: Verdict): PartReport {
    const { crashes, invocations, crashPoints } = this.source;
    return { ...verdict, crashes, invocations, outcomes: this.outcomes, crashPoints };
  }
}

/** A source connector stored and ready to be invoked again and again. */
export async function sourcePart(
  label: string,
  deps: {
    /** A state store on `clock` (the campaign's table). */
    readonly store: (clock: SkewedClock) => StateStore;
    readonly kafka: KafkaClientFactory;
    readonly seed: number;
  },
  config: NamedConfig,
  afterCrash?: () => Promise<void>,
): Promise<SourcePart> {
  const { kafka } = deps;
  const clock = skewedClock();
  const store = deps.store(clock);
  const generation = await storeSourceConnector({ store, kafka }, config);
  const source = new CrashingSource({
    ports: { store, kafka },
    clock,
    random: seededRandom(derivedSeed(deps.seed, label)),
    connector: config.name,
    generation,
    budgetMs: BUDGET_MS,
    source: { maxRecordsPerInvocation: 400 },
    ...(afterCrash === undefined ? {} : { afterCrash }),
  });
  return new SourcePart(label, source);
}

/** Whether the CDC connector's committed offset is past its snapshot. */
export async function snapshotCommitted(store: StateStore, connector: string): Promise<boolean> {
  const offsets = await store.offsets.getSourceOffsets({ connector, task: 0 });
  const offset = offsets.committed?.offsets[0]?.offset;
  if (offset === undefined || offset === null) return false;
  return offset.snapshot === undefined || offset.last_snapshot_record === true;
}

/**
 * Both sources' invocations, each connector's one after the other and the two side by side, until
 * `crashes` crashes; the workload starts once `snapshotDone` says so (and the loop runs until it
 * did). The first failure stops both.
 */
export async function crashingInvocations(
  run: {
    readonly cdc: SourcePart;
    readonly orders: SourcePart;
    readonly load: Workload;
    readonly crashes: number;
    readonly log: (line: string) => void;
  },
  snapshotDone: () => Promise<boolean>,
): Promise<void> {
  const { cdc, orders, load, log } = run;
  const crashes = () => cdc.source.crashes + orders.source.crashes;
  const maxInvocations = 20 * Math.max(10, run.crashes);
  let writing = false;
  let failed = false;
  let logged = 0;
  const done = () => failed || load.failed || (writing && crashes() >= run.crashes);
  const invocations = async (part: SourcePart) => {
    try {
      while (!done()) {
        await part.invoke();
        if (part.source.invocations > maxInvocations) {
          throw new Error(`${part.label}: ${maxInvocations} invocations and not done`);
        }
        if (crashes() >= logged + 10) {
          logged = crashes() - (crashes() % 10);
          log(
            `crashes=${crashes()} (cdc ${cdc.source.crashes}, source ${orders.source.crashes}) ` +
              `changes=${load.changes.length} orders=${load.orders.length}`,
          );
        }
        if (part === cdc && !writing && (await snapshotDone())) {
          load.start(WORKLOAD_PAUSE_MS);
          writing = true;
          log(
            `snapshot committed after ${cdc.source.invocations} invocations: the workload starts`,
          );
        }
      }
    } catch (error) {
      failed = true;
      throw error;
    }
  };
  const settled = await Promise.allSettled([invocations(cdc), invocations(orders)]);
  for (const result of settled) if (result.status === 'rejected') throw result.reason;
}
