import type { EnumeratorRunScope } from '../ports/dispatch.js';
import { LOGGERS } from '../ports/logger.js';
import type { ConnectorReport } from '../runtime/enumerator/enumerator-types.js';
import type { Engine } from './engine.js';
import { s3SourcesReading } from './s3-sources.js';

/**
 * One enumerator run over `scope` (what the enumerator function and the local schedule both
 * call): every connector, the named ones, or the S3 sources reading announced objects. Failures
 * of single connectors are in the reports, not thrown. Logs one line: `info` when it
 * dispatched, `warn` when a connector failed, else `debug`.
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
      : await Promise.all(names.map((name) => enumerator.reconcile(name)));
  const dispatched = reports.reduce((n, r) => n + r.dispatched.length, 0);
  const failed = reports.filter((r) => r.error !== undefined).map((r) => r.connector);
  const fields = { trigger: scope.kind, connectors: reports.length, dispatched };
  const log = engine.loggers(LOGGERS.enumerator);
  if (failed.length > 0) log.warn('enumerator run', { ...fields, failed });
  else if (dispatched > 0) log.info('enumerator run', fields);
  else log.debug('enumerator run', fields);
  return reports;
}
