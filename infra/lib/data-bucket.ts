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
   * Keep previous versions of objects. The S3 sink appends to an object by writing it whole
   * again (each batch, while the object's offset range fills), so with versioning every batch
   * would leave a noncurrent copy of the object's earlier content, and each write would be a new
   * version id to consumers that key on it. Off, a key is one object, replaced in place. On, the
   * default lifecycle keeps one previous version per key (the content before the last rewrite
   * or delete) and expires older ones after a day. A bucket created versioned stays versioned
   * when this turns false (CloudFormation leaves it; suspend it with `put-bucket-versioning`).
   * @default false
   */
  readonly versioned?: boolean;
  /**
   * Lifecycle rules.
   * @default - abort incomplete multipart uploads after 7 days; keep one noncurrent version per
   * key and expire the others after 1 day (nothing to do unless the bucket is or was versioned)
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

/**
 * The rule for noncurrent versions comes with or without versioning: it does nothing on a bucket
 * never versioned, and cleans up one that was (CloudFormation leaves versioning on when the
 * property goes, and S3 can only suspend it).
 */
const DEFAULT_LIFECYCLE: LifecycleRule[] = [
  {
    id: 'abort-incomplete-multipart-uploads',
    abortIncompleteMultipartUploadAfter: Duration.days(7),
  },
  {
    id: 'expire-noncurrent-versions',
    noncurrentVersionsToRetain: 1,
    noncurrentVersionExpiration: Duration.days(1),
  },
];

/**
 * The S3 bucket of the S3 sink and source connectors (their `s3.bucket.name`): no public access,
 * TLS only, S3-managed encryption, lifecycle rules, server access logs.
 *
 * Versioning and notifications follow from how the S3 sink writes (its README): an object's key
 * is a function of its Kafka coordinates, and each batch appends by writing the whole object
 * again under `If-Match` (or creates it under `If-None-Match: *`), so one key is written several
 * times while its offset range fills, each write holding every record of the previous one plus
 * the new ones, in offset order. Hence versioning is off by default (a rewrite replaces the
 * object, no noncurrent copies pile up, no new version id for the same data), and the bucket
 * sends event notifications only when `notifySourcePrefixes` asks, to EventBridge, for the S3
 * sources' prefixes, never the sinks' output. A consumer of the sinks' output that subscribes to
 * `Object Created` itself gets one event per write: it must key on the object key (the event's
 * `sequencer` orders writes of one key) and take records above the `last-offset` metadata it
 * already read from that key, or wait until a later object of the same partition exists (the
 * earlier one is then final). docs/deploy.md, "The data bucket".
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
    const versioned = props.versioned ?? false;
    const logs = props.accessLogsBucket ?? this.#accessLogsBucket(removalPolicy, versioned);
    const bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned,
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
        // Also when unversioned: a bucket an earlier deployment versioned stays versioned.
        { id: 'expire-noncurrent-versions', noncurrentVersionExpiration: Duration.days(1) },
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
   * failed uploads, deletes of staging objects once sealed) and the listing of a partition's
   * staging prefix (s3.write.mode=once; it also makes S3 answer 404, not 403, for a missing key).
   */
  grantSinkWrites(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'DataBucketSinkObjects',
        actions: ['s3:PutObject', 's3:GetObject', 's3:AbortMultipartUpload', 's3:DeleteObject'],
        resources: [this.bucket.arnForObjects('*')],
      }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        sid: 'DataBucketSinkList',
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
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
