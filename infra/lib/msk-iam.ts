import { Fn } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';

/**
 * The functions' MSK IAM data-plane permissions, scoped to the cluster `clusterArn`: ARNs of its
 * topics, groups and transactional ids are derived from the cluster ARN
 * (`...:cluster/<name>/<uuid>` becomes `...:topic/<name>/<uuid>/<topic>`). `topics`: the topic
 * names (wildcards allowed) the functions may describe, read, write and create.
 */
export function mskIamStatements(
  clusterArn: string,
  transactionalIdPrefix: string,
  topics: readonly string[],
): PolicyStatement[] {
  const [head, rest] = [0, 1].map((i) => Fn.select(i, Fn.split(':cluster/', clusterArn)));
  const arn = (kind: string, name: string) => `${head}:${kind}/${rest}/${name}`;
  return [
    new PolicyStatement({
      sid: 'MskIamCluster',
      actions: [
        'kafka-cluster:Connect',
        'kafka-cluster:DescribeCluster',
        'kafka-cluster:DescribeClusterDynamicConfiguration',
        'kafka-cluster:WriteDataIdempotently',
      ],
      resources: [clusterArn],
    }),
    new PolicyStatement({
      sid: 'MskIamTopics',
      actions: [
        'kafka-cluster:DescribeTopic',
        'kafka-cluster:DescribeTopicDynamicConfiguration',
        'kafka-cluster:CreateTopic',
        'kafka-cluster:ReadData',
        'kafka-cluster:WriteData',
      ],
      // Connectors choose their topics at run time through the REST API.
      resources: topics.map((topic) => arn('topic', topic)),
    }),
    new PolicyStatement({
      sid: 'MskIamGroups',
      actions: [
        'kafka-cluster:DescribeGroup',
        'kafka-cluster:AlterGroup',
        'kafka-cluster:DeleteGroup',
      ],
      // Sink mapping groups are `connect-<connector>-<topic>` (the Kafka sink commits its
      // offsets to them inside its transactions).
      resources: [arn('group', 'connect-*')],
    }),
    new PolicyStatement({
      sid: 'MskIamTransactionalIds',
      actions: ['kafka-cluster:DescribeTransactionalId', 'kafka-cluster:AlterTransactionalId'],
      // One transactional id per task: `<prefix>-<connector>-<task>`.
      resources: [arn('transactional-id', `${transactionalIdPrefix}-*`)],
    }),
  ];
}
