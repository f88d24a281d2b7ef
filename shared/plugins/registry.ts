import { type AnyPluginDescriptor, PluginRegistry } from 'serverless-connect/connect';
import { datagenDescriptor } from './connectors/datagen/descriptor.js';
import { dynamoDbSinkDescriptor } from './connectors/dynamodb-sink/descriptor.js';
import { dynamoDbStreamsSourceDescriptor } from './connectors/dynamodb-streams-source/descriptor.js';
import { postgresCdcDescriptor } from './connectors/postgres-cdc/descriptor.js';
import { postgresSinkDescriptor } from './connectors/postgres-sink/descriptor.js';
import { postgresSourceDescriptor } from './connectors/postgres-source/descriptor.js';
import type { S3ClientHook } from './connectors/s3-client-hook.js';
import { s3SinkDescriptor, s3SinkDescriptorWith } from './connectors/s3-sink/descriptor.js';
import { s3SourceDescriptor, s3SourceDescriptorWith } from './connectors/s3-source/descriptor.js';
import { verifiableSourceDescriptor } from './connectors/verifiable-source/descriptor.js';
import { converterDescriptors } from './converters/descriptors.js';
import { predicateDescriptors } from './predicates/descriptors.js';
import { transformDescriptors } from './transforms/descriptors.js';

/** Every built-in plugin: connectors, converters, transformations and predicates. */
export const builtinDescriptors: readonly AnyPluginDescriptor[] = [
  datagenDescriptor,
  s3SourceDescriptor,
  s3SinkDescriptor,
  dynamoDbStreamsSourceDescriptor,
  dynamoDbSinkDescriptor,
  verifiableSourceDescriptor,
  postgresSinkDescriptor,
  postgresSourceDescriptor,
  postgresCdcDescriptor,
  ...converterDescriptors,
  ...transformDescriptors,
  ...predicateDescriptors,
];

/** What the runtime gives the built-in plugins that talk to AWS. */
export interface BuiltinPluginHooks {
  /** Called with every S3 client the S3 connectors make (the metering). @default none */
  readonly s3Client?: S3ClientHook;
}

/**
 * A registry holding the built-in plugins. Names resolve by Apache class name, simple class name
 * and alias. Plugin packages are registered by the engine (shared/engine/plugin-modules.ts).
 */
export function builtinRegistry(hooks: BuiltinPluginHooks = {}): PluginRegistry {
  const registry = new PluginRegistry();
  for (const descriptor of builtinDescriptors) {
    if (hooks.s3Client !== undefined && descriptor === s3SinkDescriptor) {
      registry.register(s3SinkDescriptorWith(hooks.s3Client));
    } else if (hooks.s3Client !== undefined && descriptor === s3SourceDescriptor) {
      registry.register(s3SourceDescriptorWith(hooks.s3Client));
    } else {
      registry.register(descriptor);
    }
  }
  return registry;
}
