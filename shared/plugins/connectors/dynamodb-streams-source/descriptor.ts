/**
 * The DynamoDB Streams source connector's plugin descriptor, and the only place it reads the
 * wall clock (through `globalThis`): everything else gets it injected.
 */
import type { PluginDescriptor } from 'serverless-connect/connect';
import { DYNAMODB_STREAMS_SOURCE_VERSION } from './dynamodb-streams-config.js';
import { DynamoDbStreamsSourceConnector } from './dynamodb-streams-source-connector.js';
import type { DynamoDbStreamsSourceDeps } from './dynamodb-streams-source-task.js';

/** The wall clock and the AWS SDK client, for production use. */
export function systemDynamoDbStreamsSourceDeps(): DynamoDbStreamsSourceDeps {
  return { clock: { now: () => globalThis.Date.now() } };
}

/**
 * Registers as `dynamodb-streams`, `dynamodb-streams-source`, `DynamoDbStreamsSource`,
 * `DynamoDbStreamsSourceConnector` and the full class name.
 */
export const dynamoDbStreamsSourceDescriptor: PluginDescriptor<'source'> = {
  className: 'dev.serverlessconnect.connectors.DynamoDbStreamsSourceConnector',
  aliases: [
    'dynamodb-streams',
    'dynamodb-streams-source',
    'DynamoDbStreamsSource',
    'DynamoDbStreamsSourceConnector',
  ],
  type: 'source',
  version: DYNAMODB_STREAMS_SOURCE_VERSION,
  create: () => new DynamoDbStreamsSourceConnector(systemDynamoDbStreamsSourceDeps()),
};
