import type { EnumeratorRunScope } from '../ports/dispatch.js';
import { LOGGERS } from '../ports/logger.js';
import type { MetricsSink } from '../ports/metrics.js';
import type { ConnectorReport } from '../runtime/enumerator/enumerator-types.js';
import type { Engine } from './engine.js';
import { s3SourcesReading } from './s3-sources.js';

/**
 * The task counts of each connector the run saw, under MSK Connect's names
 * (`RunningTaskCount`, `FailedTaskCount`, `PausedTaskCount`), dimension `Connector`.
 */
export function publishTaskCounts(metrics: MetricsSink, reports: readonly ConnectorReport[]): void {
  for (const { connector, taskStates } of reports) {
    if (taskStates === undefined) continue;
    metrics.publish(
      { Connector: connector },
      {
        RunningTaskCount: { value: taskStates.RUNNING ?? 0, unit: 'Count' },
        FailedTaskCount: { value: taskStates.FAILED ?? 0, unit: 'Count' },
        PausedTaskCount: { value: taskStates.PAUSED ?? 0, unit: 'Count' },
      },
    );
  }
}

/**
 * One enumerator run over `scope` (what the enumerator function and the local schedule both
 * call): every connector, the named ones, or the S3 sources reading announced objects. Failures
 * of single connectors are in the reports, not thrown. An S3 notification dispatches the
 * connectors' tasks whatever their idle back-off. Publishes the task counts of each
 * connector ({@link publishTaskCounts}) and logs one line: `info` when it dispatched, `warn` when
 * a connector failed, else `debug`.
 */
export async function enumerate(
  engine: Engine,
  scope: EnumeratorRunScope,
): Promise<ConnectorReport[]> {
  const { enumerator } = engine;
  const names =
    scope.kind === 'all'
      ? undefined
      : scope.kind === 'connectors'
        ? scope.connectors
        : await s3SourcesReading(engine.store.configs, scope.objects);
  const reports =
    names === undefined
      ? await enumerator.reconcileAll()
      : await Promise.all(
          // New data announced for these connectors: their tasks run now, idle or not.
          names.map((name) =>
            enumerator.reconcile(name, { immediate: scope.kind === 'created-objects' }),
          ),
        );
  publishTaskCounts(engine.metrics, reports);
  const dispatched = reports.reduce((n, r) => n + r.dispatched.length, 0);
  const deferred = reports.reduce((n, r) => n + (r.deferred?.length ?? 0), 0);
  const failed = reports.filter((r) => r.error !== undefined).map((r) => r.connector);
  const fields = { trigger: scope.kind, connectors: reports.length, dispatched, deferred };
  const log = engine.loggers(LOGGERS.enumerator);
  if (failed.length > 0) log.warn('enumerator run', { ...fields, failed });
  else if (dispatched > 0) log.info('enumerator run', fields);
  else log.debug('enumerator run', fields);
  return reports;
}
