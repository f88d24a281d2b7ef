import { inject } from 'vitest';
import { parseCliOptions } from '../../../local/runtime/cli-options.js';
import { loadPluginModules } from '../../../local/runtime/plugin-loader.js';
import { type LocalRuntime, startLocalRuntime } from '../../../local/runtime/start.js';
import { uniqueName } from '../../support/services.js';

/**
 * `npm start -- --memory --plugins <modules>` started in this process from the same options
 * (`parseCliOptions` → `loadPluginModules` → `startLocalRuntime`, as local/runtime/run-cli.ts
 * does), on the test broker, with quick enumerator and source settings. Log lines go to `logs`
 * (the last thousand or more).
 */
export async function startPluginRuntime(modules: string, logs: string[]): Promise<LocalRuntime> {
  const options = parseCliOptions(
    ['--memory', '--port', '0', '--s3-port', '0', '--plugins', modules],
    {},
  );
  if (options === 'help') throw new Error('unexpected help');
  const { plugins, ...cli } = options;
  return startLocalRuntime({
    ...cli,
    pluginModules: await loadPluginModules(plugins),
    brokers: inject('kafkaBrokers'),
    transactionalIdPrefix: uniqueName('plugins'),
    // Its own offsets topic, as the e2e runtime's (test/integration/e2e/support.ts).
    offsetsTopic: uniqueName('plugins-offsets'),
    kafkaClusterId: 'plugins-cluster',
    enumeratorIntervalMs: 1_000,
    sourceBudgetMs: 5_000,
    sourceSettings: { maxIdleMs: 500, idlePollMs: 20, assignmentCheckMs: 200 },
    writeLog: (line) => {
      logs.push(line);
      if (logs.length > 2_000) logs.splice(0, 1_000);
    },
  });
}
