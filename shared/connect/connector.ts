/**
 * `Connector` and `Task`: the common part of source and sink connectors (Kafka Connect's
 * `org.apache.kafka.connect.connector.Connector` and `Task`).
 */
import type { ConfigDef, ConfigValue } from './config-def.js';
import type { ConnectorContext } from './context.js';

/**
 * What every task has. The task kinds (`SourceTask`, `SinkTask`) add `start` with their
 * context and their data methods.
 */
export interface Task {
  /** The task's version, usually the connector's. */
  version(): string;
  /** Releases resources. Called once, last; may be called while a data call is pending. */
  stop(): Promise<void>;
}

/**
 * A connector: a configured job that splits its work into task configs. Do not extend this
 * directly; extend `SourceConnector` or `SinkConnector`.
 *
 * Lifecycle (driven by the runtime's enumerator and REST handlers):
 * 1. A fresh instance comes from its plugin descriptor's `create()`; instances are never
 *    reused after `stop`.
 * 2. `validate(props)` may be called on a fresh instance without `start` (the
 *    `…/config/validate` endpoint and connector creation); it must not do I/O that changes
 *    anything.
 * 3. `start(props, context)` once, then `taskConfigs(maxTasks)` any number of times, then
 *    `stop()` once. In a serverless runtime an instance lives for one invocation: expect
 *    `start` → `taskConfigs` → `stop` on every reconciliation, so keep `start` cheap and keep
 *    no state that is not derivable from `props` and the external system.
 * 4. `createTask()` returns a fresh task instance each call; the runtime calls it on the
 *    task's own invocation, not necessarily on a started connector.
 *
 * `props` are the connector's config strings; never mutate them.
 */
export abstract class Connector {
  /** The connector's version (reported by `GET /connector-plugins`). */
  abstract version(): string;

  /** The definition of the connector's own config keys (not the runtime's `name`, `tasks.max`…). */
  abstract config(): ConfigDef;

  /**
   * Validates `props` (Connect's `Connector.validate`). The default validates against
   * {@link Connector.config}; override to add cross-key checks, appending errors to the
   * returned values. Never throws for bad input: errors go in `ConfigValue.errors`.
   */
  validate(props: Readonly<Record<string, string>>): ConfigValue[] {
    return this.config().validate(props);
  }

  /** Starts the connector with its config; `context` is valid until `stop` returns. */
  abstract start(props: Readonly<Record<string, string>>, context: ConnectorContext): Promise<void>;

  /**
   * The configs of at most `maxTasks` tasks (at least one). Each config is given to one task's
   * `start`. Returning the same configs as before keeps the tasks untouched; any change bumps
   * the changed tasks' generation.
   */
  abstract taskConfigs(maxTasks: number): Promise<Record<string, string>[]>;

  /** Stops the connector; called once, after `start`, even if `start` failed. */
  abstract stop(): Promise<void>;

  /** A new task instance (Connect's `taskClass()`; TypeScript has no class objects to pass). */
  abstract createTask(): Task;
}
