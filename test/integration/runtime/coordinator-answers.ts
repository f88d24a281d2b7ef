import { createRequire } from 'node:module';
import type { logCreator } from 'kafkajs';

/**
 * Test instruments for coordinator answers (loading, not available, not the coordinator): one
 * counts those a broker really gave, through kafkajs' log; the other makes a broker give them.
 */

const require = createRequire(import.meta.url);
const { createErrorFromCode } = require('kafkajs/src/protocol/error.js') as {
  createErrorFromCode(code: number): Error & { type: string };
};

/** The protocol codes (Java's names). */
export const COORDINATOR_LOAD_IN_PROGRESS = 14;
export const COORDINATOR_NOT_AVAILABLE = 15;
export const NOT_COORDINATOR = 16;

/** The message kafkajs logs for each code, to its type (GROUP_LOAD_IN_PROGRESS, …). */
const typeOfMessage = new Map(
  [COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR].map((code) => {
    const error = createErrorFromCode(code);
    return [error.message, error.type] as const;
  }),
);

/**
 * Counts the coordinator answers a broker gave, by `<request> <type>` (e.g.
 * `TxnOffsetCommit NOT_COORDINATOR_FOR_GROUP`): kafkajs logs every error answer at level ERROR
 * as `Response <request>(key: …)` with the error's message.
 */
export function coordinatorAnswerLog(): {
  readonly logCreator: logCreator;
  readonly counts: Map<string, number>;
} {
  const counts = new Map<string, number>();
  const logCreator: logCreator =
    () =>
    ({ log }) => {
      const request = /^Response (\w+)\(key/.exec(log.message)?.[1];
      const type = typeOfMessage.get(String(log.error));
      if (request === undefined || type === undefined) return;
      const key = `${request} ${type}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    };
  return { logCreator, counts };
}

/** The coordinator requests the shim can answer, FindCoordinator by key type. */
export type CoordinatorStep =
  | 'FindCoordinator(GROUP)'
  | 'FindCoordinator(TRANSACTION)'
  | 'InitProducerId'
  | 'AddPartitionsToTxn'
  | 'AddOffsetsToTxn'
  | 'TxnOffsetCommit'
  | 'EndTxn'
  | 'OffsetFetch';

/** kafkajs' Broker method sending each request. */
const methods = {
  findGroupCoordinator: undefined,
  initProducerId: 'InitProducerId',
  addPartitionsToTxn: 'AddPartitionsToTxn',
  addOffsetsToTxn: 'AddOffsetsToTxn',
  txnOffsetCommit: 'TxnOffsetCommit',
  endTxn: 'EndTxn',
  offsetFetch: 'OffsetFetch',
} as const satisfies Record<string, CoordinatorStep | undefined>;

type BrokerMethod = (this: { brokerAddress: string }, ...args: unknown[]) => Promise<unknown>;

/**
 * Answers the next requests of a step to one broker with the planned error codes, one code per
 * request, without sending them: the error kafkajs' response parser raises for such an answer
 * (`createErrorFromCode`), as a coordinator that did not act on the request answers. It wraps
 * the methods of kafkajs' Broker class (every kafkajs client in this process), touching only
 * requests to `address`; `uninstall` puts them back.
 */
export class CoordinatorShim {
  readonly #plans = new Map<CoordinatorStep, number[]>();
  readonly #originals = new Map<string, BrokerMethod>();
  /** Answers given so far, by step. */
  readonly injected = new Map<CoordinatorStep, number>();

  constructor(private readonly address: string) {}

  /** The next requests of each step answer these codes, in order, one request each. */
  plan(plans: Partial<Record<CoordinatorStep, readonly number[]>>): void {
    for (const [step, codes] of Object.entries(plans) as [CoordinatorStep, number[]][]) {
      this.#plans.set(step, [...codes]);
    }
  }

  /** Planned answers not given yet, by step (empty steps left out). */
  pending(): Record<string, number[]> {
    return Object.fromEntries([...this.#plans].filter(([, codes]) => codes.length > 0));
  }

  install(): void {
    const broker = require('kafkajs/src/broker/index.js') as {
      prototype: Record<string, BrokerMethod>;
    };
    const shim = this;
    for (const [method, name] of Object.entries(methods)) {
      const original = broker.prototype[method] as BrokerMethod;
      this.#originals.set(method, original);
      broker.prototype[method] = async function (this: { brokerAddress: string }, ...args) {
        const step = name ?? findCoordinatorStep(args[0]);
        const code = this.brokerAddress === shim.address ? shim.#next(step) : undefined;
        if (code !== undefined) throw createErrorFromCode(code);
        return original.apply(this, args);
      };
    }
  }

  uninstall(): void {
    const broker = require('kafkajs/src/broker/index.js') as {
      prototype: Record<string, BrokerMethod>;
    };
    for (const [method, original] of this.#originals) broker.prototype[method] = original;
    this.#originals.clear();
  }

  #next(step: CoordinatorStep): number | undefined {
    const code = this.#plans.get(step)?.shift();
    if (code !== undefined) this.injected.set(step, (this.injected.get(step) ?? 0) + 1);
    return code;
  }
}

/** FindCoordinator's step from kafkajs' `{ coordinatorType }` (0 group, 1 transaction). */
function findCoordinatorStep(args: unknown): CoordinatorStep {
  const type = (args as { coordinatorType?: number } | undefined)?.coordinatorType ?? 0;
  return type === 1 ? 'FindCoordinator(TRANSACTION)' : 'FindCoordinator(GROUP)';
}
