/**
 * One invocation's meter: what it consumed, by owner (a connector, or `undefined` for the
 * shared line), and how its billed duration is attributed when it ends.
 */
import type { Usage, UsageOwner } from '../../ports/metering.js';
import { addUsage, emptyUsage, type MutableUsage } from './usage.js';

/** The functions whose invocations are metered. */
export type MeteredFunction = 'source-task' | 'sink-task' | 'enumerator' | 'api';

/** What the handler knows of its invocation when it starts. */
export interface MeteredInvocation {
  readonly function: MeteredFunction;
  /** The function's configured memory (Lambda's `memoryLimitInMB`; locally, the local settings). */
  readonly memoryMb: number;
}

/** Each owner's usage in one invocation (or carried between invocations), by owner. */
export type UsageByOwner = ReadonlyMap<UsageOwner, Usage>;

/** Accumulates usage by owner; the base of the invocation meter and the container's carry. */
export class UsageLedger {
  readonly #usage = new Map<UsageOwner, MutableUsage>();

  /** Adds `usage` to `owner`'s. */
  add(owner: UsageOwner, usage: Partial<Usage>): void {
    const current = this.#usage.get(owner) ?? emptyUsage();
    this.#usage.set(owner, addUsage(current, usage));
  }

  /** Adds every owner's usage of `other`. */
  addAll(other: UsageByOwner): void {
    for (const [owner, usage] of other) this.add(owner, usage);
  }

  /** Everything recorded so far (a view: not to be kept past the next change). */
  peek(): UsageByOwner {
    return this.#usage;
  }

  /** Everything recorded, and the ledger emptied. */
  take(): Map<UsageOwner, Usage> {
    const taken = new Map<UsageOwner, Usage>(this.#usage);
    this.#usage.clear();
    return taken;
  }
}

/**
 * One invocation. A usage report is the owner's of the span it was made in
 * ({@link InvocationMeter.span}), else of the connector the whole invocation is assigned to
 * when it ends ({@link InvocationMeter.assign}), else the shared line's.
 *
 * When it ends ({@link InvocationMeter.finish}), the billed duration (the measured one rounded
 * up to the millisecond, as Lambda bills), its memory, the invocation itself and, for the api
 * function, the API Gateway call go to the assigned connector; without one, to the connectors of
 * the spans in proportion to their time (spans that overlapped share the invocation in
 * proportion: each gets `span / max(billed, Σ spans)`), the rest to the shared line.
 */
export class InvocationMeter {
  readonly info: MeteredInvocation;
  readonly startedAt: number;
  readonly #spanned = new UsageLedger();
  /** Reports made outside any span: the assigned connector's, once known. */
  readonly #unspanned = new UsageLedger();
  readonly #spans = new Map<string, number>();
  #assigned: string | undefined;

  constructor(info: MeteredInvocation, startedAt: number) {
    this.info = info;
    this.startedAt = startedAt;
  }

  /**
   * The connector the whole invocation works for (a task's, a REST call's), or `undefined` for
   * the shared line (a REST call about a connector that does not exist); the last one wins.
   */
  assign(connector: string | undefined): void {
    this.#assigned = connector;
  }

  /** The connector the invocation was assigned to, if any. */
  get assigned(): string | undefined {
    return this.#assigned;
  }

  /** Adds `usage` to the span's connector, or (when `span` is undefined) to the invocation's. */
  record(span: UsageOwner, usage: Partial<Usage>): void {
    if (span === undefined) this.#unspanned.add(undefined, usage);
    else this.#spanned.add(span, usage);
  }

  /** `ms` of the invocation spent working for `connector`. */
  span(connector: string, ms: number): void {
    this.#spans.set(connector, (this.#spans.get(connector) ?? 0) + Math.max(0, ms));
  }

  /** Ends the invocation at `endedAt`: its usage by owner, the duration attributed. */
  finish(endedAt: number): Map<UsageOwner, Usage> {
    const billedMs = Math.max(1, Math.ceil(endedAt - this.startedAt));
    const usage = new UsageLedger();
    usage.addAll(this.#spanned.take());
    for (const [, unspanned] of this.#unspanned.take()) usage.add(this.#assigned, unspanned);
    const whole: Usage = {
      ...emptyUsage(),
      invocations: 1,
      lambdaMs: billedMs,
      lambdaMbMs: billedMs * this.info.memoryMb,
      apiCalls: this.info.function === 'api' ? 1 : 0,
    };
    for (const [owner, share] of this.#shares(billedMs)) {
      usage.add(owner, {
        invocations: whole.invocations * share,
        lambdaMs: whole.lambdaMs * share,
        lambdaMbMs: whole.lambdaMbMs * share,
        apiCalls: whole.apiCalls * share,
      });
    }
    return usage.take();
  }

  /** Each owner's share of the invocation (they sum to 1). */
  #shares(billedMs: number): Map<UsageOwner, number> {
    if (this.#assigned !== undefined || this.#spans.size === 0) {
      return new Map([[this.#assigned, 1]]);
    }
    const spanned = [...this.#spans.values()].reduce((a, b) => a + b, 0);
    const whole = Math.max(billedMs, spanned);
    const shares = new Map<UsageOwner, number>();
    let attributed = 0;
    for (const [connector, ms] of this.#spans) {
      shares.set(connector, ms / whole);
      attributed += ms / whole;
    }
    if (attributed < 1) shares.set(undefined, 1 - attributed);
    return shares;
  }
}
