import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ConnectFunction } from './connect-function.js';
import {
  estimatedCostWidget,
  CONNECTOR_METRICS as M,
  overConnectors,
  perConnector,
} from './connector-metrics.js';
import type { ConnectFunctions } from './functions.js';
import { metricsNamespace } from './metrics-namespace.js';

/** Options of the alarms and the dashboard. */
export interface MonitoringOptions {
  /** Notified when an alarm fires and when it recovers. @default - no notifications */
  readonly alarmTopic?: ITopic;
  /**
   * The sink mappings' `OffsetLag` (records behind the end of the topic, the worst connector)
   * that counts as falling behind when it lasts 15 minutes.
   * @default 100000
   */
  readonly offsetLagThreshold?: number;
  /**
   * The WAL a PostgreSQL CDC connector's replication slot holds (`ReplicationSlotLagBytes`, the
   * worst connector) that raises the `ReplicationSlotLag` alarm: the database keeps that WAL on
   * its disk until the connector confirms it.
   * @default 1073741824 (1 GiB)
   */
  readonly replicationSlotLagThresholdBytes?: number;
  /**
   * The runbook each alarm links to (a section per alarm is appended as `#anchor`).
   * @default 'docs/runbook.md'
   */
  readonly runbookUrl?: string;
  /** Create the CloudWatch dashboard. @default true */
  readonly dashboard?: boolean;
}

export interface MonitoringProps extends MonitoringOptions {
  readonly functions: ConnectFunctions;
  readonly api: RestApi;
  readonly sourceTaskDlq: IQueue;
  /** The second REST API of `iam-or-connect-tools` (its own 5xx alarm). */
  readonly toolsApi?: RestApi;
  /** The Connect tools' authorizer function (the tools modes). */
  readonly authorizer?: ConnectFunction;
}

/** Every alarm, by id, with the runbook section (docs/runbook.md) that says what to do. */
export const ALARM_RUNBOOK_SECTIONS = {
  ApiErrors: 'api-function-errors',
  EnumeratorErrors: 'enumerator-errors',
  SourceTaskErrors: 'source-task-errors',
  SinkTaskErrors: 'sink-task-errors',
  ApiThrottles: 'api-function-throttles',
  EnumeratorThrottles: 'enumerator-throttles',
  SourceTaskThrottles: 'source-task-throttles',
  SinkTaskThrottles: 'sink-task-throttles',
  SourceTaskDlqMessages: 'source-task-dead-letter-queue',
  ConnectorReconcileFailures: 'connector-reconcile-failures',
  SinkOffsetLag: 'sink-offset-lag',
  ApiServerErrors: 'api-5xx-errors',
  FailedTasks: 'failed-tasks',
  SourceInvocationsFailing: 'source-invocations-failing',
  AuthorizerErrors: 'authorizer-errors',
  ToolsApiServerErrors: 'tools-api-5xx-errors',
  ReplicationSlotLag: 'replication-slot-lag',
} as const;

/** The alarms only the Connect tools modes have (the authorizer; the second API). */
export const CONNECT_TOOLS_ALARMS: readonly AlarmId[] = [
  'AuthorizerErrors',
  'ToolsApiServerErrors',
];
export type AlarmId = keyof typeof ALARM_RUNBOOK_SECTIONS;

const FIVE_MINUTES = Duration.minutes(5);
/**
 * Source tasks publish their metrics when an invocation ends, at least once per Lambda's longest
 * run: a 15-minute period sees every task's gauges.
 */
const FIFTEEN_MINUTES = Duration.minutes(15);

/** The default of `replicationSlotLagThresholdBytes`: 1 GiB of WAL held by a slot. */
export const DEFAULT_REPLICATION_SLOT_LAG_THRESHOLD_BYTES = 1024 ** 3;

/** The `ReplicationSlotLag` threshold of `options`, checked. */
function slotLagThresholdOf(options: MonitoringOptions): number {
  const threshold =
    options.replicationSlotLagThresholdBytes ?? DEFAULT_REPLICATION_SLOT_LAG_THRESHOLD_BYTES;
  if (!(Number.isFinite(threshold) && threshold > 0)) {
    throw new Error(
      `Monitoring: replicationSlotLagThresholdBytes must be a positive number of bytes (got ${threshold})`,
    );
  }
  return threshold;
}

/**
 * Alarms and a dashboard: errors and throttles of each function, the source-task failure queue,
 * connectors the enumerator cannot reconcile, failed tasks, failing source task invocations, the
 * sink mappings' offset lag, the PostgreSQL CDC connectors' replication slot lag and the API's
 * server errors. Each alarm's description links to its section of the runbook. The dashboard
 * adds records/s in and out, lag, commits, dead letters, task counts, replication slot lag and
 * estimated cost per connector.
 */
export class Monitoring extends Construct {
  readonly alarms: Partial<Record<AlarmId, Alarm>> = {};
  readonly dashboard: Dashboard | undefined;
  /** Runs of the enumerator that left at least one connector unreconciled. */
  readonly reconcileFailures: Metric;
  /** The worst `OffsetLag` over the sink function's mappings. */
  readonly sinkOffsetLag: Metric;
  /** The functions' metrics namespace, `ServerlessConnect/<stack>`. */
  readonly namespace: string;
  readonly #props: MonitoringProps;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.#props = props;
    const { functions } = props;
    const named: [ConnectFunction, 'Api' | 'Enumerator' | 'SourceTask' | 'SinkTask', string][] = [
      [functions.api, 'Api', 'api function'],
      [functions.enumerator, 'Enumerator', 'enumerator'],
      [functions.sourceTask, 'SourceTask', 'source task function'],
      [functions.sinkTask, 'SinkTask', 'sink task function'],
    ];
    for (const [fn, key, label] of named) {
      this.#alarm(`${key}Errors`, `The ${label} failed (unhandled error or timeout).`, {
        metric: fn.function.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
        threshold: 1,
      });
      // The enumerator's reserved concurrency throttles overlapping runs now and then by design;
      // only a throttle lasting 15 minutes is a problem.
      const sustained = key === 'Enumerator' ? 3 : 1;
      this.#alarm(`${key}Throttles`, `Invocations of the ${label} were throttled.`, {
        metric: fn.function.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }),
        threshold: 1,
        evaluationPeriods: sustained,
      });
    }
    this.#alarm(
      'SourceTaskDlqMessages',
      'Source task dispatches failed or expired and wait in the dead letter queue.',
      {
        metric: props.sourceTaskDlq.metricApproximateNumberOfMessagesVisible({
          period: FIVE_MINUTES,
          statistic: 'Maximum',
        }),
        threshold: 1,
      },
    );

    const namespace = metricsNamespace(this);
    this.namespace = namespace;
    new MetricFilter(this, 'ReconcileFailuresFilter', {
      logGroup: functions.enumerator.logGroup,
      // functions/enumerator/handler.ts logs one "enumerator run" line per run, with the
      // connectors that failed in `failed`.
      filterPattern: FilterPattern.all(
        FilterPattern.stringValue('$.message', '=', 'enumerator run'),
        FilterPattern.stringValue('$.failed[0]', '=', '*'),
      ),
      metricNamespace: namespace,
      metricName: 'ConnectorReconcileFailures',
      metricValue: '1',
      defaultValue: 0,
    });
    this.reconcileFailures = new Metric({
      namespace,
      metricName: 'ConnectorReconcileFailures',
      period: FIVE_MINUTES,
      statistic: 'Sum',
    });
    this.#alarm(
      'ConnectorReconcileFailures',
      'The enumerator keeps failing to reconcile at least one connector.',
      { metric: this.reconcileFailures, threshold: 3 },
    );

    // Lambda publishes OffsetLag for Kafka mappings per function (FunctionName) and per alias
    // (Resource); the function-wide Maximum is the worst connector.
    this.sinkOffsetLag = new Metric({
      namespace: 'AWS/Lambda',
      metricName: 'OffsetLag',
      dimensionsMap: { FunctionName: functions.sinkTask.function.functionName },
      period: FIVE_MINUTES,
      statistic: 'Maximum',
    });
    this.#alarm('SinkOffsetLag', 'A sink connector has been falling behind for 15 minutes.', {
      metric: this.sinkOffsetLag,
      threshold: props.offsetLagThreshold ?? 100_000,
      evaluationPeriods: 3,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
    // The enumerator publishes each connector's task counts every run (every minute).
    this.#alarm('FailedTasks', 'At least one task of a connector is FAILED.', {
      metric: overConnectors(namespace, M.failedTaskCount, 'MAX', FIVE_MINUTES),
      threshold: 1,
    });
    // A source task invocation that ends failed is dispatched again by the next run; failures
    // in two periods in a row are not a blip.
    this.#alarm(
      'SourceInvocationsFailing',
      'Source task invocations keep ending failed (the task is retried at each enumerator run).',
      {
        metric: overConnectors(namespace, M.sourceInvocationFailed, 'SUM', FIVE_MINUTES),
        threshold: 1,
        evaluationPeriods: 2,
      },
    );
    // Only PostgreSQL CDC connectors publish it; without any, the alarm has no data and stays OK.
    this.#alarm(
      'ReplicationSlotLag',
      'A PostgreSQL CDC connector’s replication slot holds more WAL than the threshold: the database keeps it on disk.',
      {
        metric: overConnectors(namespace, M.replicationSlotLag, 'MAX', FIFTEEN_MINUTES),
        threshold: slotLagThresholdOf(props),
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      },
    );
    this.#alarm('ApiServerErrors', 'The REST API answered 5xx.', {
      metric: props.api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' }),
      threshold: 5,
    });
    if (props.authorizer !== undefined) {
      this.#alarm(
        'AuthorizerErrors',
        'The Connect tools authorizer failed: Basic/Bearer requests are refused meanwhile.',
        {
          metric: props.authorizer.function.metricErrors({
            period: FIVE_MINUTES,
            statistic: 'Sum',
          }),
          threshold: 1,
        },
      );
    }
    if (props.toolsApi !== undefined) {
      this.#alarm('ToolsApiServerErrors', 'The Connect tools REST API answered 5xx.', {
        metric: props.toolsApi.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' }),
        threshold: 5,
      });
    }

    this.dashboard = props.dashboard === false ? undefined : this.#dashboard();
  }

  #alarm(
    id: AlarmId,
    summary: string,
    spec: {
      metric: IMetric;
      threshold: number;
      evaluationPeriods?: number;
      comparison?: ComparisonOperator;
    },
  ): void {
    const runbook = this.#props.runbookUrl ?? 'docs/runbook.md';
    const alarm = new Alarm(this, id, {
      alarmDescription: `${summary} Runbook: ${runbook}#${ALARM_RUNBOOK_SECTIONS[id]}`,
      metric: spec.metric,
      threshold: spec.threshold,
      evaluationPeriods: spec.evaluationPeriods ?? 1,
      comparisonOperator: spec.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    const topic = this.#props.alarmTopic;
    if (topic !== undefined) {
      alarm.addAlarmAction(new SnsAction(topic));
      alarm.addOkAction(new SnsAction(topic));
    }
    this.alarms[id] = alarm;
  }

  #dashboard(): Dashboard {
    const { functions, api, sourceTaskDlq } = this.#props;
    const fns = functions.all();
    const per = (title: string, metric: (fn: ConnectFunction) => IMetric) =>
      new GraphWidget({ title, width: 6, left: fns.map(metric) });
    const sinkName = functions.sinkTask.function.functionName;
    const dashboard = new Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
    });
    dashboard.addWidgets(
      new TextWidget({
        markdown: `# serverless-connect\nAlarms link to [the runbook](${this.#props.runbookUrl ?? 'docs/runbook.md'}).`,
        width: 24,
        height: 2,
      }),
    );
    dashboard.addWidgets(
      new AlarmStatusWidget({ title: 'Alarms', alarms: Object.values(this.alarms), width: 24 }),
    );
    dashboard.addWidgets(
      per('Invocations', (fn) => fn.function.metricInvocations({ period: Duration.minutes(1) })),
      per('Errors', (fn) => fn.function.metricErrors({ period: Duration.minutes(1) })),
      per('Throttles', (fn) => fn.function.metricThrottles({ period: Duration.minutes(1) })),
      per('Duration p95', (fn) => fn.function.metricDuration({ statistic: 'p95' })),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Sink offset lag (worst connector)',
        width: 8,
        left: [this.sinkOffsetLag],
      }),
      new GraphWidget({
        title: 'Sink offset lag per connector alias',
        width: 8,
        left: [
          new MathExpression({
            expression: `SEARCH('{AWS/Lambda,FunctionName,Resource} MetricName="OffsetLag" FunctionName="${sinkName}"', 'Maximum', 300)`,
            usingMetrics: {},
            label: '',
          }),
        ],
      }),
      new GraphWidget({
        title: 'Reconcile failures and source DLQ depth',
        width: 8,
        left: [this.reconcileFailures],
        right: [sourceTaskDlq.metricApproximateNumberOfMessagesVisible()],
      }),
    );
    const ns = this.namespace;
    const graph = (title: string, left: IMetric[], right: IMetric[] = []) =>
      new GraphWidget({ title, width: 8, left, right });
    dashboard.addWidgets(
      graph('Records/s in per connector (source poll, sink read)', [
        perConnector(ns, M.sourceRecordsPolled, { statistic: 'Sum', perSecond: true }),
        perConnector(ns, M.sinkRecordsReceived, { statistic: 'Sum', perSecond: true }),
      ]),
      graph('Records/s out per connector (written)', [
        perConnector(ns, M.recordsWritten, { statistic: 'Sum', perSecond: true }),
      ]),
      graph('Task counts per connector', [
        perConnector(ns, M.failedTaskCount, { statistic: 'Maximum' }),
        perConnector(ns, M.runningTaskCount, { statistic: 'Maximum' }),
        perConnector(ns, M.pausedTaskCount, { statistic: 'Maximum' }),
      ]),
    );
    dashboard.addWidgets(
      graph('Source transactions committed and aborted per connector', [
        perConnector(ns, M.transactionsCommitted, { statistic: 'Sum' }),
        perConnector(ns, M.transactionsAborted, { statistic: 'Sum' }),
      ]),
      graph('Dead-lettered records per connector', [
        perConnector(ns, M.recordsDeadLettered, { statistic: 'Sum' }),
      ]),
      graph('Failed source task invocations per connector', [
        perConnector(ns, M.sourceInvocationFailed, { statistic: 'Sum' }),
      ]),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Replication slot lag per connector (bytes of WAL held, PostgreSQL CDC)',
        width: 24,
        left: [
          perConnector(ns, M.replicationSlotLag, { statistic: 'Maximum', period: FIVE_MINUTES }),
        ],
        leftAnnotations: [
          { value: slotLagThresholdOf(this.#props), label: 'ReplicationSlotLag alarm' },
        ],
      }),
    );
    dashboard.addWidgets(estimatedCostWidget(ns));
    dashboard.addWidgets(
      new GraphWidget({
        title: 'REST API requests and errors',
        width: 12,
        left: [api.metricCount(), api.metricClientError(), api.metricServerError()],
      }),
      new GraphWidget({
        title: 'REST API latency p95',
        width: 12,
        left: [api.metricLatency({ statistic: 'p95' })],
      }),
    );
    return dashboard;
  }
}
