/**
 * `producer.override.*` and `admin.override.*`: the per-connector client settings of Kafka
 * Connect (KIP-458). Connect's default `connector.client.config.override.policy` (`All`, since
 * 3.0) accepts every key and leaves checking to the Kafka client at task start. Here the keys
 * the runtime honours are checked at validation time, with the Java client's messages (type,
 * then the key's validator), and settings that would break the delivery guarantee, or that the
 * kafkajs clients cannot honour, are refused. Other keys are accepted and have no effect.
 *
 * The same rules serve `PUT …/config/validate` ({@link clientOverrideErrors}) and task start
 * ({@link parseProducerOverrides}, {@link parseAdminOverrides}).
 */
import {
  type ConfigProps,
  type ConfigType,
  type ConfigValue,
  parseType,
  type Validator,
} from '../connect/config-def.js';
import { CaseInsensitiveValidString, Range, ValidString } from '../connect/config-validators.js';
import { ConfigError } from '../connect/errors.js';
import { hasPlaceholder } from './config-providers.js';
import {
  type ConnectorKind,
  ConnectorConfigNames as N,
  ConnectorConfigPrefixes as P,
} from './connector-config-defs.js';
import { type JaasLogin, parseJaasConfig } from './jaas-config.js';

/** Kafka's `compression.type` values. */
export const COMPRESSION_TYPES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
export type CompressionTypeName = (typeof COMPRESSION_TYPES)[number];

export type SecurityProtocolName = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';
export type SaslMechanismName = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

/** The `producer.override.*` keys the runtime honours, parsed. */
export interface ProducerOverrides {
  readonly compressionType?: CompressionTypeName;
  readonly transactionTimeoutMs?: number;
}

/** The `admin.override.*` keys the runtime honours, parsed. */
export interface AdminOverrides {
  readonly clientId?: string;
  readonly requestTimeoutMs?: number;
  readonly connectionSetupTimeoutMs?: number;
  readonly retries?: number;
  readonly retryBackoffMs?: number;
  readonly retryBackoffMaxMs?: number;
  readonly securityProtocol?: SecurityProtocolName;
  readonly sasl?: { readonly mechanism: SaslMechanismName } & JaasLogin;
  readonly tls?: {
    readonly ca?: string;
    readonly cert?: string;
    readonly key?: string;
    readonly keyPassword?: string;
    readonly verifyHostname?: boolean;
  };
}

interface OverrideRule {
  /** The Java client's type for the key. */
  readonly type: ConfigType;
  /** The Java client's validator for the key. */
  readonly validator?: Validator;
  /** Why serverless-connect cannot honour a valid value; undefined when it can. */
  readonly refuse?: (value: unknown, all: ReadonlyMap<string, unknown>) => string | undefined;
}

const SAME_CLUSTER =
  'serverless-connect clients always use the worker’s Kafka cluster (the exactly-once protocol keeps records, offsets and markers on one cluster); overriding it is not supported';
const FILE_STORES =
  'key and trust stores in files are not supported; use ssl.keystore.type=PEM / ssl.truststore.type=PEM with the PEM text in ssl.keystore.certificate.chain, ssl.keystore.key and ssl.truststore.certificates';

const producerRules: Readonly<Record<string, OverrideRule>> = {
  'compression.type': { type: 'STRING', validator: ValidString.in(...COMPRESSION_TYPES) },
  'transaction.timeout.ms': { type: 'INT', validator: Range.atLeast(1) },
  acks: {
    type: 'STRING',
    validator: ValidString.in('all', '-1', '0', '1'),
    refuse: (v) =>
      v === 'all' || v === '-1'
        ? undefined
        : 'Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.',
  },
  'enable.idempotence': {
    type: 'BOOLEAN',
    refuse: (v) =>
      v === true
        ? undefined
        : "The value 'false' for the 'enable.idempotence' property cannot be used: serverless-connect producers are always idempotent (Kafka Connect ignores it for connectors when exactly-once source support is enabled)",
  },
  'transactional.id': {
    type: 'STRING',
    refuse: () =>
      "The 'transactional.id' property cannot be overridden: each task's transactional id is derived from the connector name and task number, which fences zombie tasks (Kafka Connect ignores it for connectors when exactly-once source support is enabled)",
  },
  'bootstrap.servers': { type: 'LIST', refuse: () => SAME_CLUSTER },
};

function pemOnly(v: unknown): string | undefined {
  return typeof v === 'string' && v.toUpperCase() !== 'PEM' ? FILE_STORES : undefined;
}

const adminRules: Readonly<Record<string, OverrideRule>> = {
  'client.id': { type: 'STRING' },
  'request.timeout.ms': { type: 'INT', validator: Range.atLeast(0) },
  'socket.connection.setup.timeout.ms': { type: 'LONG', validator: Range.atLeast(0) },
  retries: { type: 'INT', validator: Range.between(0, 2_147_483_647) },
  'retry.backoff.ms': { type: 'LONG', validator: Range.atLeast(0) },
  'retry.backoff.max.ms': { type: 'LONG', validator: Range.atLeast(0) },
  'security.protocol': {
    type: 'STRING',
    validator: CaseInsensitiveValidString.in('PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'),
  },
  'sasl.mechanism': {
    type: 'STRING',
    refuse: (v) =>
      v === 'PLAIN' || v === 'SCRAM-SHA-256' || v === 'SCRAM-SHA-512'
        ? undefined
        : 'serverless-connect admin clients support the SASL mechanisms PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512',
  },
  'sasl.jaas.config': { type: 'PASSWORD', refuse: (v, all) => jaasProblem(v, all) },
  'ssl.truststore.type': { type: 'STRING', refuse: pemOnly },
  'ssl.truststore.certificates': { type: 'PASSWORD' },
  'ssl.keystore.type': { type: 'STRING', refuse: pemOnly },
  'ssl.keystore.certificate.chain': {
    type: 'PASSWORD',
    refuse: (_v, all) =>
      all.has('ssl.keystore.key')
        ? undefined
        : 'ssl.keystore.key is required with ssl.keystore.certificate.chain',
  },
  'ssl.keystore.key': { type: 'PASSWORD' },
  'ssl.key.password': { type: 'PASSWORD' },
  'ssl.endpoint.identification.algorithm': { type: 'STRING' },
  'ssl.truststore.location': { type: 'STRING', refuse: () => FILE_STORES },
  'ssl.keystore.location': { type: 'STRING', refuse: () => FILE_STORES },
  'bootstrap.servers': { type: 'LIST', refuse: () => SAME_CLUSTER },
};

function secret(value: unknown): string {
  return typeof value === 'object' && value !== null && 'value' in value
    ? String((value as { value(): string }).value())
    : String(value);
}

/** The SASL mechanism the JAAS login module and `sasl.mechanism` agree on, or a problem. */
function saslMechanismOf(
  login: JaasLogin,
  mechanism: unknown,
): { mechanism: SaslMechanismName } | { problem: string } {
  if (login.module === 'org.apache.kafka.common.security.plain.PlainLoginModule') {
    if (mechanism === undefined || mechanism === 'PLAIN') return { mechanism: 'PLAIN' };
    return { problem: `PlainLoginModule needs sasl.mechanism=PLAIN, not ${String(mechanism)}` };
  }
  if (login.module === 'org.apache.kafka.common.security.scram.ScramLoginModule') {
    if (mechanism === 'SCRAM-SHA-256' || mechanism === 'SCRAM-SHA-512') return { mechanism };
    return { problem: 'ScramLoginModule needs sasl.mechanism=SCRAM-SHA-256 or SCRAM-SHA-512' };
  }
  return {
    problem: `login module ${login.module} is not supported (use PlainLoginModule or ScramLoginModule)`,
  };
}

function jaasProblem(value: unknown, all: ReadonlyMap<string, unknown>): string | undefined {
  try {
    const result = saslMechanismOf(parseJaasConfig(secret(value)), all.get('sasl.mechanism'));
    return 'problem' in result ? result.problem : undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Checks `overrides` (unprefixed keys) against `rules`; values of the keys it knows, parsed.
 * Errors carry the prefixed key and the client's own message (unprefixed, as the Java client
 * words it). Values holding `${provider:…}` placeholders are skipped (checked after resolution).
 */
function check(
  prefix: string,
  rules: Readonly<Record<string, OverrideRule>>,
  overrides: Readonly<Record<string, string | null | undefined>>,
): { values: Map<string, unknown>; errors: ConfigError[] } {
  const values = new Map<string, unknown>();
  const errors: ConfigError[] = [];
  const checked: [string, OverrideRule][] = [];
  for (const [key, raw] of Object.entries(overrides)) {
    const rule = rules[key];
    if (rule === undefined || raw === null || raw === undefined || hasPlaceholder(raw)) continue;
    try {
      const value = parseType(key, raw, rule.type);
      rule.validator?.ensureValid(key, value);
      values.set(key, value);
      checked.push([key, rule]);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      errors.push(new ConfigError(message, `${prefix}${key}`));
    }
  }
  for (const [key, rule] of checked) {
    const reason = rule.refuse?.(values.get(key), values);
    if (reason === undefined) continue;
    const shown = rule.type === 'PASSWORD' ? '[hidden]' : overrides[key];
    errors.push(
      new ConfigError(
        `Invalid value ${shown} for configuration ${prefix}${key}: ${reason}`,
        `${prefix}${key}`,
      ),
    );
  }
  return { values, errors };
}

function unprefixed(props: ConfigProps, prefix: string): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(props)) {
    if (key.startsWith(prefix) && value !== undefined) out[key.slice(prefix.length)] = value;
  }
  return out;
}

function usesDlq(props: ConfigProps): boolean {
  return (props[N.DLQ_TOPIC_NAME] ?? '').trim() !== '';
}

/**
 * The override problems of a connector config, one {@link ConfigValue} per failing
 * `producer.override.*` / `admin.override.*` key (named with its prefix). As in Connect,
 * producer and admin overrides are checked for sources, and for sinks only when they have a
 * dead letter queue topic (the clients that write it).
 */
export function clientOverrideErrors(props: ConfigProps, kind: ConnectorKind): ConfigValue[] {
  if (kind === 'sink' && !usesDlq(props)) return [];
  const errors = [
    ...check(P.PRODUCER_OVERRIDE, producerRules, unprefixed(props, P.PRODUCER_OVERRIDE)).errors,
    ...check(P.ADMIN_OVERRIDE, adminRules, unprefixed(props, P.ADMIN_OVERRIDE)).errors,
  ];
  return errors.map((error) => ({
    name: error.key ?? '',
    value: props[error.key ?? ''] ?? null,
    recommendedValues: [],
    errors: [error.message],
    visible: true,
  }));
}

function firstError(errors: readonly ConfigError[]): void {
  const [first] = errors;
  if (first !== undefined) throw first;
}

/**
 * The honoured `producer.override.*` settings (keys without the prefix, placeholders resolved).
 * @throws ConfigError for the first invalid or refused key.
 */
export function parseProducerOverrides(
  overrides: Readonly<Record<string, string>>,
): ProducerOverrides {
  const { values, errors } = check(P.PRODUCER_OVERRIDE, producerRules, overrides);
  firstError(errors);
  const compression = values.get('compression.type') as CompressionTypeName | undefined;
  const timeout = values.get('transaction.timeout.ms') as number | undefined;
  return {
    ...(compression === undefined ? {} : { compressionType: compression }),
    ...(timeout === undefined ? {} : { transactionTimeoutMs: timeout }),
  };
}

function numberOf(values: ReadonlyMap<string, unknown>, key: string): number | undefined {
  const value = values.get(key);
  return typeof value === 'number' || typeof value === 'bigint' ? Number(value) : undefined;
}

function tlsOf(values: ReadonlyMap<string, unknown>): AdminOverrides['tls'] {
  const text = (key: string) => (values.has(key) ? secret(values.get(key)) : undefined);
  const algorithm = values.get('ssl.endpoint.identification.algorithm');
  const tls = {
    ca: text('ssl.truststore.certificates'),
    cert: text('ssl.keystore.certificate.chain'),
    key: text('ssl.keystore.key'),
    keyPassword: text('ssl.key.password'),
    verifyHostname: algorithm === undefined ? undefined : algorithm !== '',
  };
  const present = Object.entries(tls).filter(([, v]) => v !== undefined);
  return present.length === 0 ? undefined : Object.fromEntries(present);
}

/**
 * The honoured `admin.override.*` settings (keys without the prefix, placeholders resolved).
 * @throws ConfigError for the first invalid or refused key.
 */
export function parseAdminOverrides(overrides: Readonly<Record<string, string>>): AdminOverrides {
  const { values, errors } = check(P.ADMIN_OVERRIDE, adminRules, overrides);
  firstError(errors);
  const protocol = values.get('security.protocol');
  const jaas = values.get('sasl.jaas.config');
  let sasl: AdminOverrides['sasl'];
  if (jaas !== undefined) {
    const login = parseJaasConfig(secret(jaas));
    const result = saslMechanismOf(login, values.get('sasl.mechanism'));
    if ('mechanism' in result) sasl = { ...login, mechanism: result.mechanism };
  }
  const entries: [keyof AdminOverrides, unknown][] = [
    ['clientId', values.get('client.id')],
    ['requestTimeoutMs', numberOf(values, 'request.timeout.ms')],
    ['connectionSetupTimeoutMs', numberOf(values, 'socket.connection.setup.timeout.ms')],
    ['retries', numberOf(values, 'retries')],
    ['retryBackoffMs', numberOf(values, 'retry.backoff.ms')],
    ['retryBackoffMaxMs', numberOf(values, 'retry.backoff.max.ms')],
    ['securityProtocol', typeof protocol === 'string' ? protocol.toUpperCase() : undefined],
    ['sasl', sasl],
    ['tls', tlsOf(values)],
  ];
  return Object.fromEntries(entries.filter(([, v]) => v !== undefined)) as AdminOverrides;
}
