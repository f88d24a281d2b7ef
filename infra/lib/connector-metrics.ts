import { Duration } from 'aws-cdk-lib';
import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';

/**
 * The functions' own metrics (EMF, namespace `ServerlessConnect/<stack>`, dimension `Connector`;
 * docs/metrics.md maps them to Kafka Connect's) as CloudWatch expressions over every connector:
 * the connector set changes at run time, so graphs use `SEARCH` (one line per connector) and
 * alarms a Metrics Insights query (one line over all connectors; alarms cannot use `SEARCH`).
 */
export const CONNECTOR_METRICS = {
  /** Source: records the task's poll returned (`source-record-poll-total`). */
  sourceRecordsPolled: 'RecordsPolled',
  /** Sink: records the event source mapping delivered (`sink-record-read-total`). */
  sinkRecordsReceived: 'RecordsReceived',
  /** Source: records written to Kafka; sink: records put to the task (`*-record-write/send-total`). */
  recordsWritten: 'RecordsWritten',
  recordsDeadLettered: 'RecordsDeadLettered',
  transactionsCommitted: 'TransactionsCommitted',
  transactionsAborted: 'TransactionsAborted',
  /** 1 per source task invocation that ended failed. */
  sourceInvocationFailed: 'InvocationFailed',
  /** Published by the enumerator each run, per connector (MSK Connect's names). */
  runningTaskCount: 'RunningTaskCount',
  failedTaskCount: 'FailedTaskCount',
  pausedTaskCount: 'PausedTaskCount',
  /**
   * postgres-cdc: the WAL its replication slot holds (bytes), a gauge each task publishes with
   * its invocation's metrics (`PluginMetrics`).
   */
  replicationSlotLag: 'ReplicationSlotLagBytes',
} as const;

type MetricName = (typeof CONNECTOR_METRICS)[keyof typeof CONNECTOR_METRICS];

/** One line per connector: `metric`'s `statistic` over `period` (per second with `perSecond`). */
export function perConnector(
  namespace: string,
  metric: MetricName,
  options: { statistic: 'Sum' | 'Maximum'; period?: Duration; perSecond?: boolean; label?: string },
): MathExpression {
  const period = options.period ?? Duration.minutes(1);
  const search = `SEARCH('{${namespace},Connector} MetricName="${metric}"', '${options.statistic}', ${period.toSeconds()})`;
  return new MathExpression({
    expression: options.perSecond === true ? `${search} / ${period.toSeconds()}` : search,
    usingMetrics: {},
    period,
    label: options.label ?? '',
  });
}

/** One line over all connectors (Metrics Insights), for alarms: `aggregate` of `metric`. */
export function overConnectors(
  namespace: string,
  metric: MetricName,
  aggregate: 'SUM' | 'MAX',
  period: Duration,
): MathExpression {
  return new MathExpression({
    expression: `SELECT ${aggregate}(${metric}) FROM SCHEMA("${namespace}", Connector)`,
    usingMetrics: {},
    period,
    label: `${aggregate} ${metric} over connectors`,
  });
}
