/**
 * The connector test kit: the checks every connector passes, for any test runner. A check is
 * a name and a `run()` that rejects with a descriptive Error when the connector breaks a
 * contract of the plugin API. Imports only the plugin API. See docs/testkit.md.
 *
 * @example
 * import { sourceConnectorChecks } from 'serverless-connect/testkit';
 * describe('my source', () => {
 *   for (const c of sourceConnectorChecks(subject)) it(c.name, () => c.run());
 * });
 */
export { type Check, CheckFailure, canonical, SeededRandom } from './check.js';
export { DEFAULT_MAX_TASKS, GARBAGE_VALUES } from './connector-checks.js';
export { MemoryOffsetStore, RecordingPluginMetrics } from './contexts.js';
export { assessReplay, sinkConnectorChecks } from './sink-checks.js';
export { sourceConnectorChecks } from './source-checks.js';
export type {
  ConnectorConfig,
  ConnectorSubject,
  ExpectedFailure,
  InvalidConfig,
  SinkConnectorSubject,
  SinkFixture,
  SinkGuarantee,
  SourceConnectorSubject,
  SourceFixture,
} from './subjects.js';
