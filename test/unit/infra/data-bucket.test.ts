import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { DataBucket, type DataBucketProps } from '../../../infra/lib/data-bucket.js';
import { resourcesOf, synthDefaultApp, TEST_ENV } from './synth.js';

/** The data bucket's template (the access-log bucket left out). */
function dataBucket(props: DataBucketProps = {}): Record<string, unknown> {
  const stack = new Stack(new App(), 'Bucket', { env: TEST_ENV });
  new DataBucket(stack, 'Data', props);
  const buckets = resourcesOf(Template.fromStack(stack), 'AWS::S3::Bucket');
  const entry = Object.entries(buckets).find(([id]) => id.startsWith('DataBucket'));
  if (entry === undefined) throw new Error('no data bucket');
  return entry[1].Properties;
}

describe('DataBucket', { timeout: 30_000 }, () => {
  it('is unversioned by default, so a sink rewrite replaces its object and leaves no old version', () => {
    // Act
    const bucket = dataBucket();
    // Assess
    expect(bucket.VersioningConfiguration).toBeUndefined();
    // The noncurrent rule cleans up a bucket an earlier deployment versioned (it stays so).
    expect(bucket.LifecycleConfiguration).toEqual({
      Rules: [
        {
          Id: 'abort-incomplete-multipart-uploads',
          AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 },
          Status: 'Enabled',
        },
        {
          Id: 'expire-noncurrent-versions',
          NoncurrentVersionExpiration: { NoncurrentDays: 1, NewerNoncurrentVersions: 1 },
          Status: 'Enabled',
        },
      ],
    });
  });

  it('sends no event notifications unless S3 source prefixes ask for them', () => {
    expect(dataBucket().NotificationConfiguration).toBeUndefined();
    expect(dataBucket({ notifySourcePrefixes: ['incoming/'] }).NotificationConfiguration).toEqual({
      EventBridgeConfiguration: { EventBridgeEnabled: true },
    });
  });

  it('keeps one previous version per key and expires older ones after a day when versioned', () => {
    // Act
    const bucket = dataBucket({ versioned: true });
    // Assess
    expect(bucket.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(bucket.LifecycleConfiguration).toEqual({
      Rules: expect.arrayContaining([
        {
          Id: 'expire-noncurrent-versions',
          NoncurrentVersionExpiration: { NoncurrentDays: 1, NewerNoncurrentVersions: 1 },
          Status: 'Enabled',
        },
      ]),
    });
  });

  it('takes versioning from the default app’s dataBucketVersioned context key', () => {
    // Act
    const { template } = synthDefaultApp({ dataBucketVersioned: 'true' });
    // Assess
    template.hasResourceProperties('AWS::S3::Bucket', {
      VersioningConfiguration: { Status: 'Enabled' },
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'data-bucket/' }),
    });
  });
});
