/**
 * The record pipeline: a task's stages as data, and the one driver that runs them. Kafka
 * Connect writes each stage as one `retryWithToleranceOperator.execute(..., Stage.X, cls)` line
 * (`AbstractWorkerSourceTask.convertTransformedRecord`,
 * `WorkerSinkTask.convertAndTransformRecord`); here each is one {@link PipelineStage} entry of a
 * table, and {@link RecordPipeline} runs the table over every record of a batch:
 *
 * | source (source-pipeline.ts) | sink (sink-pipeline.ts) |
 * |---|---|
 * | TRANSFORMATION: the `transforms` chain | KEY_CONVERTER: `toConnectData` |
 * | KEY_CONVERTER: `fromConnectData` | VALUE_CONVERTER: `toConnectData` |
 * | VALUE_CONVERTER: `fromConnectData` | HEADER_CONVERTER: `toConnectHeader` |
 * | HEADER_CONVERTER: `fromConnectHeader` | TRANSFORMATION: the `transforms` chain |
 *
 * Transformations are synchronous, and so are most converters; a converter that needs I/O (a
 * schema registry) returns a Promise (see `Converter`). The driver runs a record's stages
 * directly, costing no promise, and awaits a stage only when it returned one. When a stage
 * throws or rejects, the driver hands the same record at that stage to the retry-with-tolerance
 * operator with the error as the stage's first attempt: its retries (which count that attempt),
 * tolerance, logging and dead letter go exactly as if the operator had run the stage from the
 * start. If the operator's run succeeds, the same loop carries on directly with the next stage.
 * The retry window of a failing stage starts after its first attempt rather than before it.
 *
 * A converter stage checks its converter's answer itself (`isPromiseLike`) and stores it in its
 * own field directly: a shared helper storing by field name cost the sink path about a tenth of
 * its throughput (its keyed stores see every stage's work shape).
 */
import type { ProcessingContext, Stage } from './error-stage.js';
import type { ExecutingClass, RetryWithToleranceOperator } from './retry-with-tolerance.js';

/** What a stage returns to drop the record (a transformation returned `null`). */
export const DROP: unique symbol = Symbol('drop');

/** What a stage returns: {@link DROP}, `undefined` to go on, or a promise of either. */
export type StageResult = typeof DROP | undefined | PromiseLike<typeof DROP | undefined>;

/**
 * One stage of a record pipeline. `W` is a record's work in progress: its original, and what
 * the stages before this one produced.
 */
export interface PipelineStage<W> {
  /** The stage reported on failure (the `__connect.errors.stage` header). */
  readonly stage: Stage;
  /** The executing class reported on failure, or a function naming it from the error. */
  readonly class: ExecutingClass;
  /**
   * Runs the stage on one record: reads what earlier stages wrote to `work` and writes its own
   * product there; returns {@link DROP} to drop the record. A promise when the stage waits for
   * I/O (an asynchronous converter), else synchronous. When it throws or rejects, running it
   * again on the same `work` must be a fresh attempt (it is how the operator retries).
   */
  readonly run: (work: W) => StageResult;
}

/** How a record left the stages: through all of them, dropped, or failed and skipped. */
export type RecordOutcome = 'passed' | 'dropped' | 'failed';

/** A pipeline's stage table and how its records enter and leave it. */
export interface RecordPipelineOptions<E, W> {
  readonly stages: readonly PipelineStage<W>[];
  readonly operator: RetryWithToleranceOperator;
  /** A record's work, from its envelope (its original, nothing produced yet). */
  readonly begin: (envelope: E) => W;
  /** The context a failing record is reported with (it names the record's original). */
  readonly contextOf: (work: W) => ProcessingContext;
  /** Writes what became of the record into its envelope. */
  readonly end: (envelope: E, work: W, outcome: RecordOutcome) => void;
}

/**
 * Runs records through a stage table under a task's retry-with-tolerance operator (see the
 * module notes). Calls must not overlap: a record's failure is reported (and dead-lettered)
 * before the next record starts.
 */
export class RecordPipeline<E, W> {
  readonly #options: RecordPipelineOptions<E, W>;
  readonly #stages: readonly PipelineStage<W>[];

  constructor(options: RecordPipelineOptions<E, W>) {
    this.#options = options;
    this.#stages = options.stages;
  }

  /**
   * Runs each envelope's record through the stages in turn and ends it (`end`). Rejects with
   * the operator's error when a failure is not tolerated (the task fails).
   */
  async process(envelopes: readonly E[]): Promise<void> {
    const { begin, end } = this.#options;
    for (const envelope of envelopes) {
      const work = begin(envelope);
      const outcome = this.#run(work, 0, undefined);
      end(envelope, work, outcome instanceof Promise ? await outcome : outcome);
    }
  }

  /**
   * Runs stages `from`.. of a record directly; a stage that throws continues under the operator.
   * `context` is the record's, once a stage of it has failed.
   */
  #run(
    work: W,
    from: number,
    context: ProcessingContext | undefined,
  ): RecordOutcome | Promise<RecordOutcome> {
    const stages = this.#stages;
    for (let at = from; at < stages.length; at += 1) {
      let result: StageResult;
      try {
        result = (stages[at] as PipelineStage<W>).run(work);
      } catch (error) {
        return this.#takeOver(work, at, error, context ?? this.#options.contextOf(work));
      }
      if (result === undefined) continue;
      if (result === DROP) return 'dropped';
      return this.#resume(result, work, at, context);
    }
    return 'passed';
  }

  /** Stage `at` of a record once its promise `pending` settled; then the rest, in {@link #run}. */
  async #resume(
    pending: PromiseLike<typeof DROP | undefined>,
    work: W,
    at: number,
    context: ProcessingContext | undefined,
  ): Promise<RecordOutcome> {
    let result: typeof DROP | undefined;
    try {
      result = await pending;
    } catch (error) {
      return this.#takeOver(work, at, error, context ?? this.#options.contextOf(work));
    }
    if (result === DROP) return 'dropped';
    return this.#run(work, at + 1, context);
  }

  /**
   * Stage `at` of a record under the operator, its first attempt having thrown (or rejected
   * with) `error`; then the rest of the record's stages, back in {@link #run}.
   */
  async #takeOver(
    work: W,
    at: number,
    error: unknown,
    context: ProcessingContext,
  ): Promise<RecordOutcome> {
    const { stage, class: className, run } = this.#stages[at] as PipelineStage<W>;
    let first: { readonly error: unknown } | undefined = { error };
    const result = await this.#options.operator.execute(
      stage,
      className,
      () => {
        const failed = first;
        first = undefined;
        if (failed !== undefined) throw failed.error;
        return run(work);
      },
      context,
    );
    if (result.failed) return 'failed';
    if (result.value === DROP) return 'dropped';
    return this.#run(work, at + 1, context);
  }
}
