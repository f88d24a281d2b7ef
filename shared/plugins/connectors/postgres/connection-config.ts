/**
 * The connection keys every PostgreSQL connector takes, with the JDBC connectors' names
 * (`connection.url`, `connection.user`, `connection.password`), and their parsed form.
 */
import { ConfigDef, NonEmptyString, Password } from 'serverless-connect/connect';
import { type ConnectionSettings, parseConnectionUrl } from './connection-url.js';

export const CONNECTION_URL_CONFIG = 'connection.url';
export const CONNECTION_USER_CONFIG = 'connection.user';
export const CONNECTION_PASSWORD_CONFIG = 'connection.password';

/** A config provider placeholder, as the documentation shows one. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Connect's placeholder syntax
const SECRET_EXAMPLE = '${secretsmanager:shop:password}';

const CONNECTION_GROUP = 'Connection';

/** The connection keys; a connector's ConfigDef extends it (`new ConfigDef(CONNECTION_CONFIG_DEF)`). */
export const CONNECTION_CONFIG_DEF: ConfigDef = new ConfigDef()
  .define({
    name: CONNECTION_URL_CONFIG,
    type: 'STRING',
    validator: new NonEmptyString(),
    importance: 'HIGH',
    group: CONNECTION_GROUP,
    documentation:
      'The PostgreSQL server, as a JDBC URL (jdbc:postgresql://host:port/database?sslmode=require) ' +
      'or a libpq URL (postgres://host:port/database). Parameters taken: user, password, ' +
      'sslmode (disable, allow and prefer connect without TLS; require; verify-ca and verify-full ' +
      'check the certificate), ssl=true (verify-full), currentSchema, ApplicationName, ' +
      'connectTimeout (seconds). Keep the password out of the URL: use connection.password.',
  })
  .define({
    name: CONNECTION_USER_CONFIG,
    type: 'STRING',
    defaultValue: null,
    importance: 'HIGH',
    group: CONNECTION_GROUP,
    documentation: "The database user; it wins over the URL's user.",
  })
  .define({
    name: CONNECTION_PASSWORD_CONFIG,
    type: 'PASSWORD',
    defaultValue: null,
    importance: 'HIGH',
    group: CONNECTION_GROUP,
    documentation:
      "The database user's password (a config provider placeholder such as " +
      `${SECRET_EXAMPLE} keeps it out of the stored config); it wins over the URL's password.`,
  });

/**
 * The connection settings of `connector`'s parsed config `values` (from a ConfigDef extending
 * {@link CONNECTION_CONFIG_DEF}): `connection.user` and `connection.password` win over the URL's.
 * @throws ConfigError on `connection.url` for a URL that is not PostgreSQL's.
 */
export function connectionSettingsOf(
  values: Readonly<Record<string, unknown>>,
  connector: string,
): ConnectionSettings {
  const user = values[CONNECTION_USER_CONFIG];
  const password = values[CONNECTION_PASSWORD_CONFIG];
  return parseConnectionUrl(String(values[CONNECTION_URL_CONFIG]), {
    connector,
    user: typeof user === 'string' && user !== '' ? user : undefined,
    password: password instanceof Password ? password.value() : undefined,
  });
}
