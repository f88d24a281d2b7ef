import { parseArgs } from 'node:util';
import {
  readConfigProviderSettings,
  readTopicTracking,
  wholeSecondsMs,
} from '../../functions/_env.js';
import { fromLog4jLevel } from '../../shared/adapters/logging/logger-levels.js';
import { ConfigError } from '../../shared/connect/errors.js';
import { priceTableOf } from '../../shared/runtime/metering/prices.js';
import {
  LOCAL_CONFIG_PROVIDER_DEFAULTS,
  LOCAL_DEFAULTS,
  type LocalRuntimeOptions,
} from './options.js';

/** `npm start -- --help`. */
export const USAGE = `Usage: npm start [-- options]

Runs serverless-connect on this machine: the Kafka Connect REST API, the enumerator, source
tasks in-process, the event-source-mapping stand-in for sinks, dynalite and s3rver.

Options:
  --memory                 keep nothing (tables in memory, objects in a temporary folder)
  --data-dir <dir>         where state is kept (default ${LOCAL_DEFAULTS.dataDir})
  --port <n>               REST API port (default ${LOCAL_DEFAULTS.port}; env PORT; 0 = any free port)
  --s3-port <n>            s3rver port (default ${LOCAL_DEFAULTS.s3Port}; env S3_PORT; 0 = any free port)
  --enumerator-interval <s>  full enumerator run every <s> seconds (default ${LOCAL_DEFAULTS.enumeratorIntervalMs / 1000})
  --task-budget <s>        time budget of one source-task invocation (default ${LOCAL_DEFAULTS.sourceBudgetMs / 1000})
  --dynamodb-endpoint <url>  use this running DynamoDB-compatible server (e.g. dynalite)
                           instead of starting dynalite in this process
  --plugins <m>[,<m>...]   plugin packages to load: paths (from the current directory) or package
                           names of ES modules that export their plugins (see README, Plugins)
  -h, --help               this text

Environment:
  KAFKA_BROKERS            use this broker (host:port,...) instead of starting the pinned one
  LOG_LEVEL                error | warn | info | debug until /admin/loggers sets one (default info)
  EXACTLY_ONCE_SOURCE      enabled (default) | disabled
  TOPIC_TRACKING_ENABLE    true (default) | false: record and serve connectors' active topics
  TOPIC_TRACKING_ALLOW_RESET  true (default) | false: allow PUT /connectors/{c}/topics/reset
  CONNECT_PLUGINS          plugin packages, as --plugins (the flag wins)
  CONFIG_PROVIDERS_ENV_PARAM_ALLOWLIST_PATTERN  the variables \${env:NAME} may read, a regex
                           on the whole name (default (?!AWS_).*: all but AWS_*)
  CONFIG_PROVIDERS_FILE_PARAM_ALLOWED_PATHS  the directories \${file:...} may read,
                           comma-separated absolute paths (default: all but /proc)
  COST_PRICES              a JSON object overriding prices of GET /connectors/{c}/cost
                           (default: us-east-1 list prices, arm64; docs/deploy.md)
  SOURCE_IDLE_BACKOFF_MAX_SECONDS  the most the idle back-off adds to an idle source task's
                           dispatch, its steps being the enumerator interval (default 0: off here)
  TRANSACTIONAL_ID_PREFIX, OFFSETS_TOPIC
`;

function wholeNumber(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} takes a whole number`, name);
  return n;
}

function seconds(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`${name} takes seconds (> 0)`, name);
  return Math.round(n * 1000);
}

/** A comma-separated list, trimmed, without empty entries. */
function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/** `npm start`'s options: the runtime's, and the plugin modules to load before it starts. */
export type CliOptions = LocalRuntimeOptions & {
  readonly dataDir: string;
  /** `--plugins` (else CONNECT_PLUGINS): paths or package names, as given. */
  readonly plugins: readonly string[];
};

/** The runtime options of `npm start`'s arguments and environment, or `'help'`. */
export function parseCliOptions(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): CliOptions | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      memory: { type: 'boolean' },
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      's3-port': { type: 'string' },
      'enumerator-interval': { type: 'string' },
      'task-budget': { type: 'string' },
      'dynamodb-endpoint': { type: 'string' },
      plugins: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help === true) return 'help';
  const level = env.LOG_LEVEL === undefined ? 'info' : fromLog4jLevel(env.LOG_LEVEL);
  if (level === undefined) {
    throw new ConfigError(`LOG_LEVEL must be one of error, warn, info, debug`, 'LOG_LEVEL');
  }
  const eos = (env.EXACTLY_ONCE_SOURCE ?? 'enabled').toLowerCase();
  if (eos !== 'enabled' && eos !== 'disabled') {
    throw new ConfigError('EXACTLY_ONCE_SOURCE must be enabled or disabled', 'EXACTLY_ONCE_SOURCE');
  }
  const brokers = list(env.KAFKA_BROKERS);
  const port = wholeNumber(values.port ?? env.PORT, '--port');
  const s3Port = wholeNumber(values['s3-port'] ?? env.S3_PORT, '--s3-port');
  const interval = seconds(values['enumerator-interval'], '--enumerator-interval');
  const budget = seconds(values['task-budget'], '--task-budget');
  const dynamoEndpoint = values['dynamodb-endpoint']?.trim();
  if (dynamoEndpoint !== undefined && !/^https?:\/\/[^/]+/.test(dynamoEndpoint)) {
    throw new ConfigError(
      '--dynamodb-endpoint takes a URL such as http://127.0.0.1:8000',
      '--dynamodb-endpoint',
    );
  }
  const idleBackoffMaxMs = wholeSecondsMs(env, 'SOURCE_IDLE_BACKOFF_MAX_SECONDS', 0);
  const prefix = env.TRANSACTIONAL_ID_PREFIX?.trim();
  const offsetsTopic = env.OFFSETS_TOPIC?.trim();
  return {
    dataDir: values['data-dir'] ?? LOCAL_DEFAULTS.dataDir,
    memory: values.memory === true,
    logLevel: level,
    exactlyOnceSource: eos === 'enabled',
    topicTracking: readTopicTracking(env),
    configProviders: readConfigProviderSettings(env, LOCAL_CONFIG_PROVIDER_DEFAULTS),
    plugins: list(values.plugins ?? env.CONNECT_PLUGINS),
    prices: priceTableOf(env.COST_PRICES, 'COST_PRICES'),
    ...(brokers.length > 0 ? { brokers } : {}),
    ...(port === undefined ? {} : { port }),
    ...(s3Port === undefined ? {} : { s3Port }),
    ...(interval === undefined ? {} : { enumeratorIntervalMs: interval }),
    ...(budget === undefined ? {} : { sourceBudgetMs: budget }),
    ...(idleBackoffMaxMs === 0 ? {} : { sourceIdleBackoffMaxMs: idleBackoffMaxMs }),
    ...(dynamoEndpoint === undefined ? {} : { dynamoEndpoint }),
    ...(prefix ? { transactionalIdPrefix: prefix } : {}),
    ...(offsetsTopic ? { offsetsTopic } : {}),
  };
}
