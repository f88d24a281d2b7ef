/**
 * `connection.url` in either form a PostgreSQL user has at hand: the JDBC URL of the JDBC sink
 * (`jdbc:postgresql://host:port/db?sslmode=require&currentSchema=sales`, also
 * `jdbc:postgresql:db`) or libpq's (`postgres://user@host:port/db?sslmode=require`), read into
 * the settings of a node-postgres pool. Pure; a password never appears in an error.
 */
import { ConfigError } from 'serverless-connect/connect';

const KEY = 'connection.url';
const DEFAULT_PORT = 5432;

/** TLS as node-postgres takes it: off, or on with or without checking the certificate. */
export type SslSetting = false | { readonly rejectUnauthorized: boolean };

/** Where and how to connect; `password` is a secret (never log these settings whole). */
export interface ConnectionSettings {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user: string | undefined;
  readonly password: string | undefined;
  readonly ssl: SslSetting;
  /** `currentSchema`: the search_path of every connection. */
  readonly searchPath: string | undefined;
  readonly applicationName: string;
  readonly connectTimeoutMs: number | undefined;
}

/** The URL with any password in it replaced, for messages. */
export function redactUrl(url: string): string {
  return url
    .replace(/(\/\/[^:/?#@]*:)[^@/?#]*@/, '$1[hidden]@')
    .replace(/([?&]password=)[^&#]*/gi, '$1[hidden]');
}

function invalid(url: string, why: string): ConfigError {
  return new ConfigError(`Invalid value ${redactUrl(url)} for configuration ${KEY}: ${why}`, KEY);
}

/** pgjdbc's sslmode values, and `ssl=true` (which pgjdbc reads as verify-full). */
function sslOf(url: string, params: URLSearchParams): SslSetting {
  const mode = params.get('sslmode') ?? (params.get('ssl') === 'true' ? 'verify-full' : 'prefer');
  switch (mode.toLowerCase()) {
    case 'disable':
    case 'allow':
    case 'prefer':
      return false;
    case 'require':
    case 'no-verify':
      return { rejectUnauthorized: false };
    case 'verify-ca':
    case 'verify-full':
      return { rejectUnauthorized: true };
    default:
      throw invalid(
        url,
        `unknown sslmode '${mode}' (disable, allow, prefer, require, verify-ca, verify-full)`,
      );
  }
}

/** `jdbc:postgresql:db` and `jdbc:postgresql://…` as a URL the WHATWG parser reads. */
function normalise(url: string): string {
  const trimmed = url.trim();
  const jdbc = /^jdbc:postgresql:(.*)$/i.exec(trimmed);
  if (jdbc === null) {
    if (/^postgres(ql)?:\/\//i.test(trimmed)) return trimmed;
    throw invalid(
      url,
      'expected jdbc:postgresql://host:port/database or postgres://host:port/database',
    );
  }
  const rest = jdbc[1] ?? '';
  if (rest.startsWith('//')) return `postgresql:${rest}`;
  // jdbc:postgresql:database → localhost:5432
  return `postgresql://localhost/${rest.replace(/^\//, '')}`;
}

/** Who connects, and the credentials that win over the URL's. */
export interface ConnectionUrlOptions {
  /**
   * The connector's name (`postgres-sink`, `postgres-source`, `postgres-cdc`): the connections'
   * `application_name` is `serverless-connect <connector>` unless the URL's `ApplicationName`
   * names another, so `pg_stat_activity` tells the connectors apart.
   */
  readonly connector: string;
  /** `connection.user`. */
  readonly user?: string | undefined;
  /** `connection.password`. */
  readonly password?: string | undefined;
}

/**
 * Reads `url` (JDBC or libpq form); `options.user` and `options.password` (`connection.user`,
 * `connection.password`) win over the URL's own.
 * @throws ConfigError on connection.url: another scheme, several hosts, a bad port or sslmode.
 */
export function parseConnectionUrl(url: string, options: ConnectionUrlOptions): ConnectionSettings {
  const text = normalise(url);
  const authority = /^[a-z]+:\/\/([^/?#]*)/i.exec(text)?.[1] ?? '';
  if (authority.replace(/\[[^\]]*\]/g, '').includes(',')) {
    throw invalid(url, 'several hosts (failover) are not supported; give one host');
  }
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw invalid(url, 'not a valid URL');
  }
  const params = parsed.searchParams;
  const port = parsed.port === '' ? DEFAULT_PORT : Number(parsed.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw invalid(url, 'bad port');
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  const timeout = params.get('connectTimeout');
  const seconds = timeout === null ? undefined : Number(timeout);
  if (seconds !== undefined && !(Number.isFinite(seconds) && seconds >= 0)) {
    throw invalid(url, `connectTimeout must be a number of seconds, not '${timeout}'`);
  }
  const urlUser =
    params.get('user') ??
    (parsed.username === '' ? undefined : decodeURIComponent(parsed.username));
  const urlPassword =
    params.get('password') ??
    (parsed.password === '' ? undefined : decodeURIComponent(parsed.password));
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1') || 'localhost',
    port,
    database: database === '' ? 'postgres' : database,
    user: options.user ?? urlUser,
    password: options.password ?? urlPassword,
    ssl: sslOf(url, params),
    searchPath: params.get('currentSchema') ?? undefined,
    applicationName: params.get('ApplicationName') ?? `serverless-connect ${options.connector}`,
    connectTimeoutMs: seconds === undefined || seconds === 0 ? undefined : seconds * 1000,
  };
}
