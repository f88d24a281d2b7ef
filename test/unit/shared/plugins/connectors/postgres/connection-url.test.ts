import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../../../shared/connect/errors.js';
import {
  parseConnectionUrl,
  redactUrl,
} from '../../../../../../shared/plugins/connectors/postgres/connection-url.js';

const SINK = { connector: 'postgres-sink' };

function failure(url: string): ConfigError {
  try {
    parseConnectionUrl(url, SINK);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConnectionUrl', () => {
  it('reads a JDBC URL with host, port, database and pgjdbc parameters', () => {
    const settings = parseConnectionUrl(
      'jdbc:postgresql://db.example.com:6543/shop?sslmode=require&currentSchema=sales&ApplicationName=orders&connectTimeout=5',
      SINK,
    );
    expect(settings).toEqual({
      host: 'db.example.com',
      port: 6543,
      database: 'shop',
      user: undefined,
      password: undefined,
      ssl: { rejectUnauthorized: false },
      searchPath: 'sales',
      applicationName: 'orders',
      connectTimeoutMs: 5000,
    });
  });

  it('reads a libpq URL with its user and password, and the defaults of the rest', () => {
    const settings = parseConnectionUrl('postgres://sink:p%40ss@127.0.0.1/postgres', SINK);
    expect(settings).toMatchObject({
      host: '127.0.0.1',
      port: 5432,
      database: 'postgres',
      user: 'sink',
      password: 'p@ss',
      ssl: false,
    });
  });

  it('reads jdbc:postgresql:database as localhost:5432 and an IPv6 host', () => {
    expect(parseConnectionUrl('jdbc:postgresql:shop', SINK)).toMatchObject({
      host: 'localhost',
      port: 5432,
      database: 'shop',
    });
    expect(parseConnectionUrl('jdbc:postgresql://[::1]:5433/shop', SINK)).toMatchObject({
      host: '::1',
      port: 5433,
    });
  });

  it('lets connection.user and connection.password win over the URL', () => {
    const settings = parseConnectionUrl('jdbc:postgresql://h/db?user=a&password=b', {
      ...SINK,
      user: 'sink',
      password: 'secret',
    });
    expect(settings).toMatchObject({ user: 'sink', password: 'secret' });
  });

  it("names the connector in application_name unless the URL's ApplicationName names another", () => {
    const name = (url: string, connector: string) =>
      parseConnectionUrl(url, { connector }).applicationName;
    expect(name('postgres://h/db', 'postgres-source')).toBe('serverless-connect postgres-source');
    expect(name('jdbc:postgresql://h/db', 'postgres-cdc')).toBe('serverless-connect postgres-cdc');
    expect(name('jdbc:postgresql://h/db?ApplicationName=etl', 'postgres-source')).toBe('etl');
  });

  it('maps sslmode (and ssl=true) to TLS settings', () => {
    const ssl = (query: string) => parseConnectionUrl(`jdbc:postgresql://h/db?${query}`, SINK).ssl;
    expect(ssl('sslmode=disable')).toBe(false);
    expect(ssl('sslmode=prefer')).toBe(false);
    expect(ssl('sslmode=verify-full')).toEqual({ rejectUnauthorized: true });
    expect(ssl('sslmode=verify-ca')).toEqual({ rejectUnauthorized: true });
    expect(ssl('ssl=true')).toEqual({ rejectUnauthorized: true });
  });

  it("refuses other databases' URLs, several hosts and unknown sslmodes on connection.url", () => {
    expect(failure('jdbc:mysql://h:3306/db').message).toBe(
      'Invalid value jdbc:mysql://h:3306/db for configuration connection.url: expected jdbc:postgresql://host:port/database or postgres://host:port/database',
    );
    expect(failure('jdbc:postgresql://a:5432,b:5432/db').message).toContain('several hosts');
    expect(failure('jdbc:postgresql://h/db?sslmode=sometimes').message).toContain(
      "unknown sslmode 'sometimes'",
    );
    expect(failure('jdbc:postgresql://h/db?sslmode=x').key).toBe('connection.url');
  });

  it('never puts a password of the URL into an error', () => {
    const message = failure('postgres://sink:hunter2@h/db?sslmode=x&password=hunter3').message;
    expect(message).not.toContain('hunter2');
    expect(message).not.toContain('hunter3');
    expect(redactUrl('jdbc:postgresql://h/db?user=a&password=hunter2')).toBe(
      'jdbc:postgresql://h/db?user=a&password=[hidden]',
    );
  });
});
