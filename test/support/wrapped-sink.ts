import type { ConfigDef, ConfigValue } from '../../shared/connect/config-def.js';
import type { ConnectorContext, SinkTaskContext } from '../../shared/connect/context.js';
import type { PluginDescriptor } from '../../shared/connect/plugin.js';
import type { SinkRecord, TopicPartition } from '../../shared/connect/records.js';
import { SinkConnector, SinkTask, type TopicPartitionOffsets } from '../../shared/connect/sink.js';

/** What a wrapper adds around a task's `put` and `preCommit`; each calls `next` to go on. */
export interface SinkTaskHooks {
  put?(records: readonly SinkRecord[], next: () => Promise<void>): Promise<void>;
  preCommit?(
    current: TopicPartitionOffsets,
    next: () => Promise<TopicPartitionOffsets>,
  ): Promise<TopicPartitionOffsets>;
}

class WrappedSinkTask extends SinkTask {
  constructor(
    private readonly inner: SinkTask,
    private readonly hooks: SinkTaskHooks,
  ) {
    super();
  }
  version(): string {
    return this.inner.version();
  }
  start(props: Readonly<Record<string, string>>, context: SinkTaskContext): Promise<void> {
    return this.inner.start(props, context);
  }
  override open(partitions: readonly TopicPartition[]): Promise<void> {
    return this.inner.open(partitions);
  }
  put(records: readonly SinkRecord[]): Promise<void> {
    const next = () => this.inner.put(records);
    return this.hooks.put ? this.hooks.put(records, next) : next();
  }
  override flush(current: TopicPartitionOffsets): Promise<void> {
    return this.inner.flush(current);
  }
  override preCommit(current: TopicPartitionOffsets): Promise<TopicPartitionOffsets> {
    const next = () => this.inner.preCommit(current);
    return this.hooks.preCommit ? this.hooks.preCommit(current, next) : next();
  }
  override close(partitions: readonly TopicPartition[]): Promise<void> {
    return this.inner.close(partitions);
  }
  stop(): Promise<void> {
    return this.inner.stop();
  }
}

class WrappedSinkConnector extends SinkConnector {
  constructor(
    private readonly inner: SinkConnector,
    private readonly hooks: SinkTaskHooks,
  ) {
    super();
  }
  version(): string {
    return this.inner.version();
  }
  config(): ConfigDef {
    return this.inner.config();
  }
  override validate(props: Readonly<Record<string, string>>): ConfigValue[] {
    return this.inner.validate(props);
  }
  start(props: Readonly<Record<string, string>>, context: ConnectorContext): Promise<void> {
    return this.inner.start(props, context);
  }
  taskConfigs(maxTasks: number): Promise<Record<string, string>[]> {
    return this.inner.taskConfigs(maxTasks);
  }
  stop(): Promise<void> {
    return this.inner.stop();
  }
  createTask(): SinkTask {
    return new WrappedSinkTask(this.inner.createTask(), this.hooks);
  }
}

/**
 * `inner` registered under `className`, its tasks' `put` and `preCommit` going through `hooks`
 * (timing them in benchmarks, crashing around them in the sink campaign); everything else is
 * the inner connector's.
 */
export function wrappedSinkDescriptor(
  inner: PluginDescriptor<'sink'>,
  className: string,
  hooks: SinkTaskHooks,
): PluginDescriptor<'sink'> {
  return {
    className,
    aliases: [],
    type: 'sink',
    version: inner.version,
    create: () => new WrappedSinkConnector(inner.create() as SinkConnector, hooks),
  };
}
