/** The "errors carry context" check's assessment, shared by sources and sinks. */
import { ConnectError, type Connector } from '../connect/index.js';
import { CheckFailure, describeError, ensure } from './check.js';
import { RecordingConnectorContext } from './contexts.js';
import type { ConnectorConfig, ExpectedFailure } from './subjects.js';

/** A named step of a lifecycle. */
export type Step = readonly [string, () => Promise<unknown>];

/**
 * Runs `steps` in order; the first to throw must throw a ConnectError whose message is not
 * empty and names `expected.cause`. Fails when none throws.
 */
export async function expectConnectError(
  expected: ExpectedFailure,
  steps: readonly Step[],
): Promise<void> {
  for (const [step, action] of steps) {
    let thrown: unknown;
    try {
      await action();
      continue;
    } catch (error) {
      thrown = error;
    }
    ensure(
      thrown instanceof ConnectError,
      () => `${step} failed with ${describeError(thrown)}, not a ConnectError`,
    );
    const { message } = thrown;
    const names =
      typeof expected.cause === 'string'
        ? message.includes(expected.cause)
        : expected.cause.test(message);
    ensure(
      message.trim().length > 0 && names,
      () =>
        `${step} failed with ${describeError(thrown)}, whose message does not name ${String(expected.cause)}`,
    );
    return;
  }
  throw new CheckFailure(
    `nothing failed after the injected failure (${String(expected.cause)}): ${steps.map(([s]) => s).join(', ')} all succeeded`,
  );
}

/**
 * The lifecycle after an injected failure: connector start with `config`, `taskConfigs(1)`,
 * `startTask` with the first task config, then the task's `dataSteps`; the first step to
 * fail must fail with a ConnectError naming the cause (see {@link expectConnectError}).
 */
export async function expectLifecycleFailure(
  expected: ExpectedFailure,
  connector: Connector,
  config: ConnectorConfig,
  startTask: (taskConfig: ConnectorConfig) => Promise<unknown>,
  dataSteps: readonly Step[],
): Promise<void> {
  let taskConfig: ConnectorConfig = {};
  await expectConnectError(expected, [
    ['connector start', () => connector.start(config, new RecordingConnectorContext())],
    [
      'taskConfigs(1)',
      async () => {
        taskConfig = (await connector.taskConfigs(1))[0] ?? {};
      },
    ],
    ['task start', () => startTask(taskConfig)],
    ...dataSteps,
  ]);
}
