import { describe, expect, it } from 'vitest';
import {
  DEFAULT_IDLE_BACKOFF,
  type IdleDispatchInput,
  idleDeferralMs,
  idleDispatch,
} from '../../../../../shared/runtime/task/idle-backoff.js';

const MINUTE = 60_000;
const settings = { baseMs: MINUTE, maxMs: 10 * MINUTE };

/** A task whose last idle invocation (of `count` in a row) released it at t = 0. */
function input(count: number, now: number, changes: Partial<IdleDispatchInput> = {}) {
  return {
    idle: { count, endedAt: 0, version: 3, generation: 7 },
    state: 'RUNNING' as const,
    version: 3,
    generation: 7,
    now,
    immediate: false,
    ...changes,
  };
}

describe('idleDeferralMs', () => {
  it('defers 0, 1, 3, 7 periods after 1, 2, 3, 4 idle invocations: dispatches 1, 2, 4, 8 periods apart', () => {
    const deferrals = [1, 2, 3, 4].map((n) => idleDeferralMs(n, settings) / MINUTE);

    expect(deferrals).toEqual([0, 1, 3, 7]);
  });

  it('never defers more than the bound, however long the streak', () => {
    const long = [5, 6, 40, 1_000_000].map((n) => idleDeferralMs(n, settings));

    expect(long).toEqual([10 * MINUTE, 10 * MINUTE, 10 * MINUTE, 10 * MINUTE]);
  });

  it('defers nothing when the bound is 0 (the back-off is off)', () => {
    expect(idleDeferralMs(5, { baseMs: MINUTE, maxMs: 0 })).toBe(0);
  });

  it('defaults to one-minute steps and a 10-minute bound', () => {
    expect(DEFAULT_IDLE_BACKOFF).toEqual({ baseMs: MINUTE, maxMs: 10 * MINUTE });
  });
});

describe('idleDispatch', () => {
  it('skips a task within its deferral and dispatches it, continuing the streak, once due', () => {
    const early = idleDispatch(input(3, 3 * MINUTE - 1), settings);
    const due = idleDispatch(input(3, 3 * MINUTE), settings);

    expect(early).toEqual({ dispatch: false, dueAt: 3 * MINUTE });
    expect(due).toEqual({ dispatch: true, idleStreak: 3 });
  });

  it('dispatches a task without a streak at once, starting none', () => {
    expect(idleDispatch(input(1, 0, { idle: undefined }), settings)).toEqual({
      dispatch: true,
      idleStreak: 0,
    });
  });

  it.each([
    ['an event for the connector', { immediate: true }],
    ['a resumed or new task (UNASSIGNED)', { state: 'UNASSIGNED' as const }],
    ['a restarted task (RESTARTING)', { state: 'RESTARTING' as const }],
    ['a config update (new config version)', { version: 4 }],
    ['a new task generation', { generation: 8 }],
  ])('dispatches at once and starts a new streak after %s', (_why, changes) => {
    expect(idleDispatch(input(6, 1, changes), settings)).toEqual({
      dispatch: true,
      idleStreak: 0,
    });
  });

  it('keeps the count under a 0 bound but never defers', () => {
    expect(idleDispatch(input(6, 0), { baseMs: MINUTE, maxMs: 0 })).toEqual({
      dispatch: true,
      idleStreak: 6,
    });
  });
});
