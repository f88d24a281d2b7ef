/**
 * The idle back-off of source-task dispatch (docs/architecture.md, "Source dispatch"): a source
 * invocation that delivers no record leaves an idle streak on its task (the lease release writes
 * it, no extra write), and the enumerator's scheduled dispatch skips the task until the streak's
 * deferral has passed. The deferral doubles with each idle invocation in a row, so an idle task
 * is dispatched after 1, 2, 4, 8… schedule periods, never more than `maxMs` later than the
 * schedule would have dispatched it. A dispatch that delivers records clears the streak.
 *
 * What dispatches at once whatever the streak: an event for the connector (an S3 notification),
 * a task the enumerator or the control plane has just (re)assigned (status UNASSIGNED or
 * RESTARTING: new, resumed, restarted; a restart also clears the streak), and a streak recorded
 * under an older connector config version or task generation (a config change). Those
 * dispatches start a new streak.
 */
import type { IdleStreak } from '../../ports/lease-store.js';
import type { TaskState } from '../../ports/status-store.js';

export interface IdleBackoffSettings {
  /**
   * The first deferral step: the enumerator's schedule period (EventBridge's one minute). The
   * n-th idle invocation in a row defers the next dispatch by `baseMs × (2^(n-1) − 1)`: 0, 1, 3,
   * 7… periods, so dispatches come 1, 2, 4, 8… periods apart.
   */
  readonly baseMs: number;
  /**
   * The most a deferral adds to the schedule's own latency: records arriving at an idle task
   * wait at most this much longer than without the back-off. 0 turns the back-off off.
   */
  readonly maxMs: number;
}

/** One-minute steps up to 10 minutes (`SOURCE_IDLE_BACKOFF_MAX_SECONDS`, default 600). */
export const DEFAULT_IDLE_BACKOFF: IdleBackoffSettings = { baseMs: 60_000, maxMs: 600_000 };

/** How long after its `count`-th idle invocation in a row a task's next dispatch is deferred. */
export function idleDeferralMs(count: number, settings: IdleBackoffSettings): number {
  if (settings.maxMs <= 0 || count <= 1) return 0;
  // 2^31 periods is past any bound; the exponent is capped so the product stays finite.
  const periods = 2 ** Math.min(count - 1, 31) - 1;
  return Math.min(settings.maxMs, settings.baseMs * periods);
}

/** What the enumerator knows of a task when its scheduled run considers dispatching it. */
export interface IdleDispatchInput {
  readonly idle: IdleStreak | undefined;
  /** The task's status state, if it has one. */
  readonly state: TaskState | undefined;
  /** The connector's config version and the task's generation now. */
  readonly version: number;
  readonly generation: number;
  readonly now: number;
  /** The run was caused by an event for the connector (an S3 notification): no deferral. */
  readonly immediate: boolean;
}

/**
 * Whether to dispatch now, and the idle streak the invocation continues (0: a new one). `skip`
 * means the task's deferral has not passed yet.
 */
export type IdleDispatchDecision =
  | { readonly dispatch: true; readonly idleStreak: number }
  | { readonly dispatch: false; readonly dueAt: number };

const REASSIGNED: ReadonlySet<TaskState> = new Set(['UNASSIGNED', 'RESTARTING']);

/** The idle back-off's decision for one task (pure). */
export function idleDispatch(
  input: IdleDispatchInput,
  settings: IdleBackoffSettings,
): IdleDispatchDecision {
  const { idle } = input;
  const continues =
    idle !== undefined &&
    !input.immediate &&
    !(input.state !== undefined && REASSIGNED.has(input.state)) &&
    idle.version === input.version &&
    idle.generation === input.generation;
  if (!continues) return { dispatch: true, idleStreak: 0 };
  const dueAt = idle.endedAt + idleDeferralMs(idle.count, settings);
  return input.now >= dueAt
    ? { dispatch: true, idleStreak: idle.count }
    : { dispatch: false, dueAt };
}
