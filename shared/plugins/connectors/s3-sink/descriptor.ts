/**
 * The S3 sink connector's plugin descriptor, and the only place it reads the wall clock
 * (through `globalThis`): everything else gets it injected.
 */
import type { PluginDescriptor } from 'serverless-connect/connect';
import type { S3ClientHook } from '../s3-client-hook.js';
import { createS3SinkClient, S3_SINK_VERSION } from './s3-sink-config.js';
import { S3SinkConnector } from './s3-sink-connector.js';
import type { S3SinkDeps } from './s3-sink-task.js';

/** The wall clock and the AWS SDK client (given to `hook` when there is one), for production use. */
export function systemS3SinkDeps(hook?: S3ClientHook): S3SinkDeps {
  return {
    clock: { now: () => globalThis.Date.now() },
    ...(hook === undefined ? {} : { createClient: (config) => createS3SinkClient(config, hook) }),
  };
}

/**
 * Registers as `s3-sink`, `S3Sink`, `S3SinkConnector`, the full class name and Confluent's S3
 * sink class name, whose configs it takes (unsupported keys: `confluent-keys.ts`).
 */
export function s3SinkDescriptorWith(hook?: S3ClientHook): PluginDescriptor<'sink'> {
  return {
    className: 'dev.serverlessconnect.connectors.S3SinkConnector',
    aliases: ['s3-sink', 'S3Sink', 'S3SinkConnector', 'io.confluent.connect.s3.S3SinkConnector'],
    type: 'sink',
    version: S3_SINK_VERSION,
    create: () => new S3SinkConnector(systemS3SinkDeps(hook)),
  };
}

/** {@link s3SinkDescriptorWith} without a client hook. */
export const s3SinkDescriptor: PluginDescriptor<'sink'> = s3SinkDescriptorWith();
