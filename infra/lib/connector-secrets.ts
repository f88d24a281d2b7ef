import { Token, Tokenization } from 'aws-cdk-lib';

/**
 * Which connector config values must be config-provider placeholders (`${secretsmanager:...}`,
 * `${ssm:...}`, ...; docs/config-providers.md) when a connector is declared in CDK: a literal
 * there would be written into the CloudFormation template, the stack's events and the stored
 * config that `GET /connectors/{c}` returns. infra/ cannot read the plugins' ConfigDefs (the
 * dependency rule), so the keys are known by name: every key the built-in plugins type
 * `PASSWORD` matches (test/unit/infra/connector-secrets.test.ts checks it), and so do the usual
 * secret names of other plugins.
 */

/** Key endings (after a `.`, or the whole key) that hold secrets. */
const SECRET_KEY_ENDINGS = [
  'password',
  'secret',
  'sasl.jaas.config',
  'ssl.keystore.key',
  'ssl.keystore.certificate.chain',
  'ssl.truststore.certificates',
  // A schema registry's `user:password` (Confluent's converters: `value.converter.basic.auth.user.info`).
  'basic.auth.user.info',
];

/**
 * True for keys whose values must be placeholders: names ending in `password` or `secret`,
 * with a `secret` segment (`aws.secret.access.key`, `client.secret.id`), or ending in one of
 * Kafka's PASSWORD-typed client keys (`sasl.jaas.config`, `ssl.keystore.key`, ...), with any
 * prefix (`admin.override.`, `consumer.override.`).
 */
export function isSecretKey(key: string): boolean {
  const lower = key.toLowerCase();
  if (lower.split(/[._-]/).includes('secret')) return true;
  return SECRET_KEY_ENDINGS.some(
    (ending) =>
      lower === ending ||
      lower.endsWith(`.${ending}`) ||
      (!ending.includes('.') && lower.endsWith(ending)),
  );
}

/** Stands for a CDK token (a value known only at deploy time) in a value's shape. */
const TOKEN = '\u0001';

/** Kafka's `ConfigTransformer.DEFAULT_PATTERN`, anchored: the whole value is one placeholder. */
const WHOLE_PLACEHOLDER = /^\$\{[^}]*?:(?:[^}]*?:)?[^}]*?\}$/;

/** A JAAS option whose name says it holds a secret, with its value (quoted or not). */
const JAAS_SECRET_OPTION = /([\w.-]*(?:password|secret)[\w.-]*)\s*=\s*(?:"([^"]*)"|([^\s;]+))/gi;

/** The value with each token replaced by {@link TOKEN}. */
function shapeOf(value: string): string {
  if (value === '') return '';
  return String(
    Tokenization.reverseString(value)
      .mapTokens({ mapToken: () => TOKEN })
      .join({ join: (left, right) => `${left}${right}` }),
  );
}

const isPlaceholder = (shape: string) => WHOLE_PLACEHOLDER.test(shape);

/**
 * Why `value` of secret key `key` is refused, or undefined when it is acceptable: empty, one
 * placeholder (tokens inside it are fine: `${secretsmanager:${secret.secretArn}:password}`), or
 * for `sasl.jaas.config` a JAAS line whose password and secret options are placeholders.
 */
export function secretValueProblem(key: string, value: string): string | undefined {
  const shape = shapeOf(value);
  if (shape === '' || isPlaceholder(shape)) return undefined;
  const hint =
    // biome-ignore lint/suspicious/noTemplateCurlyInString: config-provider placeholders, not a template
    'reference the secret with a config provider placeholder, e.g. ${secretsmanager:<secret arn>:<json key>} or ${ssm:/param/name}';
  if (key.toLowerCase().endsWith('sasl.jaas.config') && !shape.includes(TOKEN)) {
    const options = [...shape.matchAll(JAAS_SECRET_OPTION)];
    const literal = options.find((m) => !isPlaceholder(m[2] ?? m[3] ?? ''));
    if (options.length > 0 && literal === undefined) return undefined;
    const what =
      literal === undefined ? 'has no placeholder' : `holds a literal ${literal[1] ?? ''}`;
    return `${key} ${what}: ${hint}`;
  }
  if (shape.includes(TOKEN)) {
    return `${key} is a CDK token: a resolved secret (a dynamic reference, SecretValue) would be stored in the connector config; ${hint}`;
  }
  return `${key} holds a literal value: ${hint}`;
}

/** Marks token `n` in a value's shape (neither character can occur in a placeholder's syntax). */
const tokenMark = (n: number) => `\u0001${n}\u0002`;

/** Kafka's `ConfigTransformer.DEFAULT_PATTERN`: `${provider:path:key}` or `${provider:key}`. */
const PLACEHOLDER = /\$\{([^}]*?):(?:([^}]*?):)?([^}]*?)\}/g;

/** The parts of an ARN before the name (`arn:aws:secretsmanager:<region>:<account>:secret`). */
const ARN_PARTS = 7;

/**
 * The secrets `${secretsmanager:...}` placeholders in `value` read, as the functions' provider
 * (shared/adapters/config-providers/aws-provider.ts, `secretReference`) takes them: a name, or an
 * ARN (`${secretsmanager:arn:aws:secretsmanager:...:secret:db-AbCdEf:password}`, or a CDK token
 * such as `secret.secretArn`, which then stands in the result as it was given).
 */
export function secretsManagerSecretIds(value: string): string[] {
  if (value === '') return [];
  const tokens: string[] = [];
  const shape = String(
    Tokenization.reverseString(value)
      .mapTokens({
        mapToken: (token) => {
          tokens.push(Token.asString(token));
          return tokenMark(tokens.length - 1);
        },
      })
      .join({ join: (left, right) => `${left}${right}` }),
  );
  const unmark = (text: string) =>
    tokens.reduce((out, token, n) => out.split(tokenMark(n)).join(token), text);
  const ids: string[] = [];
  for (const [, provider, path = '', key = ''] of shape.matchAll(PLACEHOLDER)) {
    if (provider !== 'secretsmanager') continue;
    const id =
      path === 'arn'
        ? `arn:${key}`.split(':').slice(0, ARN_PARTS).join(':')
        : path === ''
          ? key
          : path;
    ids.push(unmark(id));
  }
  return ids;
}
