/**
 * The S3 source connector's plugin descriptor, and the only place it reads the wall clock
 * (through `globalThis`): everything else gets it injected.
 */
import type { PluginDescriptor } from 'serverless-connect/connect';
import type { S3ClientHook } from '../s3-client-hook.js';
import { createS3SourceClient, S3_SOURCE_VERSION } from './s3-source-config.js';
import { S3SourceConnector } from './s3-source-connector.js';
import type { S3SourceDeps } from './s3-source-task.js';

/** The wall clock and the AWS SDK client (given to `hook` when there is one), for production use. */
export function systemS3SourceDeps(hook?: S3ClientHook): S3SourceDeps {
  return {
    clock: { now: () => globalThis.Date.now() },
    ...(hook === undefined ? {} : { createClient: (config) => createS3SourceClient(config, hook) }),
  };
}

/** Registers as `s3-source`, `S3Source`, `S3SourceConnector` and the full class name. */
export function s3SourceDescriptorWith(hook?: S3ClientHook): PluginDescriptor<'source'> {
  return {
    className: 'dev.serverlessconnect.connectors.S3SourceConnector',
    aliases: ['s3-source', 'S3Source', 'S3SourceConnector'],
    type: 'source',
    version: S3_SOURCE_VERSION,
    create: () => new S3SourceConnector(systemS3SourceDeps(hook)),
  };
}

/** {@link s3SourceDescriptorWith} without a client hook. */
export const s3SourceDescriptor: PluginDescriptor<'source'> = s3SourceDescriptorWith();
