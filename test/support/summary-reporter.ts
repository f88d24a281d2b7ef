import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints a plain closing block after vitest's own summary, so CI logs state the outcome in a
 * runner-neutral form even when only their tail is kept: one `failed: <file> > <test>: <first
 * line of the error>` line per failure, then `tests: <n> passed, <n> failed, <n> skipped`. A
 * module that failed to load (no tests collected) counts as one failure.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>) {
    let passed = 0;
    let skipped = 0;
    const failures: string[] = unhandledErrors.map(
      (error) => `unhandled error: ${firstLine(error)}`,
    );
    for (const module of testModules) {
      const tests = [...module.children.allTests()];
      if (module.state() === 'failed' && tests.length === 0) {
        failures.push(`${module.moduleId}: ${firstLine(module.errors()[0])}`);
      }
      for (const test of tests) {
        const result = test.result();
        if (result.state === 'passed') passed += 1;
        else if (result.state === 'failed') {
          failures.push(
            `${module.relativeModuleId} > ${test.fullName}: ${firstLine(result.errors?.[0])}`,
          );
        } else skipped += 1;
      }
    }
    const lines = failures.map((failure) => `failed: ${failure}`.slice(0, 400));
    process.stdout.write(
      `\n${lines.map((line) => `${line}\n`).join('')}tests: ${passed} passed, ${failures.length} failed, ${skipped} skipped\n`,
    );
  }
}

function firstLine(error: unknown): string {
  if (error === undefined) return 'no error recorded';
  const message =
    typeof error === 'object' && error !== null && 'message' in error
      ? String(error.message)
      : String(error);
  return message.split('\n')[0] ?? '';
}
