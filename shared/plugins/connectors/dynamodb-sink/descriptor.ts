/**
 * The DynamoDB sink connector's plugin descriptor, and the only place it reads the wall clock,
 * timers and randomness (through `globalThis`): everything else gets them injected.
 */
import type { PluginDescriptor } from 'serverless-connect/connect';
import { DYNAMODB_SINK_VERSION } from './dynamodb-sink-config.js';
import { DynamoDbSinkConnector } from './dynamodb-sink-connector.js';
import type { DynamoDbSinkDeps } from './dynamodb-sink-task.js';

/** The wall clock, real timers, `Math.random` and the AWS SDK client, for production use. */
export function systemDynamoDbSinkDeps(): DynamoDbSinkDeps {
  return {
    clock: { now: () => globalThis.Date.now() },
    sleep: (ms) => new Promise((resolve) => globalThis.setTimeout(resolve, ms)),
    random: () => globalThis.Math.random(),
  };
}

/** Registers as `dynamodb-sink`, `DynamoDbSink`, `DynamoDbSinkConnector` and the full class name. */
export const dynamoDbSinkDescriptor: PluginDescriptor<'sink'> = {
  className: 'dev.serverlessconnect.connectors.DynamoDbSinkConnector',
  aliases: ['dynamodb-sink', 'DynamoDbSink', 'DynamoDbSinkConnector'],
  type: 'sink',
  version: DYNAMODB_SINK_VERSION,
  create: () => new DynamoDbSinkConnector(systemDynamoDbSinkDeps()),
};
