/**
 * The HTTP sink connector: every task gets the connector's config (the event source mapping
 * spreads the partitions among them). Keys are in `http-sink-config.ts`.
 */
import { type ConfigDef, IllegalStateError, SinkConnector } from 'serverless-connect/connect';
import { type HttpSinkDeps, systemHttpSinkDeps } from './http-client.js';
import {
  HTTP_SINK_CONFIG_DEF,
  HTTP_SINK_VERSION,
  parseHttpSinkConfig,
} from './http-sink-config.js';
import { HttpSinkTask } from './http-sink-task.js';

/**
 * @example
 * const connector = new HttpSinkConnector();
 * await connector.start({ topics: 'orders', 'http.url': 'https://hooks.example.com/orders' }, ctx);
 * await connector.taskConfigs(2); // two copies of the config
 */
export class HttpSinkConnector extends SinkConnector {
  readonly #deps: HttpSinkDeps;
  #props: Readonly<Record<string, string>> | null = null;

  constructor(deps: HttpSinkDeps = systemHttpSinkDeps()) {
    super();
    this.#deps = deps;
  }

  version(): string {
    return HTTP_SINK_VERSION;
  }

  config(): ConfigDef {
    return HTTP_SINK_CONFIG_DEF;
  }

  /** Parses the config: throws ConfigError when it is invalid. No I/O. */
  async start(props: Readonly<Record<string, string>>): Promise<void> {
    parseHttpSinkConfig(props);
    this.#props = { ...props };
  }

  async taskConfigs(maxTasks: number): Promise<Record<string, string>[]> {
    const props = this.#props;
    if (props === null) throw new IllegalStateError('The HTTP sink connector is not started');
    return Array.from({ length: Math.max(1, maxTasks) }, () => ({ ...props }));
  }

  async stop(): Promise<void> {
    this.#props = null;
  }

  createTask(): HttpSinkTask {
    return new HttpSinkTask(this.#deps);
  }
}
