/**
 * The checks of a sink connector: the common ones, then replay safety for its documented
 * guarantee (the same batch twice, batches split differently with lost offset commits) and
 * errors with context.
 */
import type { SinkConnector, SinkRecord, SinkTask } from '../connect/index.js';
import { type Check, canonical, ensure, excerpt, SeededRandom } from './check.js';
import { connectorChecks } from './connector-checks.js';
import { KitSinkTaskContext } from './contexts.js';
import { expectLifecycleFailure } from './failure.js';
import { resumeIndex, SinkWorker, sinkStream } from './sink-worker.js';
import type { SinkConnectorSubject, SinkFixture, SinkGuarantee } from './subjects.js';

const DEFAULT_SEED = 42;

function counts(items: readonly unknown[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of items) {
    const key = canonical(item);
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

/**
 * Compares what a replayed delivery left with what one clean delivery left, per `guarantee`:
 * exactly-once and idempotent sinks hold exactly the same items; at-least-once sinks hold
 * every item, possibly more than once, and nothing else.
 */
export function assessReplay(
  guarantee: SinkGuarantee,
  clean: readonly unknown[],
  replayed: readonly unknown[],
): void {
  ensure(clean.length > 0, () => 'one clean delivery wrote nothing: read() returned no item');
  const expected = counts(clean);
  const actual = counts(replayed);
  for (const [item, n] of expected) {
    const m = actual.get(item) ?? 0;
    ensure(m > 0, () => `missing after the replay: ${excerpt(item)}`);
    ensure(
      guarantee === 'at-least-once' || m === n,
      () =>
        `${excerpt(item)} is there ${m} times after the replay, ${n} after one delivery (${guarantee})`,
    );
  }
  for (const item of actual.keys()) {
    ensure(
      expected.has(item),
      () => `after the replay, an item one delivery does not write: ${excerpt(item)}`,
    );
  }
}

/**
 * The checks every sink connector passes; run each as one test.
 *
 * @example
 * for (const c of sinkConnectorChecks(subject)) it(c.name, () => c.run());
 */
export function sinkConnectorChecks<F extends SinkFixture>(
  subject: SinkConnectorSubject<F>,
): Check[] {
  const world = async () => subject.setUp();
  const seed = subject.seed ?? DEFAULT_SEED;
  const { stream, end } = sinkStream(subject);

  /** What one delivery of the whole stream leaves. */
  const clean = async (): Promise<readonly unknown[]> => {
    const fixture = await world();
    const worker = await SinkWorker.start(fixture.connector(), subject.validConfig);
    await worker.deliver(stream);
    await worker.finish(stream, end);
    return fixture.read();
  };

  const replay = async (scenario: (worker: SinkWorker) => Promise<void>) => {
    const expected = await clean();
    const fixture = await world();
    const worker = await SinkWorker.start(fixture.connector(), subject.validConfig);
    await scenario(worker);
    await worker.finish(stream, end);
    assessReplay(subject.guarantee, expected, await fixture.read());
  };

  const checks: Check[] = [
    ...connectorChecks(subject, {
      kind: 'sink',
      world,
      startTask: (task, props) => (task as SinkTask).start(props, new KitSinkTaskContext(props)),
    }),
    {
      name: `sink replay: the same batch delivered twice (to the same task, then to a new one) leaves what one delivery does (${subject.guarantee})`,
      run: () =>
        replay(async (worker) => {
          const third = Math.max(1, Math.floor(stream.length / 3));
          const [b1, b2, b3] = [
            stream.slice(0, third),
            stream.slice(third, 2 * third),
            stream.slice(2 * third),
          ];
          await worker.deliver(b1);
          await worker.deliver(b2, true);
          await worker.deliver(b2, true);
          worker.crash();
          await worker.deliver(b2);
          await worker.deliver(b3);
        }),
    },
    {
      name: `sink replay: batches split differently, with lost offset commits and crashes, leave what one delivery does (${subject.guarantee})`,
      run: () =>
        replay(async (worker) => {
          const random = new SeededRandom(seed);
          const most = Math.max(1, Math.floor(stream.length / 3));
          let at = 0;
          let lost = 0;
          while (at < stream.length) {
            const batch = stream.slice(at, at + random.int(1, most));
            // At least one lost commit, at the latest in the batch that crosses the middle.
            const lose =
              random.chance(0.35) || (lost === 0 && at + batch.length >= stream.length / 2);
            await worker.deliver(batch, lose);
            at += batch.length;
            if (lose) {
              lost++;
              if (random.chance(0.5)) worker.crash();
              at = resumeIndex(stream, worker);
            }
          }
        }),
    },
  ];

  const inject = subject.injectFailure?.bind(subject);
  if (inject !== undefined) {
    checks.push({
      name: 'sink errors carry context: an injected failure surfaces as a ConnectError naming its cause',
      run: async () => {
        const fixture = await world();
        const connector: SinkConnector = fixture.connector();
        const expected = inject(fixture);
        const task = connector.createTask();
        const batch: SinkRecord[] = stream.slice(0, Math.max(1, subject.topicPartitions.length));
        const current = new Map(
          batch.map((r) => [
            `${r.originalTopic}-${r.originalKafkaPartition}`,
            r.originalKafkaOffset + 1,
          ]),
        );
        await expectLifecycleFailure(
          expected,
          connector,
          subject.validConfig,
          (config) => task.start(config, new KitSinkTaskContext(config)),
          [
            ['open', () => task.open(subject.topicPartitions)],
            ['put', () => task.put(batch)],
            ['preCommit', () => task.preCommit(current)],
          ],
        );
        await task.stop();
        await connector.stop();
      },
    });
  }
  return checks;
}
