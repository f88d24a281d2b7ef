/** The "errors carry context" check's assessment, shared by sources and sinks. */
import { ConnectError } from '../connect/index.js';
import { CheckFailure, describeError, ensure } from './check.js';
import type { ExpectedFailure } from './subjects.js';

/**
 * Runs `steps` in order; the first to throw must throw a ConnectError whose message is not
 * empty and names `expected.cause`. Fails when none throws.
 */
export async function expectConnectError(
  expected: ExpectedFailure,
  steps: readonly (readonly [string, () => Promise<unknown>])[],
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
