/**
 * The plugin API of serverless-connect: the one import path for plugin authors. Everything here
 * is pure TypeScript (no I/O); it mirrors Kafka Connect's connect-api.
 *
 * @example
 * import { SourceConnector, SourceTask, SourceRecord, ConfigDef } from 'serverless-connect/connect';
 */
export * from './config-def.js';
export * from './config-provider.js';
export * from './config-validators.js';
export * from './connector.js';
export * from './context.js';
export * from './converter.js';
export * from './errors.js';
export * from './headers.js';
export * from './logical-types.js';
export * from './plugin.js';
export * from './plugin-module.js';
export * from './predicate.js';
export * from './records.js';
export * from './schema.js';
export * from './sink.js';
export * from './source.js';
export * from './struct.js';
export * from './transformation.js';
