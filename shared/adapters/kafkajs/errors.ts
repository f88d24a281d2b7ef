import { ConnectError, FencedError, RetriableError } from '../../connect/errors.js';
import { TransactionOutcomeUnknownError } from '../../ports/kafka-errors.js';

/** Broker error codes that mean a newer producer owns the transactional id. */
const producerFencedTypes = new Set([
  'PRODUCER_FENCED',
  'INVALID_PRODUCER_EPOCH',
  'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
  'INVALID_PRODUCER_ID_MAPPING',
]);

/**
 * kafkajs error types of the codes that say a group or transaction coordinator is loading (14,
 * Java's COORDINATOR_LOAD_IN_PROGRESS), not available (15, COORDINATOR_NOT_AVAILABLE) or on
 * another broker (16, NOT_COORDINATOR): the broker did not act on the request; it can be sent
 * again, to the coordinator looked up again.
 */
export const coordinatorErrorTypes: ReadonlySet<string> = new Set([
  'GROUP_LOAD_IN_PROGRESS',
  'GROUP_COORDINATOR_NOT_AVAILABLE',
  'NOT_COORDINATOR_FOR_GROUP',
]);

/** kafkajs error names whose request may have reached the broker without an answer coming back. */
const lostAnswerNames = new Set([
  'KafkaJSRequestTimeoutError',
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSNumberOfRetriesExceeded',
]);

interface KafkaJsErrorLike {
  name?: string;
  type?: string;
  message?: string;
  retriable?: boolean;
  cause?: unknown;
  originalError?: unknown;
}

function asLike(error: unknown): KafkaJsErrorLike {
  return typeof error === 'object' && error !== null ? (error as KafkaJsErrorLike) : {};
}

/** The chain of errors kafkajs wraps (NumberOfRetriesExceeded → originalError, NonRetriable → cause). */
function chain(error: unknown): KafkaJsErrorLike[] {
  const out: KafkaJsErrorLike[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && out.length < 8) {
    const like = asLike(current);
    out.push(like);
    current = like.originalError ?? like.cause;
  }
  return out;
}

/**
 * True when `error` itself (not a cause it wraps) is a coordinator answer of
 * {@link coordinatorErrorTypes}. A wrapped one was already retried by kafkajs.
 */
export function isCoordinatorAnswer(error: unknown): boolean {
  const { type } = asLike(error);
  return type !== undefined && coordinatorErrorTypes.has(type);
}

/** True when any error in the chain says a newer producer fenced this one (the producer fence). */
export function isProducerFenced(error: unknown): boolean {
  return chain(error).some((e) => e.type !== undefined && producerFencedTypes.has(e.type));
}

/** The chain's types or messages, each once (kafkajs often repeats its cause's message). */
function describe(error: unknown): string {
  const parts: string[] = [];
  for (const e of chain(error)) {
    const part = e.type ?? e.message ?? e.name;
    if (part !== undefined && !parts.some((seen) => seen.includes(part))) parts.push(part);
  }
  return parts.join(': ');
}

/**
 * Maps a kafkajs error to the project's errors. `completing` marks a commit or abort: any error
 * there other than fencing leaves the outcome unknown (the safe reading: recovery settles it).
 * Elsewhere a lost answer, a coordinator that is loading or moving (whatever flag kafkajs gives
 * it) or an error kafkajs marks retriable is retriable.
 */
export function mapKafkaError(error: unknown, action: string, completing = false): ConnectError {
  if (error instanceof ConnectError) return error;
  const detail = describe(error);
  if (isProducerFenced(error)) {
    return new FencedError(`${action} was fenced by a newer producer (${detail})`, {
      cause: error,
    });
  }
  if (completing) {
    return new TransactionOutcomeUnknownError(`${action}: outcome unknown (${detail})`, {
      cause: error,
    });
  }
  const lost = chain(error).some((e) => e.name !== undefined && lostAnswerNames.has(e.name));
  const coordinator = chain(error).some(
    (e) => e.type !== undefined && coordinatorErrorTypes.has(e.type),
  );
  if (lost || coordinator || chain(error).some((e) => e.retriable === true)) {
    return new RetriableError(`${action} failed (${detail})`, { cause: error });
  }
  return new ConnectError(`${action} failed (${detail})`, { cause: error });
}
