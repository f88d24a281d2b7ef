import { type AnyPluginDescriptor, PluginRegistry } from 'serverless-connect/connect';
import { datagenDescriptor } from './connectors/datagen/descriptor.js';
import { dynamoDbSinkDescriptor } from './connectors/dynamodb-sink/descriptor.js';
import { dynamoDbStreamsSourceDescriptor } from './connectors/dynamodb-streams-source/descriptor.js';
import { postgresCdcDescriptor } from './connectors/postgres-cdc/descriptor.js';
import { postgresSinkDescriptor } from './connectors/postgres-sink/descriptor.js';
import { postgresSourceDescriptor } from './connectors/postgres-source/descriptor.js';
import { s3SinkDescriptor } from './connectors/s3-sink/descriptor.js';
import { s3SourceDescriptor } from './connectors/s3-source/descriptor.js';
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

/**
 * A registry holding the built-in plugins. Names resolve by Apache class name, simple class name
 * and alias. Plugin packages are registered by the engine (shared/engine/plugin-modules.ts).
 */
export function builtinRegistry(): PluginRegistry {
  const registry = new PluginRegistry();
  for (const descriptor of builtinDescriptors) registry.register(descriptor);
  return registry;
}
