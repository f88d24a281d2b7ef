/**
 * The checks every connector passes, source or sink: config validation, task configs, and
 * `stop()` on connector and task.
 */
import type { ConfigValue, Connector, Task } from '../connect/index.js';
import { type Check, CheckFailure, describeError, ensure, excerpt, mustNotThrow } from './check.js';
import { RecordingConnectorContext } from './contexts.js';
import type { ConnectorConfig, ConnectorSubject } from './subjects.js';

/** What the common checks need of a connector kind. */
export interface ConnectorKind {
  /** `source` or `sink`, the prefix of the check names. */
  readonly kind: string;
  /** A fresh world's connector factory. */
  world(): Promise<{ connector(): Connector }>;
  /** Starts `task` with `props` and a context of its kind. */
  startTask(task: Task, props: ConnectorConfig): Promise<void>;
}

/** Values no config key should make `validate` throw on. */
export const GARBAGE_VALUES: readonly string[] = Object.freeze([
  '',
  ' ',
  'garbage',
  '-1',
  '0',
  '2147483648',
  '99999999999999999999999',
  '1e309',
  'NaN',
  'true',
  '{"a":',
  '[',
  ',,,',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a config provider placeholder, as text
  '${env:NOPE}',
  '\u0000',
  'x'.repeat(10_000),
]);

export const DEFAULT_MAX_TASKS: readonly number[] = Object.freeze([1, 2, 3, 8]);

function errorsOf(values: readonly ConfigValue[]): string[] {
  return values.flatMap((v) => v.errors.map((e) => `${v.name}: ${e}`));
}

async function started(connector: Connector, props: ConnectorConfig): Promise<Connector> {
  await mustNotThrow(`start(validConfig)`, () =>
    connector.start(props, new RecordingConnectorContext()),
  );
  return connector;
}

export function connectorChecks(subject: ConnectorSubject, kind: ConnectorKind): Check[] {
  const k = kind.kind;
  const fresh = async () => (await kind.world()).connector();
  const maxTasks = subject.maxTasks ?? DEFAULT_MAX_TASKS;
  return [
    {
      name: `${k} config: validate(validConfig) reports no errors`,
      run: async () => {
        const connector = await fresh();
        const values = await mustNotThrow('validate(validConfig)', () =>
          connector.validate(subject.validConfig),
        );
        const errors = errorsOf(values);
        ensure(errors.length === 0, () => `validate(validConfig) reported: ${errors.join('; ')}`);
      },
    },
    {
      name: `${k} config: validate(each invalid config) reports an error on its field`,
      run: async () => {
        ensure(subject.invalidConfigs.length > 0, () => 'the subject gives no invalid config');
        for (const { config, field } of subject.invalidConfigs) {
          const connector = await fresh();
          const values = await mustNotThrow(`validate(${excerpt(config)})`, () =>
            connector.validate(config),
          );
          const value = values.find((v) => v.name === field);
          ensure(
            value !== undefined && value.errors.length > 0,
            () =>
              `validate(${excerpt(config)}) reported no error on ${field}; errors: ${errorsOf(values).join('; ') || 'none'}`,
          );
        }
      },
    },
    {
      name: `${k} config: validate never throws, whatever the value of each defined key`,
      run: async () => {
        const connector = await fresh();
        const keys = [...connector.config().configKeys().keys()];
        ensure(keys.length > 0, () => 'config() defines no keys');
        const configs: ConnectorConfig[] = [{}];
        for (const key of keys) {
          for (const garbage of GARBAGE_VALUES)
            configs.push({ ...subject.validConfig, [key]: garbage });
        }
        for (const config of configs) {
          let values: ConfigValue[];
          try {
            values = connector.validate(config);
          } catch (error) {
            throw new CheckFailure(`validate(${excerpt(config)}) threw ${describeError(error)}`, {
              cause: error,
            });
          }
          ensure(
            Array.isArray(values) && values.every((v) => Array.isArray(v.errors)),
            () => `validate(${excerpt(config)}) did not answer ConfigValues`,
          );
        }
      },
    },
    {
      name: `${k} taskConfigs(maxTasks) returns 1..maxTasks configs, each starting a task`,
      run: async () => {
        for (const n of maxTasks) {
          const world = await kind.world();
          const connector = await started(world.connector(), subject.validConfig);
          const configs = await mustNotThrow(`taskConfigs(${n})`, () => connector.taskConfigs(n));
          ensure(
            configs.length >= 1 && configs.length <= n,
            () => `taskConfigs(${n}) returned ${configs.length} configs`,
          );
          for (const [i, config] of configs.entries()) {
            const bad = Object.entries(config).filter(([, v]) => typeof v !== 'string');
            ensure(
              bad.length === 0,
              () => `taskConfigs(${n})[${i}] has values that are not strings: ${excerpt(bad)}`,
            );
            const task = connector.createTask();
            await mustNotThrow(`starting task ${i} of taskConfigs(${n})`, () =>
              kind.startTask(task, config),
            );
            await mustNotThrow(`stopping task ${i} of taskConfigs(${n})`, () => task.stop());
          }
          await connector.stop();
        }
      },
    },
    {
      name: `${k} stop() is idempotent on the connector (before start, and twice after)`,
      run: async () => {
        const world = await kind.world();
        await mustNotThrow('stop() before start', () => world.connector().stop());
        const connector = await started(world.connector(), subject.validConfig);
        await mustNotThrow('the first stop()', () => connector.stop());
        await mustNotThrow('the second stop()', () => connector.stop());
      },
    },
    {
      name: `${k} stop() is idempotent on the task (before start, and twice after)`,
      run: async () => {
        const world = await kind.world();
        const connector = await started(world.connector(), subject.validConfig);
        const [config] = await connector.taskConfigs(1);
        ensure(config !== undefined, () => 'taskConfigs(1) returned no config');
        await mustNotThrow('task stop() before start', () => connector.createTask().stop());
        const task = connector.createTask();
        await mustNotThrow('task start', () => kind.startTask(task, config));
        await mustNotThrow('the first task stop()', () => task.stop());
        await mustNotThrow('the second task stop()', () => task.stop());
        await connector.stop();
      },
    },
  ];
}
