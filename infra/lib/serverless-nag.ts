import { Validations } from 'aws-cdk-lib';
import type { CfnStage } from 'aws-cdk-lib/aws-apigateway';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import type { EnumeratorTriggers } from './enumerator-schedule.js';
import type { ConnectFunctions } from './functions.js';
import type { ControlPlaneApi } from './rest-api.js';

/** The parts of a ServerlessConnect the Serverless findings concern. */
export interface ServerlessParts {
  readonly functions: ConnectFunctions;
  readonly triggers: EnumeratorTriggers;
  readonly api: ControlPlaneApi;
}

/** Why a function needs no dead letter queue of its own (cdk-nag Serverless-LambdaDLQ). */
const NO_DLQ = {
  api: 'Invoked synchronously by API Gateway, which returns the error to the caller; a dead letter queue only ever receives asynchronous invocations.',
  sinkTask:
    "Invoked synchronously by the Kafka event source mappings, which retry a failed batch (the records stay in Kafka, the connector's errors.deadletterqueue.topic.name takes those it cannot process); a dead letter queue only ever receives asynchronous invocations.",
  sourceTask:
    'Failed asynchronous dispatches go to the SourceTaskDlq queue through an on-failure destination, which keeps the request, the response and the error; a dead letter queue would keep the request only.',
  enumerator:
    'Every enumerator run reconciles from the state table, so a failed or dropped invocation (schedule tick, stream batch, REST nudge) is repeated by the next scheduled run within a minute, and raises the Errors alarm; a queue of them would hold nothing worth replaying.',
} as const;

const TRACING_OPTIONAL =
  'X-Ray tracing is an option (functions.tracing, api.tracing), off by default: it is billed per trace, and the structured logs carry the connector, task and request ids.';

function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}

function acknowledgeUntraced(fn: IConstruct): void {
  if ((fn.node.defaultChild as CfnFunction).tracingConfig === undefined) {
    acknowledge(fn, 'Serverless-LambdaTracing', TRACING_OPTIONAL);
  }
}

function acknowledgeUntracedStage(stage: IConstruct): void {
  if ((stage.node.defaultChild as CfnStage).tracingEnabled !== true) {
    acknowledge(stage, 'Serverless-APIGWXrayEnabled', TRACING_OPTIONAL);
  }
}

/** The Serverless findings of the Connect tools' authorizer function (rest-api.ts's tools modes). */
export function acknowledgeAuthorizerFindings(
  authorizer: IConstruct,
  toolsStage: IConstruct,
): void {
  acknowledge(
    authorizer,
    'Serverless-LambdaDLQ',
    'Invoked synchronously by API Gateway as the REST API’s request authorizer; a dead letter queue only ever receives asynchronous invocations.',
  );
  acknowledgeUntraced(authorizer);
  acknowledgeUntracedStage(toolsStage);
}

/** The Serverless findings of the Connector construct's custom-resource function. */
export function acknowledgeConnectorResourceFindings(handler: IConstruct): void {
  const reason =
    'CloudFormation invokes the custom resource asynchronously and waits for its answer: the handler always answers (a failure with Connect’s message), and an invocation that dies unanswered fails the stack operation at the resource’s 5-minute service timeout. A queued request could only be replayed after CloudFormation gave up on it, and retrying is off because a repeated create would not be idempotent.';
  acknowledge(handler, 'Serverless-LambdaDLQ', reason);
  acknowledge(handler, 'Serverless-LambdaAsyncFailureDestination', reason);
  acknowledgeUntraced(handler);
}

/**
 * Acknowledges, on the construct each concerns, the findings of cdk-nag's Serverless pack that
 * the design answers otherwise (each with its reason); a finding on anything added later stays a
 * finding. Call it once the construct's resources are in place.
 */
export function acknowledgeServerlessFindings(connect: ServerlessParts): void {
  const { functions, triggers, api } = connect;
  for (const name of ['api', 'sinkTask', 'sourceTask', 'enumerator'] as const) {
    const fn = functions[name].function;
    acknowledge(fn, 'Serverless-LambdaDLQ', NO_DLQ[name]);
    acknowledgeUntraced(fn);
  }
  const enumerator = functions.enumerator.function;
  acknowledge(enumerator, 'Serverless-LambdaAsyncFailureDestination', NO_DLQ.enumerator);
  acknowledge(
    enumerator,
    'Serverless-LambdaEventSourceMappingDestination',
    'The state-table stream only nudges the enumerator: a batch dropped after its two retries is reconciled by the next scheduled run, which reads every connector from the table.',
  );
  acknowledge(
    triggers,
    'Serverless-EventBusDLQ',
    'A schedule tick that cannot be delivered is superseded by the next one a minute later (the targets drop events older than two minutes), and an S3 Object Created event only hastens a dispatch the scheduled run makes anyway.',
  );
  acknowledge(
    functions.sourceTaskDlq,
    'Serverless-SQSRedrivePolicy',
    'This queue is itself a dead letter queue (the source task function’s on-failure destination); a redrive target for it would be a dead letter queue of a dead letter queue.',
  );
  acknowledgeUntracedStage(api.api.deploymentStage);
  if (api.toolsAuth !== undefined && api.toolsApi !== undefined) {
    acknowledgeAuthorizerFindings(api.toolsAuth.function.function, api.toolsApi.deploymentStage);
  }
}
