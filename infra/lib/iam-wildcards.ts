import { Stack, Validations } from 'aws-cdk-lib';
import { Policy, Role } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';

/**
 * Why each policy statement with a wildcard in a resource is as narrow as AWS allows, keyed by the
 * statement's `Sid`.
 * {@link acknowledgeIamWildcards} acknowledges cdk-nag's AwsSolutions-IAM5 finding for exactly
 * these statements; a wildcard in any other statement stays a finding.
 */
export const WILDCARD_REASONS: Readonly<Record<string, string>> = {
  DataBucketSinkObjects:
    'The S3 sink names objects at run time from topic, partition and offset (s3.bucket.name/topics.dir chosen per connector); object actions only, on this deployment’s bucket only.',
  DataBucketSourceObjects:
    'The S3 source reads the objects a connector configures at run time; GetObject only, on this deployment’s bucket only.',
  SinkAliases:
    'The enumerator creates one alias of the sink function per sink connector (c-...) at run time; the wildcard covers this function’s aliases only.',
  SinkMappingsCreate:
    'CreateEventSourceMapping has no resource type (AWS requires "*"); the lambda:FunctionArn condition limits it to mappings that invoke the sink function or its aliases.',
  SinkMappingsChange:
    'Mapping ids are assigned by Lambda when the enumerator creates them; limited to this account and region, and by lambda:FunctionArn to mappings of the sink function.',
  SinkMappingsReadAndTag:
    'Mapping ids are assigned by Lambda when the enumerator creates them; read and tag actions on this account’s and region’s mappings only.',
  SinkMappingsList:
    'ListEventSourceMappings supports no resource-level permissions (AWS requires "*"); the enumerator always filters by the sink function.',
  NetworkInterfacesDescribe:
    'EC2 Describe* actions support no resource-level permissions (AWS requires "*"); Lambda needs them to place ENIs for the VPC and the Kafka pollers.',
  NetworkInterfacesManage:
    'ENI, subnet and security group ids are chosen by Lambda at run time; limited to this account and region.',
  ConnectorGlueSchemas:
    'Glue schemas are named at run time from the records’ schemas (the converter’s schemaName strategy); limited to the registries the connectors’ converters name (or the deployment’s glueSchemaRegistry lists).',
  ConnectorGlueRegister:
    'Glue schemas are created at run time from the records’ schemas (schemaAutoRegistrationEnabled); limited to the registries the connectors’ converters name (or the deployment’s glueSchemaRegistry lists).',
  ConnectorGlueSchemaVersions:
    'GetSchemaVersion reads a schema by its version id alone and AWS authorizes it only on "*" (awslabs/aws-glue-schema-registry#68); a read of schema definitions.',
  XRayWrite: 'X-Ray write actions support no resource-level permissions (AWS requires "*").',
  MskIamTopics:
    'Connectors choose their topics at run time through the REST API; limited to this cluster’s topics (narrow with kafka.topicPatterns).',
  MskIamGroups:
    'Consumer groups are named per connector at run time (connect-<connector>-<topic>, <prefix>-<connector>-<task>); limited to those prefixes in this cluster.',
  MskIamTransactionalIds:
    'Transactional ids are named per task at run time (<prefix>-<connector>-<task>); limited to that prefix in this cluster.',
};

interface StatementJson {
  readonly Sid?: string;
  readonly Effect?: string;
  readonly Resource?: unknown;
}

const asArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/**
 * A resolved CloudFormation value as one string, the way cdk-nag names its findings
 * (`<Logical.Arn>`, `<AWS::Partition>`, joins concatenated, anything else as JSON).
 */
export function flattenReference(node: unknown): string {
  if (node === undefined) return '';
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
  if (typeof node === 'object' && node !== null) {
    const o = node as Record<string, unknown>;
    if (Array.isArray(o['Fn::Join'])) {
      const [delimiter, items] = o['Fn::Join'] as [string, unknown[]];
      return items.map(flattenReference).join(delimiter);
    }
    if (o['Fn::Sub'] !== undefined) return flattenReference(o['Fn::Sub']);
    if (Array.isArray(o['Fn::GetAtt'])) {
      const [resource, attribute] = o['Fn::GetAtt'] as [unknown, unknown];
      return `<${flattenReference(resource)}.${flattenReference(attribute)}>`;
    }
    if (o['Fn::ImportValue'] !== undefined) return flattenReference(o['Fn::ImportValue']);
    if (o.Ref !== undefined) return `<${flattenReference(o.Ref)}>`;
  }
  return JSON.stringify(node);
}

/**
 * Acknowledges AwsSolutions-IAM5 on every role under `scope` for each wildcard resource of a
 * statement listed in {@link WILDCARD_REASONS}, with that reason. Call it once all permissions
 * are in place; statements added later, or without a listed reason, stay findings.
 */
export function acknowledgeIamWildcards(scope: IConstruct): void {
  const stack = Stack.of(scope);
  for (const role of scope.node.findAll().filter((c): c is Role => c instanceof Role)) {
    const reasons = new Map<string, string[]>();
    const policies = role.node.children.filter((c): c is Policy => c instanceof Policy);
    for (const policy of policies) {
      // toJSON() renders the statements without freezing them (resolving the PolicyDocument
      // itself would), so permissions can still be added after this.
      const document = (stack.resolve(policy.document.toJSON()) ?? {}) as {
        Statement?: StatementJson[];
      };
      for (const statement of document.Statement ?? []) {
        if (statement.Effect !== 'Allow' || statement.Sid === undefined) continue;
        for (const [id, reason] of wildcardFindings(
          role,
          statement.Sid,
          asArray(statement.Resource),
        )) {
          reasons.set(id, [...(reasons.get(id) ?? []), reason]);
        }
      }
    }
    for (const [id, why] of reasons) acknowledgeOnce(role, id, [...new Set(why)].join(' '));
  }
}

/**
 * Acknowledges cdk-nag's AwsSolutions-IAM5 finding on `role` for each of `resources` (resolved or
 * tokens) with a wildcard, when statement `sid` is one of {@link WILDCARD_REASONS}: for
 * statements added after {@link acknowledgeIamWildcards} ran (the `Connector` construct's).
 */
export function acknowledgeWildcards(role: IConstruct, sid: string, resources: unknown[]): void {
  for (const [id, reason] of wildcardFindings(role, sid, resources))
    acknowledgeOnce(role, id, reason);
}

/** The IAM5 finding ids of `resources` with a wildcard, with `sid`'s reason (none unknown). */
function wildcardFindings(role: IConstruct, sid: string, resources: unknown[]): [string, string][] {
  const reason = WILDCARD_REASONS[sid];
  if (reason === undefined) return [];
  const stack = Stack.of(role);
  return resources
    .map((resource) => flattenReference(stack.resolve(resource)))
    .filter((flat) => flat.includes('*'))
    .map((flat) => [`AwsSolutions-IAM5[Resource::${flat}]`, reason]);
}

/** The finding ids acknowledged on each construct: each once. */
const acknowledged = new WeakMap<IConstruct, Set<string>>();

function acknowledgeOnce(role: IConstruct, id: string, reason: string): void {
  let ids = acknowledged.get(role);
  if (ids === undefined) {
    ids = new Set();
    acknowledged.set(role, ids);
  }
  if (ids.has(id)) return;
  ids.add(id);
  Validations.of(role).acknowledge({ id, reason });
}
