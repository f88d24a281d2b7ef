import { Duration } from 'aws-cdk-lib';
import type { ITable, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import {
  FilterCriteria,
  FilterRule,
  type IFunction,
  StartingPosition,
} from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { KEYS } from '../../shared/adapters/dynamodb/table-schema.js';

export interface EnumeratorTriggersProps {
  readonly enumerator: IFunction;
  readonly table: TableV2;
  /** @default Duration.minutes(1) (EventBridge's minimum) */
  readonly rate?: Duration;
  /** Whether the schedule starts enabled. @default true */
  readonly enabled?: boolean;
  /**
   * New objects under these prefixes of `bucket` run the enumerator for the S3 sources reading
   * them (functions/enumerator/s3-trigger.ts). @default - none
   */
  readonly objectCreated?: { readonly bucket: IBucket; readonly prefixes: readonly string[] };
}

/**
 * The stream records that should wake the enumerator: a connector's `CONNECTOR` item (config or
 * target state written or deleted) or its `RESTART` request. Task, status and offset items change
 * all the time (tasks and the enumerator itself write them) and must not trigger runs.
 */
export const ENUMERATOR_STREAM_FILTER = FilterCriteria.filter({
  dynamodb: {
    Keys: {
      pk: { S: FilterRule.beginsWith(KEYS.connectorPk('')) },
      sk: { S: FilterRule.or(KEYS.connectorSk, KEYS.restartSk) },
    },
  },
});

/**
 * What runs the enumerator besides the REST API's nudges: an EventBridge schedule (every minute
 * by default) that reconciles every connector, the state table's stream, which reconciles the
 * connectors whose config, target state or restart request changed, and optionally new objects
 * of the data bucket for the S3 sources reading them.
 */
export class EnumeratorTriggers extends Construct {
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: EnumeratorTriggersProps) {
    super(scope, id);
    this.rule = new Rule(this, 'Schedule', {
      description: 'serverless-connect: reconcile every connector',
      schedule: Schedule.rate(props.rate ?? Duration.minutes(1)),
      enabled: props.enabled ?? true,
      targets: [
        new LambdaFunction(props.enumerator, {
          // `{}` reconciles all connectors (functions/enumerator/handler.ts).
          event: RuleTargetInput.fromObject({}),
          // A tick that cannot be delivered soon is superseded by the next one.
          maxEventAge: Duration.minutes(2),
          retryAttempts: 2,
        }),
      ],
    });
    const objects = props.objectCreated;
    if (objects !== undefined && objects.prefixes.length > 0) {
      new Rule(this, 'ObjectCreated', {
        description: 'serverless-connect: dispatch the S3 sources reading a new object',
        eventPattern: {
          source: ['aws.s3'],
          detailType: ['Object Created'],
          detail: {
            bucket: { name: [objects.bucket.bucketName] },
            object: { key: objects.prefixes.map((prefix) => ({ prefix })) },
          },
        },
        targets: [
          new LambdaFunction(props.enumerator, {
            maxEventAge: Duration.minutes(2),
            retryAttempts: 2,
          }),
        ],
      });
    }
    props.enumerator.addEventSource(
      // TableV2 to ITable: sound, but rejected under exactOptionalPropertyTypes (aws-cdk-lib
      // declares optional class members as `T | undefined`).
      new DynamoEventSource(props.table as unknown as ITable, {
        startingPosition: StartingPosition.LATEST,
        batchSize: 100,
        // Coalesces a burst of writes (a config PUT followed by a resume) into one run.
        maxBatchingWindow: Duration.seconds(1),
        filters: [ENUMERATOR_STREAM_FILTER],
        // A failed batch is retried twice, then dropped: the scheduled run reconciles it anyway.
        retryAttempts: 2,
        maxRecordAge: Duration.minutes(5),
        bisectBatchOnError: false,
      }),
    );
  }
}
