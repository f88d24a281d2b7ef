/**
 * The checks of a source connector: the common ones, then exactly-once support, transaction
 * boundaries, offsets that resume where a stopped task left off, and errors with context.
 */
import {
  type SourceConnector,
  type SourceRecord,
  TRANSACTION_BOUNDARY_CONFIG,
} from '../connect/index.js';
import { type Check, ensure, mustNotThrow } from './check.js';
import { connectorChecks } from './connector-checks.js';
import { MemoryOffsetStore, RecordingConnectorContext, sourceTaskContext } from './contexts.js';
import { expectLifecycleFailure } from './failure.js';
import { compareRuns, runSource } from './source-worker.js';
import type { ConnectorConfig, SourceConnectorSubject, SourceFixture } from './subjects.js';

const DEFAULT_SEED = 42;
/** Task configs asked for in the resume runs: two, so the split is exercised too. */
const RESUME_TASKS = 2;

/**
 * The checks every source connector passes; run each as one test.
 *
 * @example
 * for (const c of sourceConnectorChecks(subject)) it(c.name, () => c.run());
 */
export function sourceConnectorChecks<F extends SourceFixture>(
  subject: SourceConnectorSubject<F>,
): Check[] {
  const world = async () => subject.setUp();
  const fresh = async (): Promise<SourceConnector> => (await world()).connector();
  const seed = subject.seed ?? DEFAULT_SEED;

  /**
   * The reference run (no stops) and a run with random stops, compared: at least once allows
   * repeats, exactly once does not.
   */
  const resumes = async (
    config: ConnectorConfig,
    exactlyOnce: boolean,
    connectorBoundaries = false,
  ) => {
    const options = { config, exactlyOnce, connectorBoundaries, tasks: RESUME_TASKS };
    const reference = await runSource(subject, await fresh(), { ...options, seed: null });
    const stopped = await runSource(subject, await fresh(), { ...options, seed });
    ensure(stopped.stops > 0, () => `seed ${seed} made no stop: pick another seed or more data`);
    compareRuns(reference, stopped, !exactlyOnce);
    return reference;
  };

  const checks: Check[] = [
    ...connectorChecks(subject, {
      kind: 'source',
      world,
      startTask: (task, props) =>
        (task as ReturnType<SourceConnector['createTask']>).start(
          props,
          sourceTaskContext(props, new MemoryOffsetStore()),
        ),
    }),
    {
      name: `source exactlyOnceSupport answers ${subject.exactlyOnceSupport} as documented, and never throws`,
      run: async () => {
        const answer = await mustNotThrow('exactlyOnceSupport(validConfig)', async () =>
          (await fresh()).exactlyOnceSupport(subject.validConfig),
        );
        ensure(
          answer === subject.exactlyOnceSupport,
          () =>
            `exactlyOnceSupport(validConfig) answered ${answer}, documented ${subject.exactlyOnceSupport}`,
        );
        for (const { config } of subject.invalidConfigs) {
          await mustNotThrow('exactlyOnceSupport(an invalid config)', async () =>
            (await fresh()).exactlyOnceSupport(config),
          );
        }
      },
    },
    {
      name: `source canDefineTransactionBoundaries answers ${subject.transactionBoundaries} consistently`,
      run: async () => {
        const answers = [
          (await fresh()).canDefineTransactionBoundaries(subject.validConfig),
          (await fresh()).canDefineTransactionBoundaries(subject.validConfig),
        ];
        const started = await fresh();
        await started.start(subject.validConfig, new RecordingConnectorContext());
        answers.push(started.canDefineTransactionBoundaries(subject.validConfig));
        await started.stop();
        ensure(
          answers.every((a) => a === subject.transactionBoundaries),
          () =>
            `canDefineTransactionBoundaries(validConfig) answered ${answers.join(', ')}, documented ${subject.transactionBoundaries}`,
        );
        for (const { config } of subject.invalidConfigs) {
          await mustNotThrow('canDefineTransactionBoundaries(an invalid config)', async () =>
            (await fresh()).canDefineTransactionBoundaries(config),
          );
        }
      },
    },
    {
      name: 'source offsets resume where a stopped task left off: no gap across random stops (at least once)',
      run: async () => {
        await resumes(subject.validConfig, false);
      },
    },
  ];

  if (subject.exactlyOnceSupport === 'SUPPORTED') {
    checks.push({
      name: 'source offsets resume where a stopped task left off: no gap, no repeat across random stops (exactly once)',
      run: async () => {
        await resumes(subject.validConfig, true);
      },
    });
  }

  if (subject.transactionBoundaries === 'SUPPORTED') {
    checks.push({
      name: 'source transaction boundaries the task defines are honoured: no gap, no repeat across random stops',
      run: async () => {
        const config = {
          ...subject.validConfig,
          [TRANSACTION_BOUNDARY_CONFIG]: 'connector',
          ...subject.transactionBoundaryConfig,
        };
        const reference = await resumes(config, true, true);
        ensure(
          reference.boundaryRequests > 0,
          () =>
            'the connector can define transaction boundaries, but its tasks never asked for one',
        );
      },
    });
  }

  const inject = subject.injectFailure?.bind(subject);
  if (inject !== undefined) {
    checks.push({
      name: 'source errors carry context: an injected failure surfaces as a ConnectError naming its cause',
      run: async () => {
        const fixture = await world();
        const connector = fixture.connector();
        const expected = inject(fixture);
        const store = new MemoryOffsetStore();
        for (const { partition, offset } of expected.storedOffsets ?? [])
          store.put(partition, offset);
        const task = connector.createTask();
        const polls: [string, () => Promise<SourceRecord[] | null>][] = Array.from(
          { length: (subject.idlePolls ?? 3) + 2 },
          (_, i) => [`poll #${i + 1}`, () => task.poll()],
        );
        await expectLifecycleFailure(
          expected,
          connector,
          subject.validConfig,
          (config) => task.start(config, sourceTaskContext(config, store)),
          polls,
        );
        await task.stop();
        await connector.stop();
      },
    });
  }
  return checks;
}
