/**
 * The S3 source connector's plugin descriptor, and the only place it reads the wall clock
 * (through `globalThis`): everything else gets it injected.
 */
import type { PluginDescriptor } from 'serverless-connect/connect';
import { S3_SOURCE_VERSION } from './s3-source-config.js';
import { S3SourceConnector } from './s3-source-connector.js';
import type { S3SourceDeps } from './s3-source-task.js';

/** The wall clock and the AWS SDK client, for production use. */
export function systemS3SourceDeps(): S3SourceDeps {
  return { clock: { now: () => globalThis.Date.now() } };
}

/** Registers as `s3-source`, `S3Source`, `S3SourceConnector` and the full class name. */
export const s3SourceDescriptor: PluginDescriptor<'source'> = {
  className: 'dev.serverlessconnect.connectors.S3SourceConnector',
  aliases: ['s3-source', 'S3Source', 'S3SourceConnector'],
  type: 'source',
  version: S3_SOURCE_VERSION,
  create: () => new S3SourceConnector(systemS3SourceDeps()),
};
