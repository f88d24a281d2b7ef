import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  AttributeType,
  Billing,
  ProjectionType,
  StreamViewType,
  TableEncryptionV2,
  TableV2,
} from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { STATE_TABLE } from '../../shared/adapters/dynamodb/table-schema.js';

/** Options of the state table. */
export interface StateTableProps {
  /**
   * A customer-managed KMS key for the table (and its stream). Functions get encrypt/decrypt on it.
   * @default - an AWS-managed key (`alias/aws/dynamodb`)
   */
  readonly encryptionKey?: IKey;
  /**
   * DynamoDB deletion protection: a `DeleteTable` call (including a stack deletion) fails until it
   * is turned off.
   * @default true
   */
  readonly deletionProtection?: boolean;
  /**
   * What CloudFormation does with the table when it leaves the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Point-in-time recovery window in days (1-35).
   * @default 35
   */
  readonly recoveryPeriodInDays?: number;
}

/** What the state store adapter calls (shared/adapters/dynamodb/table.ts); no scans, no DDL. */
export const STATE_TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
] as const;

const ATTRIBUTE_TYPES = {
  S: AttributeType.STRING,
  N: AttributeType.NUMBER,
  B: AttributeType.BINARY,
};
const STREAM_VIEW_TYPES = {
  NEW_AND_OLD_IMAGES: StreamViewType.NEW_AND_OLD_IMAGES,
  NEW_IMAGE: StreamViewType.NEW_IMAGE,
  OLD_IMAGE: StreamViewType.OLD_IMAGE,
  KEYS_ONLY: StreamViewType.KEYS_ONLY,
};
const PROJECTIONS = {
  KEYS_ONLY: ProjectionType.KEYS_ONLY,
  ALL: ProjectionType.ALL,
  INCLUDE: ProjectionType.INCLUDE,
};

/**
 * The one DynamoDB table holding configs, target states, task configs, leases, offsets and status
 * (ADR 0002), built from `shared/adapters/dynamodb/table-schema.ts` so the adapter and the
 * infrastructure cannot disagree on key names: on-demand, point-in-time recovery, a stream that
 * triggers the enumerator, TTL for finished restart requests, encryption at rest, deletion
 * protection.
 */
export class StateTable extends Construct {
  readonly table: TableV2;
  /** The sparse index listing connectors (`GET /connectors`). */
  readonly connectorIndexName: string = STATE_TABLE.connectorIndex.name;
  readonly encryptionKey: IKey | undefined;

  constructor(scope: Construct, id: string, props: StateTableProps = {}) {
    super(scope, id);
    this.encryptionKey = props.encryptionKey;
    const { partitionKey, sortKey, connectorIndex } = STATE_TABLE;
    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: partitionKey.name, type: ATTRIBUTE_TYPES[partitionKey.type] },
      sortKey: { name: sortKey.name, type: ATTRIBUTE_TYPES[sortKey.type] },
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: {
        pointInTimeRecoveryEnabled: STATE_TABLE.pointInTimeRecovery,
        recoveryPeriodInDays: props.recoveryPeriodInDays ?? 35,
      },
      dynamoStream: STREAM_VIEW_TYPES[STATE_TABLE.stream.viewType],
      timeToLiveAttribute: STATE_TABLE.timeToLiveAttribute,
      encryption:
        props.encryptionKey === undefined
          ? TableEncryptionV2.awsManagedKey()
          : TableEncryptionV2.customerManagedKey(props.encryptionKey),
      deletionProtection: props.deletionProtection ?? true,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      globalSecondaryIndexes: [
        {
          indexName: connectorIndex.name,
          partitionKey: {
            name: connectorIndex.partitionKey.name,
            type: ATTRIBUTE_TYPES[connectorIndex.partitionKey.type],
          },
          sortKey: {
            name: connectorIndex.sortKey.name,
            type: ATTRIBUTE_TYPES[connectorIndex.sortKey.type],
          },
          projectionType: PROJECTIONS[connectorIndex.projection],
        },
      ],
    });
  }

  /**
   * Item reads and writes on the table and its connector index, nothing else (no scan, no table
   * management), plus the key when the table uses a customer-managed one.
   */
  grantStateAccess(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'StateTableItems',
        actions: [...STATE_TABLE_ACTIONS],
        resources: [this.table.tableArn, `${this.table.tableArn}/index/${this.connectorIndexName}`],
      }),
    );
    const key = this.encryptionKey;
    if (key !== undefined) {
      grantee.grantPrincipal.addToPrincipalPolicy(
        new PolicyStatement({
          sid: 'StateTableKey',
          // Explicit actions (no ReEncrypt*/GenerateDataKey* wildcards), usable through DynamoDB only.
          actions: ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey', 'kms:DescribeKey'],
          resources: [key.keyArn],
          conditions: {
            StringEquals: { 'kms:ViaService': `dynamodb.${Stack.of(this).region}.amazonaws.com` },
          },
        }),
      );
    }
  }
}
