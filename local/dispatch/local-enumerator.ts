import type { Context } from 'aws-lambda';
import type { ConnectorReport } from '../../shared/runtime/enumerator/enumerator-types.js';
import { localLambdaContext } from '../esm/lambda-context.js';
import type { Reconciles } from '../runtime/local-reconciler.js';

/** The enumerator function's handler, as `functions/enumerator` exports it. */
export type EnumeratorHandler = (
  event: unknown,
  context: Context,
) => Promise<{ reports: ConnectorReport[] }>;

/** The enumerator function's timeout in the CDK app. */
const ENUMERATOR_TIMEOUT_MS = 5 * 60_000;

/**
 * EventBridge's scheduled event, as the one-minute rule sends it to the enumerator function
 * (the handler reconciles every connector for it).
 */
export function scheduledEvent(now: Date = new Date()): Record<string, unknown> {
  return {
    version: '0',
    id: `local-${now.getTime()}`,
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: now.toISOString(),
    region: 'local',
    resources: ['arn:aws:events:local:000000000000:rule/enumerator-schedule'],
    detail: {},
  };
}

/**
 * The local schedule's target: the enumerator function's own handler, invoked with the events
 * Lambda would send it: the scheduled event for a full run, the REST API's nudge
 * (`{"connector": name}`) for one connector.
 */
export function localEnumerator(handler: EnumeratorHandler): Reconciles {
  const context = () =>
    localLambdaContext({ functionName: 'enumerator', timeoutMs: ENUMERATOR_TIMEOUT_MS });
  return {
    reconcile: async (connector) => {
      const { reports } = await handler({ connector }, context());
      const report = reports[0];
      if (report === undefined) throw new Error(`the enumerator gave no report for ${connector}`);
      return report;
    },
    reconcileAll: async () => (await handler(scheduledEvent(), context())).reports,
  };
}
