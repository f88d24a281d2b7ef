import { AsyncLocalStorage } from 'node:async_hooks';
import type { LogFields } from '../../ports/logger.js';

/**
 * The invocation's log context: fields (function name, Lambda request id, connector, task) that
 * every JSON log line written while the invocation runs carries, whichever logger writes it,
 * including loggers built before the invocation (a sink task's, cached across batches). It
 * follows the invocation's async calls (AsyncLocalStorage), so invocations running at once in
 * one process (the local runtime) keep their own fields.
 *
 * @example
 * ```ts
 * await withLogContext({ function: 'sink-task', awsRequestId }, async () => {
 *   addLogContext({ connector: 'orders' });
 *   logger.info('batch written'); // {"message":"batch written","function":"sink-task","awsRequestId":...,"connector":"orders"}
 * });
 * ```
 */
const storage = new AsyncLocalStorage<Record<string, unknown>>();

/** Runs `run` with `fields` over the current context; the context ends with `run`. */
export function withLogContext<T>(fields: LogFields, run: () => T): T {
  return storage.run({ ...storage.getStore(), ...fields }, run);
}

/**
 * Adds `fields` to the current context (what the invocation learnt: its connector, its task), for
 * the rest of it. Outside any context it does nothing.
 */
export function addLogContext(fields: LogFields): void {
  const store = storage.getStore();
  if (store !== undefined) Object.assign(store, fields);
}

/** The fields of the current context (empty outside one). */
export function currentLogContext(): LogFields {
  return storage.getStore() ?? {};
}
