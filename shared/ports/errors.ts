import {
  AlreadyExistsError,
  ConflictError,
  ConnectError,
  type ConnectErrorOptions,
  FencedError,
  IllegalStateError,
  NotFoundError,
  RetriableError,
} from '../connect/errors.js';

/**
 * Typed errors of the state-store ports. Each extends a class of `shared/connect/errors.ts`,
 * so callers that only care about the family (`instanceof ConflictError`, `retriable`) keep
 * working, and callers that care about the case can test the subclass. Adapters raise only
 * these (or the connect classes); no SDK error escapes an adapter.
 */

type Cause = Pick<ConnectErrorOptions, 'cause'>;

/** `createConnector` for a name that is taken. */
export class ConnectorExistsError extends AlreadyExistsError {
  readonly connector: string;
  constructor(connector: string, options: Cause = {}) {
    super(`Connector ${connector} already exists`, options);
    this.connector = connector;
  }
}

/** The connector has no config (never created, or deleted). */
export class ConnectorNotFoundError extends NotFoundError {
  readonly connector: string;
  constructor(connector: string, options: Cause = {}) {
    super(`Connector ${connector} not found`, options);
    this.connector = connector;
  }
}

/** The task id is not part of the connector's current task configs. */
export class TaskNotFoundError extends NotFoundError {
  readonly connector: string;
  readonly task: number;
  constructor(connector: string, task: number, options: Cause = {}) {
    super(`Task ${connector}-${task} not found`, options);
    this.connector = connector;
    this.task = task;
  }
}

/** An optimistic write lost: the stored version is not the one the caller read. */
export class StaleVersionError extends ConflictError {
  /** What was written: `config of <c>`, `task configs of <c>`, `source offsets of <c>-<t>`. */
  readonly subject: string;
  readonly expected: number;
  /** The version found, when known. */
  readonly actual: number | undefined;
  constructor(subject: string, expected: number, actual: number | undefined, options: Cause = {}) {
    super(
      `Stale version of ${subject}: expected ${expected}, found ${actual ?? 'unknown'}; re-read and retry`,
      options,
    );
    this.subject = subject;
    this.expected = expected;
    this.actual = actual;
  }
}

/** A lease was requested for a task generation that is no longer current. */
export class StaleGenerationError extends ConflictError {
  readonly connector: string;
  readonly task: number;
  readonly expected: number;
  readonly actual: number;
  constructor(connector: string, task: number, expected: number, actual: number) {
    super(
      `Task ${connector}-${task} is at generation ${actual}, not ${expected}; the invocation is outdated`,
    );
    this.connector = connector;
    this.task = task;
    this.expected = expected;
    this.actual = actual;
  }
}

/** Another invocation holds an unexpired lease on the task. */
export class LeaseHeldError extends ConflictError {
  readonly connector: string;
  readonly task: number;
  /** The current holder and its expiry, when known. */
  readonly owner: string | undefined;
  readonly expiresAt: number | undefined;
  constructor(
    connector: string,
    task: number,
    owner: string | undefined,
    expiresAt: number | undefined,
  ) {
    super(
      `Task ${connector}-${task} is leased by ${owner ?? 'another invocation'}${
        expiresAt === undefined ? '' : ` until ${new Date(expiresAt).toISOString()}`
      }`,
    );
    this.connector = connector;
    this.task = task;
    this.owner = owner;
    this.expiresAt = expiresAt;
  }
}

/** A write carried a lease (epoch, owner) that is no longer the task's current one: a zombie. */
export class LeaseFencedError extends FencedError {
  readonly connector: string;
  readonly task: number;
  readonly epoch: number;
  constructor(connector: string, task: number, epoch: number, detail: string) {
    super(`Task ${connector}-${task} epoch ${epoch} is fenced: ${detail}; stop writing`);
    this.connector = connector;
    this.task = task;
    this.epoch = epoch;
  }
}

/** A target-state change that the transition table forbids. */
export class InvalidTransitionError extends IllegalStateError {
  readonly connector: string;
  readonly from: string;
  readonly to: string;
  constructor(connector: string, from: string, to: string) {
    super(`Connector ${connector} cannot go from ${from} to ${to}`);
    this.connector = connector;
    this.from = from;
    this.to = to;
  }
}

/** A lease was requested while the connector's target state is not RUNNING. */
export class TargetNotRunningError extends IllegalStateError {
  readonly connector: string;
  readonly targetState: string;
  constructor(connector: string, targetState: string) {
    super(`Connector ${connector} is ${targetState}, not RUNNING; its tasks cannot be leased`);
    this.connector = connector;
    this.targetState = targetState;
  }
}

/** Offsets were altered or reset while the connector is not STOPPED (Kafka Connect's wording). */
export class ConnectorNotStoppedError extends IllegalStateError {
  readonly connector: string;
  readonly targetState: string;
  constructor(connector: string, targetState: string) {
    super(
      `Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/${connector}/stop' endpoint`,
    );
    this.connector = connector;
    this.targetState = targetState;
  }
}

/** Promote or discard named a pending transaction that is not there (or not above committed). */
export class NoPendingOffsetsError extends IllegalStateError {
  readonly connector: string;
  readonly task: number;
  readonly seq: number;
  constructor(connector: string, task: number, seq: number, detail: string) {
    super(`Task ${connector}-${task} has no pending offsets with seq ${seq}: ${detail}`);
    this.connector = connector;
    this.task = task;
    this.seq = seq;
  }
}

/** A value does not fit in one stored item (DynamoDB's 400 KB item limit). Not retriable. */
export class ItemTooLargeError extends ConnectError {
  /** What was written, e.g. `task configs of <c>`. */
  readonly subject: string;
  /** The measured size, when known, and the limit, in bytes. */
  readonly sizeBytes: number | undefined;
  readonly limitBytes: number;
  constructor(
    subject: string,
    sizeBytes: number | undefined,
    limitBytes: number,
    options: Cause = {},
  ) {
    super(
      `The ${subject} take ${sizeBytes === undefined ? 'more than' : `${sizeBytes} bytes, over`} the ${limitBytes}-byte limit of one state item; reduce tasks.max or the size of the task configs`,
      options,
    );
    this.subject = subject;
    this.sizeBytes = sizeBytes;
    this.limitBytes = limitBytes;
  }
}

/** The store is throttling or briefly unreachable; retry with backoff. */
export class StoreUnavailableError extends RetriableError {}

/**
 * A stored item was written by a newer format than this code knows (`ITEM_FORMAT_VERSION`): it
 * is refused, never misread or overwritten. Not retriable: upgrade the code.
 */
export class StateFormatError extends ConnectError {
  /** The item, e.g. `usage of <c> at 2026-12-02T13`. */
  readonly subject: string;
  readonly found: number;
  readonly known: number;
  constructor(subject: string, found: number, known: number, options: Cause = {}) {
    super(
      `The stored ${subject} has format v${found}; this runtime reads up to v${known} (upgrade it)`,
      options,
    );
    this.subject = subject;
    this.found = found;
    this.known = known;
  }
}
