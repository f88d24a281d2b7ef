/**
 * The stop's zombie fencing, run inside `PATCH` and `DELETE /connectors/{c}/offsets`, as Kafka
 * Connect's leader runs a round of zombie fencing inside its alter-offsets request for an
 * exactly-once source connector (`DistributedHerder.modifyConnectorOffsets`).
 *
 * A stop writes an empty task-config set that lists the tasks it took away (`fencing`); until
 * they are fenced an old invocation could still commit offsets over the change. The enumerator
 * fences them after the stop's nudge, but that run may not have come yet (it is queued behind
 * the run in progress, or, in AWS, behind an asynchronous Invoke). So the request runs the same
 * round itself (`completeFencing`, the enumerator's code: revoke the leases, initialise the
 * tasks' transactional ids, settle what they left pending, empty the list), bounded by
 * {@link STOP_FENCING_TIMEOUT_MS}. The enumerator may run the round at the same time; every
 * step of it is idempotent or conditional, so whichever round loses a race finds the tasks
 * already fenced.
 */
import { ConflictError, ConnectError } from '../connect/errors.js';
import type { Clock } from '../ports/clock.js';
import type { ConfigMap, TaskConfigSet } from '../ports/config-store.js';
import type { KafkaAdminPort, KafkaClientFactory } from '../ports/kafka.js';
import type { Logger } from '../ports/logger.js';
import type { StateStore } from '../ports/state-store.js';
import { DEFAULT_ENUMERATOR_SETTINGS } from '../runtime/enumerator/enumerator-types.js';
import { completeFencing, type FencingDeps } from '../runtime/enumerator/fencing.js';
import { RestConflictError } from './errors.js';

/**
 * How long an offsets request may spend fencing the tasks a stop took away before it answers
 * 409 ("still being fenced, retry"). A round takes well under a second on a local broker (one
 * InitProducerId per task, in parallel; about 0.3 s of it waiting for the broker to abort the
 * stopped invocation's open transaction); the bound leaves room for a slow broker while keeping
 * the whole request far inside API Gateway's 29-second integration timeout.
 */
export const STOP_FENCING_TIMEOUT_MS = 10_000;

/** The Kafka clients and names the REST API fences a stopped source connector's tasks with. */
export interface StopFencingClients {
  /** Builds the throwaway transactional producers whose initialisation fences the old ones. */
  readonly kafka: Pick<KafkaClientFactory, 'transactionalProducer'>;
  /** Reads commit markers and record fates to settle what the fenced tasks left pending. */
  readonly admin: KafkaAdminPort;
  /** The source tasks' transactional id prefix (TRANSACTIONAL_ID_PREFIX). */
  readonly transactionalIdPrefix: string;
  /** The deployment's offsets topic (OFFSETS_TOPIC), for connectors without their own. */
  readonly offsetsTopic: string;
}

/** What {@link fenceStoppedTasks} works with (a part of the service context). */
export interface StopFencingContext {
  readonly store: StateStore;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Without clients (a composition with no Kafka), a listed task answers 409 at once. */
  readonly fencing?: StopFencingClients;
  readonly stopFencingTimeoutMs: number;
}

/** The 409 of a stop whose tasks are not fenced yet. */
export function stillFencing(name: string): RestConflictError {
  return new RestConflictError(
    `The tasks of connector ${name} are still being fenced after the stop; retry in a few seconds`,
  );
}

/**
 * Fences the tasks listed in `tasks.fencing` (the connector is STOPPED) and empties the list,
 * within `ctx.stopFencingTimeoutMs`. Throws {@link stillFencing}'s 409 when the round did not
 * finish in time (it goes on in the background; the enumerator completes it otherwise), when it
 * lost to a concurrent change, or when Kafka or the store failed retriably. Other failures
 * propagate (a 500, as Connect's "Failed to perform zombie fencing").
 */
export async function fenceStoppedTasks(
  ctx: StopFencingContext,
  name: string,
  tasks: TaskConfigSet,
  config: ConfigMap,
): Promise<void> {
  const clients = ctx.fencing;
  if (clients === undefined) throw stillFencing(name);
  const started = ctx.clock.now();
  const deps: FencingDeps = {
    store: ctx.store,
    logger: ctx.logger,
    kafka: clients.kafka,
    admin: clients.admin,
    settings: {
      transactionalIdPrefix: clients.transactionalIdPrefix,
      offsetsTopic: clients.offsetsTopic,
      dispatchConcurrency: DEFAULT_ENUMERATOR_SETTINGS.dispatchConcurrency,
    },
  };
  const round = completeFencing(deps, name, tasks, 'source', config).then(
    (): { readonly error?: unknown } => ({}),
    (error: unknown) => ({ error }),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ctx.stopFencingTimeoutMs);
  });
  const outcome = await Promise.race([round, timeout]);
  clearTimeout(timer);
  const fields = { connector: name, tasks: tasks.fencing, ms: ctx.clock.now() - started };
  if (outcome === 'timeout') {
    ctx.logger.warn('the stop’s fencing round did not finish within the request', fields);
    void round.then(({ error }) => {
      if (error === undefined) return;
      ctx.logger.warn('the stop’s fencing round failed', { ...fields, error });
    });
    throw stillFencing(name);
  }
  if (outcome.error === undefined) {
    ctx.logger.debug('fenced the tasks of a stop within the request', fields);
    return;
  }
  const retriable =
    outcome.error instanceof ConflictError ||
    (outcome.error instanceof ConnectError && outcome.error.retriable);
  if (!retriable) throw outcome.error;
  ctx.logger.warn('could not fence the tasks of a stop within the request; retry', {
    ...fields,
    error: outcome.error,
  });
  throw stillFencing(name);
}
