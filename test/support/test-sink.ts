import { ConfigDef } from '../../shared/connect/config-def.js';
import type { ConnectorContext } from '../../shared/connect/context.js';
import type { AnyPluginDescriptor } from '../../shared/connect/plugin.js';
import type { SinkRecord } from '../../shared/connect/records.js';
import { SinkConnector, SinkTask } from '../../shared/connect/sink.js';

class NullSinkTask extends SinkTask {
  version(): string {
    return '1';
  }
  async start(): Promise<void> {}
  async put(_records: readonly SinkRecord[]): Promise<void> {}
  async stop(): Promise<void> {}
}

/** A sink connector making `tasks.max` identical task configs; fails when `fail` is set. */
class TestSinkConnector extends SinkConnector {
  #props: Readonly<Record<string, string>> = {};
  version(): string {
    return '1';
  }
  config(): ConfigDef {
    return new ConfigDef();
  }
  async start(props: Readonly<Record<string, string>>, _context: ConnectorContext): Promise<void> {
    if (props.fail !== undefined) throw new Error(`refused: ${props.fail}`);
    this.#props = props;
  }
  async taskConfigs(maxTasks: number): Promise<Record<string, string>[]> {
    return Array.from({ length: maxTasks }, () => ({ secret: this.#props.secret ?? '' }));
  }
  async stop(): Promise<void> {}
  createTask(): SinkTask {
    return new NullSinkTask();
  }
}

export const testSinkDescriptor: AnyPluginDescriptor = {
  className: 'test.TestSinkConnector',
  aliases: ['test-sink'],
  type: 'sink',
  version: '1',
  create: () => new TestSinkConnector(),
};
