/**
 * The construct package's entry point (`import { ServerlessConnect } from 'serverless-connect'`):
 * the L3 construct, the constructs it exposes as properties, and their props. The default app
 * (serverless-connect-stack.ts, with cdk-nag and CDK context parsing) stays out of the package.
 */
export { type AlarmId, Monitoring, type MonitoringOptions } from './alarms.js';
export { BUNDLE_BUDGET_BYTES, FUNCTION_NAMES, type FunctionName } from './bundling.js';
export { ConnectFunction, FUNCTION_RUNTIME, type FunctionPlacement } from './connect-function.js';
export {
  ConnectToolsAuth,
  type ConnectToolsAuthOptions,
  type ConnectToolsCredentials,
} from './connect-tools-auth.js';
export { Connector, type ConnectorInitialState, type ConnectorProps } from './connector.js';
export { DataBucket, type DataBucketProps } from './data-bucket.js';
export { type ConnectorDatabase, POSTGRES_PORT } from './database-access.js';
export { EnumeratorTriggers } from './enumerator-schedule.js';
export {
  type ConfigProvidersOptions,
  ConnectFunctions,
  DEFAULT_SIZES,
  type FunctionSize,
  type FunctionsOptions,
} from './functions.js';
export { KafkaAccess, type KafkaAccessProps, type KafkaAuth } from './kafka-access.js';
export { type ApiAuthMode, ControlPlaneApi, type RestApiOptions } from './rest-api.js';
export {
  type ScheduleOptions,
  ServerlessConnect,
  type ServerlessConnectProps,
} from './serverless-connect.js';
export { StateTable, type StateTableProps } from './state-table.js';
