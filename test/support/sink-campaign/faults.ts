import { RetriableError } from '../../../shared/connect/errors.js';
import type { PluginDescriptor } from '../../../shared/connect/plugin.js';
import type { OffsetStore } from '../../../shared/ports/offset-store.js';
import { wrappedSinkDescriptor } from '../wrapped-sink.js';

/**
 * Where a crash can be injected:
 * - `put:before` … `preCommit:after`: around the task's calls (the wrapping plugin);
 * - `client`: at a step of the sink's own client (an S3 or DynamoDB write, before or after it;
 *   a Kafka transaction step, including a commit whose answer is lost);
 * - `offsets`: the runner's sink offset write, after the sink wrote everything.
 */
export type FaultPoint =
  | 'put:before'
  | 'put:after'
  | 'preCommit:before'
  | 'preCommit:after'
  | 'client'
  | 'offsets';

export const FAULT_POINTS: readonly FaultPoint[] = [
  'put:before',
  'put:after',
  'preCommit:before',
  'preCommit:after',
  'client',
  'client',
  'offsets',
];

/** The failure an injected crash throws: retriable, so the mapping redelivers the batch. */
export class InjectedCrash extends RetriableError {
  /** Marks injected failures (other error classes may carry it too). */
  readonly injected = true;

  constructor(where: string) {
    super(`injected crash at ${where}`);
  }
}

/** Whether `error` or one of its causes was injected. */
export function isInjected(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; depth += 1) {
    if ((e as { injected?: unknown }).injected === true) return true;
    e = e.cause;
  }
  return false;
}

/**
 * One container's crash plan: {@link arm} a point (and step) and how many of its visits to let
 * pass; the visit after those throws (once). A container's plugins and stores call {@link hit}
 * at each point they pass, naming the step.
 */
export class Faults {
  #armed: { point: FaultPoint; skip: number; step: string | undefined } | undefined;
  #fired: string | undefined;

  /** Arms `point` (only its visits named `step`, when given), letting `skip` visits pass. */
  arm(point: FaultPoint, skip = 0, step?: string): void {
    this.#armed = { point, skip, step };
    this.#fired = undefined;
  }

  /** Disarms; returns where the crash happened, or undefined when it did not. */
  disarm(): string | undefined {
    const fired = this.#fired;
    this.#armed = undefined;
    this.#fired = undefined;
    return fired;
  }

  /** True (once) when the armed crash is due at this visit of `point`; `detail` names the step. */
  due(point: FaultPoint, detail: string = point): boolean {
    const armed = this.#armed;
    if (armed === undefined || armed.point !== point) return false;
    if (armed.step !== undefined && armed.step !== detail) return false;
    if (armed.skip > 0) {
      armed.skip -= 1;
      return false;
    }
    this.#armed = undefined;
    this.#fired = detail;
    return true;
  }

  /** Throws {@link InjectedCrash} when the armed crash is due here. */
  hit(point: FaultPoint, detail: string = point): void {
    if (this.due(point, detail)) throw new InjectedCrash(detail);
  }
}

/** `inner` under the class name `className`, its tasks crashing where `faults` says. */
export function faultySinkDescriptor(
  inner: PluginDescriptor<'sink'>,
  className: string,
  faults: Faults,
): PluginDescriptor<'sink'> {
  return wrappedSinkDescriptor(inner, className, {
    put: async (_records, next) => {
      faults.hit('put:before');
      await next();
      faults.hit('put:after');
    },
    preCommit: async (_current, next) => {
      faults.hit('preCommit:before');
      const committable = await next();
      faults.hit('preCommit:after');
      return committable;
    },
  });
}

/** `offsets`, whose sink offset writes crash (before writing) where `faults` says. */
export function faultyOffsets(offsets: OffsetStore, faults: Faults): OffsetStore {
  return new Proxy(offsets, {
    get(target, prop) {
      if (prop === 'commitSinkOffset') {
        return async (...args: Parameters<OffsetStore['commitSinkOffset']>) => {
          faults.hit('offsets', 'the sink offset write');
          return await target.commitSinkOffset(...args);
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
