/**
 * The `env` config provider, as Kafka's `EnvVarConfigProvider` (KIP-887): `${env:NAME}` resolves
 * to the environment variable `NAME`. Paths are not supported (`${env:some/path:NAME}` fails).
 * The worker's `config.providers.env.param.allowlist.pattern`, a regex the whole name must match,
 * limits which variables configs may read; a variable outside it is refused (a validation
 * error naming the config key), not silently left unresolved as in Kafka. Names matching
 * `reserved` are refused whatever the allowlist says: in Lambda, {@link LAMBDA_RESERVED_VARIABLES}
 * (the function's AWS credentials and the runtime's own variables).
 */
import type { ConfigProviderResolver } from '../../config/config-providers.js';
import { compileFullMatch } from '../../connect/config-validators.js';
import { ConfigError } from '../../connect/errors.js';

/** The provider name configs use: `${env:NAME}`. */
export const ENV_PROVIDER_NAME = 'env';

/** The worker setting the allowlist comes from, named as Kafka Connect names it. */
export const ENV_ALLOWLIST_SETTING = 'config.providers.env.param.allowlist.pattern';

/** Variables no config may read, whatever the allowlist says. */
export interface ReservedVariables {
  /** Matched against the whole name. */
  readonly pattern: RegExp;
  /** Why, for the refusal: "reserved by …". */
  readonly reason: string;
}

/**
 * AWS Lambda's reserved and runtime variables (the "Defined runtime environment variables" of
 * the Lambda developer guide): `AWS_*` (among them `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
 * `AWS_SESSION_TOKEN`, `AWS_LAMBDA_*`, `AWS_REGION`, `AWS_EXECUTION_ENV`), `_*` (`_HANDLER`,
 * `_X_AMZN_TRACE_ID`, `_AWS_XRAY_*`), `LAMBDA_*` (`LAMBDA_TASK_ROOT`, `LAMBDA_RUNTIME_DIR`) and
 * `TZ`.
 */
export const LAMBDA_RESERVED_VARIABLES: ReservedVariables = {
  pattern: /^(?:AWS_.*|_.*|LAMBDA_.*|TZ)$/,
  reason: 'reserved by AWS Lambda (the function’s credentials and the runtime’s own variables)',
};

export interface EnvConfigProviderOptions {
  /**
   * The variables to read, looked up at each resolution.
   * @default process.env
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Only variables whose whole name matches this regex may be read (Kafka's
   * `allowlist.pattern`); others are refused.
   * @default '.*'
   */
  readonly allowlistPattern?: string;
  /** Names refused whatever the allowlist says. @default none */
  readonly reserved?: ReservedVariables;
}

/**
 * Compiles an allowlist pattern as Kafka's `Pattern.matcher(name).matches()` uses it (the whole
 * name must match). Throws {@link ConfigError} naming the setting when it is not a valid regex.
 */
export function compileAllowlist(pattern: string): RegExp {
  try {
    return compileFullMatch(pattern);
  } catch (error) {
    throw new ConfigError(
      `Invalid value ${pattern} for configuration ${ENV_ALLOWLIST_SETTING}: not a valid regex`,
      ENV_ALLOWLIST_SETTING,
      { cause: error },
    );
  }
}

/**
 * Creates the `env` provider. Throws {@link ConfigError} if `allowlistPattern` is not a valid
 * regex.
 *
 * @example
 * const providers = { env: createEnvConfigProvider({ allowlistPattern: 'CONNECT_.*' }) };
 * await resolvePlaceholders({ 'db.password': '${env:CONNECT_DB_PASSWORD}' }, providers);
 */
export function createEnvConfigProvider(
  options: EnvConfigProviderOptions = {},
): ConfigProviderResolver {
  const allowlist = compileAllowlist(options.allowlistPattern ?? '.*');
  const { reserved } = options;
  const refusal = (path: string, key: string): string | undefined => {
    if (path !== '') return `EnvVarConfigProvider takes no path (got '${path}')`;
    if (reserved?.pattern.test(key) === true) {
      return `environment variable ${key} is ${reserved.reason} and never readable by connector configs`;
    }
    if (!allowlist.test(key)) {
      return `environment variable ${key} is not allowed by the worker's ${ENV_ALLOWLIST_SETTING}`;
    }
    return undefined;
  };
  return {
    async get(path, keys) {
      if (path !== '') {
        throw new ConfigError(
          `Path is not supported for EnvVarConfigProvider, invalid value '${path}'`,
        );
      }
      const env = options.env ?? process.env;
      const found: Record<string, string> = {};
      for (const key of keys) {
        const value = Object.hasOwn(env, key) ? env[key] : undefined;
        if (value !== undefined && refusal(path, key) === undefined) found[key] = value;
      }
      return found;
    },
    refusal: async (path, key) => refusal(path, key),
  };
}
