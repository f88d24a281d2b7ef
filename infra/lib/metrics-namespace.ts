import { Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * The CloudWatch namespace of a deployment's metrics, `ServerlessConnect/<stack name>`: the
 * functions publish their EMF metrics there (`METRICS_NAMESPACE`), the log metric filters write
 * there, and the alarms and the dashboard read there, so two stacks in one account keep apart.
 */
export function metricsNamespace(scope: IConstruct): string {
  return `ServerlessConnect/${Stack.of(scope).stackName}`;
}
