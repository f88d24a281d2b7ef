/**
 * The two halves of the sink's direct path (stages run directly, the operator taking over from
 * a stage that throws). The source runs on RecordPipeline (record-pipeline.ts).
 */
import type { ProcessingContext, Stage } from './error-stage.js';
import type {
  ExecutingClass,
  OperationResult,
  RetryWithToleranceOperator,
} from './retry-with-tolerance.js';

/**
 * Runs a record's remaining stages under `operator` after its direct run threw `first`: the
 * first stage run this way gets `first` as its first attempt's failure (so retries, tolerance
 * and reporting go as if the operator had run it), the later ones run normally.
 */
export function resumeUnderOperator(
  operator: RetryWithToleranceOperator,
  context: ProcessingContext,
  first: { readonly error: unknown } | undefined,
): <V>(stage: Stage, className: ExecutingClass, operation: () => V) => Promise<OperationResult<V>> {
  let pending = first;
  return (stage, className, operation) =>
    operator.execute(
      stage,
      className,
      () => {
        const error = pending;
        pending = undefined;
        if (error !== undefined) throw error.error;
        return operation();
      },
      context,
    );
}

/**
 * `one(item)` for each item in turn, awaiting only the results that are promises (a record on
 * the direct path costs no turn of the event loop); the results, in order.
 */
export async function eachInTurn<T, R>(
  items: readonly T[],
  one: (item: T) => R | Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  for (let i = 0; i < items.length; i += 1) {
    const result = one(items[i] as T);
    results[i] = result instanceof Promise ? await result : result;
  }
  return results;
}
