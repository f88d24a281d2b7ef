import { Duration } from 'aws-cdk-lib';
import { GraphWidget, MathExpression } from 'aws-cdk-lib/aws-cloudwatch';

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
  /**
   * The metering's estimate of what each invocation's work cost, in US dollars (unit `None`),
   * per connector; the shared line under `{CostLine}` (docs/metrics.md).
   */
  estimatedCost: 'EstimatedCost',
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

/**
 * Estimated cost per connector in US dollars per hour (the `EstimatedCost` sums), and the shared
 * line (the enumerator outside any connector, REST calls naming none: `{CostLine}`).
 */
export function estimatedCostWidget(namespace: string): GraphWidget {
  const hour = Duration.hours(1);
  return new GraphWidget({
    title: 'Estimated cost per connector (USD per hour; the shared line apart)',
    width: 24,
    period: hour,
    left: [
      perConnector(namespace, CONNECTOR_METRICS.estimatedCost, { statistic: 'Sum', period: hour }),
      new MathExpression({
        expression: `SEARCH('{${namespace},CostLine} MetricName="${CONNECTOR_METRICS.estimatedCost}"', 'Sum', ${hour.toSeconds()})`,
        usingMetrics: {},
        period: hour,
        label: 'shared',
      }),
    ],
  });
}
