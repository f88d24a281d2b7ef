import { Duration, FeatureFlags, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  type IBucket,
  type LifecycleRule,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY } from 'aws-cdk-lib/cx-api';
import { Construct } from 'constructs';

/** Options of the bucket the S3 connectors write to and read from. */
export interface DataBucketProps {
  /**
   * Use an existing bucket instead of creating one. The other options are then ignored; its
   * policies (TLS, public access, encryption) are the owner's.
   * @default - a new bucket
   */
  readonly bucket?: IBucket;
  /**
   * Keep every version of every object (a replayed sink batch rewrites the same keys, so versions
   * show the history of a key).
   * @default true
   */
  readonly versioned?: boolean;
  /**
   * Lifecycle rules.
   * @default - abort incomplete multipart uploads after 7 days; expire noncurrent versions after
   * 30 days
   */
  readonly lifecycleRules?: LifecycleRule[];
  /**
   * Where the server access logs go.
   * @default - a new bucket in this construct (itself unlogged, kept 90 days)
   */
  readonly accessLogsBucket?: IBucket;
  /**
   * What CloudFormation does with the created bucket(s) when they leave the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Key prefixes whose new objects wake the enumerator (EventBridge `Object Created`), so the S3
   * source connectors reading them are dispatched at once instead of at the next scheduled run.
   * Keep them apart from the S3 sinks' `topics.dir`: every notification makes the enumerator
   * read every connector's config. An existing `bucket` must have EventBridge notifications on.
   * @default - none (S3 sources are dispatched by the one-minute schedule)
   */
  readonly notifySourcePrefixes?: readonly string[];
}

/**
 * aws-cdk-lib declares `Bucket.isWebsite` as `boolean | undefined` and `IBucket.isWebsite?` as
 * `boolean`; under exactOptionalPropertyTypes TypeScript rejects the (sound) class-to-interface
 * assignment, hence the widening.
 */
function asIBucket(bucket: Bucket): IBucket {
  return bucket as unknown as IBucket;
}

const DEFAULT_LIFECYCLE: LifecycleRule[] = [
  {
    id: 'abort-incomplete-multipart-uploads',
    abortIncompleteMultipartUploadAfter: Duration.days(7),
  },
  { id: 'expire-noncurrent-versions', noncurrentVersionExpiration: Duration.days(30) },
];

/**
 * The S3 bucket of the S3 sink and source connectors (their `s3.bucket.name`): no public access,
 * TLS only, S3-managed encryption, versioning and lifecycle rules, server access logs.
 */
export class DataBucket extends Construct {
  readonly bucket: IBucket;

  constructor(scope: Construct, id: string, props: DataBucketProps = {}) {
    super(scope, id);
    if (props.bucket !== undefined) {
      this.bucket = props.bucket;
      return;
    }
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const logs =
      props.accessLogsBucket ?? this.#accessLogsBucket(removalPolicy, props.versioned ?? true);
    const bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: props.versioned ?? true,
      lifecycleRules: props.lifecycleRules ?? DEFAULT_LIFECYCLE,
      serverAccessLogsBucket: logs,
      serverAccessLogsPrefix: 'data-bucket/',
      removalPolicy,
    });
    if ((props.notifySourcePrefixes ?? []).length > 0) {
      // Set on the L1 bucket: the L2 `eventBridgeEnabled` deploys a notifications custom
      // resource (a Lambda function of its own) for what CloudFormation supports natively.
      (bucket.node.defaultChild as CfnBucket).notificationConfiguration = {
        eventBridgeConfiguration: { eventBridgeEnabled: true },
      };
    }
    this.bucket = asIBucket(bucket);
  }

  #accessLogsBucket(removalPolicy: RemovalPolicy, versioned: boolean): IBucket {
    // With the feature flag, S3 log delivery is granted by bucket policy and ACLs stay disabled;
    // without it, CDK grants it through the LogDeliveryWrite ACL, which needs ObjectWriter.
    const policyDelivery = FeatureFlags.of(this).isEnabled(S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY);
    const logs = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: policyDelivery
        ? ObjectOwnership.BUCKET_OWNER_ENFORCED
        : ObjectOwnership.OBJECT_WRITER,
      versioned,
      lifecycleRules: [
        { id: 'expire-access-logs', expiration: Duration.days(90) },
        ...(versioned
          ? [{ id: 'expire-noncurrent-versions', noncurrentVersionExpiration: Duration.days(1) }]
          : []),
      ],
      removalPolicy,
    });
    Validations.of(logs).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'This bucket receives the data bucket server access logs; logging it to itself would loop and to a third bucket only moves the finding.',
    });
    return asIBucket(logs);
  }

  /**
   * What the S3 sink task does (single and multipart puts, reads of its own objects, aborts of
   * failed uploads): object actions on the bucket's objects, nothing on the bucket itself.
   */
  grantSinkWrites(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'DataBucketSinkObjects',
        actions: ['s3:PutObject', 's3:GetObject', 's3:AbortMultipartUpload'],
        resources: [this.bucket.arnForObjects('*')],
      }),
    );
  }

  /** What the S3 source task does: list the bucket, read objects. */
  grantSourceReads(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'DataBucketSourceList',
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
      }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'DataBucketSourceObjects',
        actions: ['s3:GetObject'],
        resources: [this.bucket.arnForObjects('*')],
      }),
    );
  }
}
