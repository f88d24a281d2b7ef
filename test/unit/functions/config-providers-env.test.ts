// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config placeholders such as ${env:X} are plain text here
/**
 * `CONFIG_PROVIDERS_ENV_PARAM_ALLOWLIST_PATTERN` / `CONFIG_PROVIDERS_FILE_PARAM_ALLOWED_PATHS`
 * (Kafka Connect's `config.providers.env.param.allowlist.pattern` and
 * `config.providers.file.param.allowed.paths`) in the functions and in `npm start`.
 */
import { describe, expect, it } from 'vitest';
import { readEnv } from '../../../functions/_env.js';
import { parseCliOptions } from '../../../local/runtime/cli-options.js';
import { defaultConfigProviders } from '../../../shared/adapters/config-providers/defaults.js';
import { refusedPlaceholders } from '../../../shared/config/config-providers.js';
import { ConfigError } from '../../../shared/connect/errors.js';

const base = { STATE_TABLE: 'state', KAFKA_BROKERS: 'b-1:9092' };

/** The config keys `settings` refuses among a few probes. */
async function refusedKeys(settings: Parameters<typeof defaultConfigProviders>[0]) {
  const refused = await refusedPlaceholders(
    {
      credentials: '${env:AWS_SECRET_ACCESS_KEY}',
      handler: '${env:_HANDLER}',
      task: '${env:LAMBDA_TASK_ROOT}',
      mine: '${env:CONNECT_DB_PASSWORD}',
      home: '${env:HOME}',
      file: '${file:/etc/hostname:x}',
      environ: '${file:/proc/self/environ:PATH}',
    },
    defaultConfigProviders(settings),
  );
  return refused.map((r) => r.configKey).sort();
}

describe('config provider settings', () => {
  it('let nothing be read through ${env:} or ${file:} in Lambda by default', async () => {
    // Act
    const settings = readEnv(base).configProviders;
    // Assess
    expect(settings.envAllowlistPattern).toBe('');
    expect(settings.fileAllowedPaths).toEqual([]);
    expect(await refusedKeys(settings)).toEqual(
      ['credentials', 'environ', 'file', 'handler', 'home', 'mine', 'task'].sort(),
    );
  });

  it('never let Lambda reserved variables through, even with the allowlist .*', async () => {
    // Act
    const settings = readEnv({
      ...base,
      CONFIG_PROVIDERS_ENV_PARAM_ALLOWLIST_PATTERN: '.*',
      CONFIG_PROVIDERS_FILE_PARAM_ALLOWED_PATHS: '/etc, /tmp',
    }).configProviders;
    // Assess
    expect(settings.envAllowlistPattern).toBe('.*');
    expect(settings.fileAllowedPaths).toEqual(['/etc', '/tmp']);
    expect(await refusedKeys(settings)).toEqual(['credentials', 'environ', 'handler', 'task']);
  });

  it('let npm start read every variable but AWS_* and every file but /proc by default', async () => {
    // Act
    const options = parseCliOptions([], {});
    // Assess
    const settings = options === 'help' ? undefined : options.configProviders;
    if (settings === undefined) throw new Error('no config provider settings');
    expect(settings).toEqual({ envAllowlistPattern: '(?!AWS_).*', fileAllowedPaths: undefined });
    expect(await refusedKeys(settings)).toEqual(['credentials', 'environ']);
  });

  it('are read from the same variables by npm start, an empty one allowing nothing', async () => {
    // Act
    const options = parseCliOptions([], {
      CONFIG_PROVIDERS_ENV_PARAM_ALLOWLIST_PATTERN: '',
      CONFIG_PROVIDERS_FILE_PARAM_ALLOWED_PATHS: '',
    });
    // Assess
    if (options === 'help') throw new Error('unexpected help');
    expect(options.configProviders).toEqual({ envAllowlistPattern: '', fileAllowedPaths: [] });
  });

  it('refuse a pattern that is no regex and a relative path, naming the variable', () => {
    const badPattern = () =>
      readEnv({ ...base, CONFIG_PROVIDERS_ENV_PARAM_ALLOWLIST_PATTERN: '(' });
    const relative = () =>
      parseCliOptions([], { CONFIG_PROVIDERS_FILE_PARAM_ALLOWED_PATHS: '/etc,secrets' });
    expect(badPattern).toThrow(ConfigError);
    expect(badPattern).toThrow('CONFIG_PROVIDERS_ENV_PARAM_ALLOWLIST_PATTERN must be a regular');
    expect(relative).toThrow(
      'CONFIG_PROVIDERS_FILE_PARAM_ALLOWED_PATHS takes absolute directories, comma-separated (got secrets)',
    );
  });
});
