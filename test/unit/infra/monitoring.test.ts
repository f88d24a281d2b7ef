import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../infra/lib/serverless-connect-stack.js';
import { cdkJsonContext, functionEnvironments, resourcesOf, synthConstruct } from './synth.js';
import { selfManagedPlain } from './variants.js';

/** The stack of synthConstruct is named `Test`. */
const NAMESPACE = 'ServerlessConnect/Test';

const alarmMetrics = (template: ReturnType<typeof synthConstruct>['template']) =>
  Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).map(
    (a) => a.Properties.Metrics as { Expression?: string }[] | undefined,
  );

/** The metric math expressions of the dashboard's graphs (references to resources as `REF`). */
function dashboardExpressions(template: ReturnType<typeof synthConstruct>['template']): string[] {
  const [dashboard] = Object.values(resourcesOf(template, 'AWS::CloudWatch::Dashboard'));
  if (dashboard === undefined) throw new Error('no dashboard');
  const join = (dashboard.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] })[
    'Fn::Join'
  ];
  const body = JSON.parse(
    join[1].map((part) => (typeof part === 'string' ? part : 'REF')).join(''),
  );
  const widgets = body.widgets as { properties: { metrics?: unknown[][] } }[];
  return widgets.flatMap((w) =>
    (w.properties.metrics ?? []).flatMap((m) =>
      m.flatMap((entry) =>
        typeof entry === 'object' && entry !== null && 'expression' in entry
          ? [String((entry as { expression: unknown }).expression)]
          : [],
      ),
    ),
  );
}

describe('monitoring of connectors', { timeout: 60_000 }, () => {
  const { template } = synthConstruct(selfManagedPlain);

  it('gives every function the stack’s metrics namespace, the one its log filter writes to', () => {
    // Act
    const environments = Object.values(functionEnvironments(template));
    // Assess
    expect(environments).toHaveLength(4);
    for (const variables of environments) {
      expect(variables.METRICS_NAMESPACE).toBe(NAMESPACE);
      expect(variables.METRICS_PER_PARTITION).toBeUndefined();
    }
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      MetricTransformations: [Match.objectLike({ MetricNamespace: NAMESPACE })],
    });
  });

  it('alarms when a connector has a FAILED task, over every connector of the stack', () => {
    // Act
    const expressions = alarmMetrics(template).flatMap((m) => m?.map((q) => q.Expression) ?? []);
    // Assess
    expect(expressions).toContain(
      `SELECT MAX(FailedTaskCount) FROM SCHEMA("${NAMESPACE}", Connector)`,
    );
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('FAILED.*runbook.md#failed-tasks$'),
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms when source task invocations keep failing', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('runbook.md#source-invocations-failing$'),
      EvaluationPeriods: 2,
      Metrics: [
        Match.objectLike({
          Expression: `SELECT SUM(InvocationFailed) FROM SCHEMA("${NAMESPACE}", Connector)`,
          Period: 300,
        }),
      ],
    });
  });

  it('alarms when a PostgreSQL CDC replication slot holds over 1 GiB of WAL, over every connector', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp(
        'replication slot holds more WAL.*runbook.md#replication-slot-lag$',
      ),
      Metrics: [
        Match.objectLike({
          Expression: `SELECT MAX(ReplicationSlotLagBytes) FROM SCHEMA("${NAMESPACE}", Connector)`,
          Period: 900,
          ReturnData: true,
        }),
      ],
      Threshold: 1024 ** 3,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
  });

  it('graphs records/s in and out, lag, commits, dead letters and task counts per connector', () => {
    // Prepare
    const expressions = dashboardExpressions(template);
    // Assess
    for (const metric of [
      'RecordsPolled',
      'RecordsReceived',
      'RecordsWritten',
      'TransactionsCommitted',
      'RecordsDeadLettered',
      'FailedTaskCount',
      'RunningTaskCount',
      'PausedTaskCount',
      'ReplicationSlotLagBytes',
    ]) {
      expect(
        expressions.some((e) =>
          e.startsWith(`SEARCH('{${NAMESPACE},Connector} MetricName="${metric}"'`),
        ),
      ).toBe(true);
    }
    expect(expressions).toContain(
      `SEARCH('{${NAMESPACE},Connector} MetricName="RecordsWritten"', 'Sum', 60) / 60`,
    );
    expect(expressions.some((e) => e.includes('MetricName="OffsetLag"'))).toBe(true);
  });

  it('graphs the estimated cost per connector and of the shared line, in dollars per hour', () => {
    // Act
    const expressions = dashboardExpressions(template);
    // Assess
    expect(expressions).toContain(
      `SEARCH('{${NAMESPACE},Connector} MetricName="EstimatedCost"', 'Sum', 3600)`,
    );
    expect(expressions).toContain(
      `SEARCH('{${NAMESPACE},CostLine} MetricName="EstimatedCost"', 'Sum', 3600)`,
    );
  });
});

describe('replication slot lag threshold', { timeout: 60_000 }, () => {
  const slotLagAlarm = (template: Template) =>
    Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).find((a) =>
      String(a.Properties.AlarmDescription).endsWith('#replication-slot-lag'),
    )?.Properties;

  it('takes the threshold from the construct props and the default app’s context', () => {
    // Act
    const fromProps = synthConstruct(() => ({
      ...selfManagedPlain(),
      monitoring: { replicationSlotLagThresholdBytes: 256 * 1024 ** 2 },
    }));
    const { app, stack } = createApp({
      context: {
        ...cdkJsonContext(),
        nag: 'false',
        'aws:cdk:bundling-stacks': [],
        alarmEmail: 'ops@example.com',
        replicationSlotLagAlarmBytes: '5368709120',
      },
    });
    const fromContext = Template.fromJSON(
      app.synth().getStackArtifact(stack.artifactId).template as Record<string, unknown>,
    );
    // Assess
    expect(slotLagAlarm(fromProps.template)?.Threshold).toBe(256 * 1024 ** 2);
    expect(slotLagAlarm(fromContext)).toMatchObject({
      Threshold: 5 * 1024 ** 3,
      AlarmActions: [{ Ref: expect.stringMatching(/^AlarmTopic/) }],
      OKActions: [{ Ref: expect.stringMatching(/^AlarmTopic/) }],
    });
  });

  it('refuses a threshold that is not a positive number of bytes', () => {
    expect(() =>
      synthConstruct(() => ({
        ...selfManagedPlain(),
        monitoring: { replicationSlotLagThresholdBytes: 0 },
      })),
    ).toThrow('replicationSlotLagThresholdBytes must be a positive number of bytes (got 0)');
    expect(() =>
      createApp({
        context: { ...cdkJsonContext(), replicationSlotLagAlarmBytes: '1GiB' },
      }),
    ).toThrow('Context replicationSlotLagAlarmBytes must be an integer (got 1GiB)');
  });
});

describe('metrics and log options of the functions', { timeout: 60_000 }, () => {
  it('turns on per-partition metrics and sets the log level refresh from the construct props', () => {
    // Act
    const { template } = synthConstruct(() => ({
      ...selfManagedPlain(),
      functions: { perPartitionMetrics: true, logLevelRefreshSeconds: 10 },
    }));
    // Assess
    for (const variables of Object.values(functionEnvironments(template))) {
      expect(variables).toMatchObject({
        METRICS_PER_PARTITION: 'true',
        LOG_LEVEL_REFRESH_SECONDS: '10',
      });
    }
  });

  it('takes both from the default app’s context', () => {
    // Act
    const { app, stack } = createApp({
      context: {
        ...cdkJsonContext(),
        nag: 'false',
        'aws:cdk:bundling-stacks': [],
        stackName: 'Orders',
        perPartitionMetrics: 'true',
        logLevelRefreshSeconds: '15',
      },
    });
    const template = Template.fromJSON(
      app.synth().getStackArtifact(stack.artifactId).template as Record<string, unknown>,
    );
    // Assess
    const environments = Object.values(functionEnvironments(template));
    expect(environments).toHaveLength(4);
    for (const variables of environments) {
      expect(variables).toMatchObject({
        METRICS_NAMESPACE: 'ServerlessConnect/Orders',
        METRICS_PER_PARTITION: 'true',
        LOG_LEVEL_REFRESH_SECONDS: '15',
      });
    }
  });

  it('gives every function the price overrides of costPrices, from the props or the context', () => {
    // Prepare
    const prices = { region: 'eu-west-1', lambdaArmPerGbSecond: 0.0000134 };
    // Act
    const { template } = synthConstruct(() => ({
      ...selfManagedPlain(),
      functions: { costPrices: prices },
    }));
    const { app, stack } = createApp({
      context: {
        ...cdkJsonContext(),
        nag: 'false',
        'aws:cdk:bundling-stacks': [],
        costPrices: JSON.stringify(prices),
      },
    });
    const fromContext = Template.fromJSON(
      app.synth().getStackArtifact(stack.artifactId).template as Record<string, unknown>,
    );
    // Assess
    for (const t of [template, fromContext]) {
      const environments = Object.values(functionEnvironments(t));
      expect(environments).toHaveLength(4);
      for (const variables of environments) {
        expect(JSON.parse(String(variables.COST_PRICES))).toEqual(prices);
      }
    }
  });

  it('refuses a price it does not know, or one that is not a number ≥ 0', () => {
    const synth = (costPrices: Record<string, unknown>) => () =>
      synthConstruct(() => ({
        ...selfManagedPlain(),
        functions: { costPrices: costPrices as never },
      }));
    expect(synth({ lambdaPerGbSecond: 1 })).toThrow('costPrices: unknown price lambdaPerGbSecond');
    expect(synth({ dynamoPerReadUnit: -1 })).toThrow(
      'costPrices: dynamoPerReadUnit must be a finite number ≥ 0 (got -1)',
    );
  });

  it('refuses a log level refresh that is not a whole number of seconds', () => {
    expect(() =>
      synthConstruct(() => ({ ...selfManagedPlain(), functions: { logLevelRefreshSeconds: 1.5 } })),
    ).toThrow('logLevelRefreshSeconds must be a whole number of seconds, at least 0 (got 1.5)');
  });
});
