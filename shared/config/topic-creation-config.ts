/**
 * Topic creation for source connectors (KIP-158), as Connect's `TopicCreationConfig` and the
 * topic creation parts of `SourceConnectorConfig`: the implicit `default` group (replication
 * factor and partitions required once any `topic.creation.*` key is set) and the groups listed
 * in `topic.creation.groups`, each with include/exclude regexes, replication factor,
 * partitions and pass-through topic configs.
 *
 * Unlike Connect, which reports these problems only when the connector starts, validation
 * includes these keys whenever a `topic.creation.*` key is present.
 */
import { ConfigDef, type ConfigProps, invalidValue, parseType } from '../connect/config-def.js';
import {
  LambdaValidator,
  NonNullValidator,
  RegexListValidator,
} from '../connect/config-validators.js';
import {
  ConnectorConfigGroups,
  ConnectorConfigNames,
  ConnectorConfigPrefixes,
} from './connector-config-defs.js';
import { aliasesOf } from './connector-config-enrich.js';

const GROUP_KEYS = ['include', 'exclude', 'replication.factor', 'partitions'];

const INCLUDE_DOC =
  'A list of regular expression literals used to match the topic names used by the source connector. ' +
  'This list is used to include topics that should be created using the topic settings defined by this group.';
const EXCLUDE_DOC =
  'A list of regular expression literals used to match the topic names used by the source connector. ' +
  'This list is used to exclude topics from being created with the topic settings defined by this group. ' +
  'Note that exclusion rules have precedent and override any inclusion rules for the topics.';
const REPLICATION_FACTOR_DOC =
  'The replication factor for new topics created for this connector using this group. ' +
  "This value may be -1 to use the broker'sdefault replication factor, or may be a positive number not larger than the number of " +
  'brokers in the Kafka cluster. A value larger than the number of brokers in the Kafka cluster ' +
  'will result in an error when the new topic is created. For the default group this configuration ' +
  'is required. For any other group defined in topic.creation.groups this config is ' +
  "optional and if it's missing it gets the value of the default group";
const PARTITIONS_DOC =
  'The number of partitions new topics created for this connector. ' +
  "This value may be -1 to use the broker's default number of partitions, " +
  'or a positive number representing the desired number of partitions. ' +
  'For the default group this configuration is required. For any ' +
  "other group defined in topic.creation.groups this config is optional and if it's " +
  'missing it gets the value of the default group';

const replicationFactorValidator = LambdaValidator.with(
  (name, value) => {
    if (typeof value === 'number' && value !== -1 && value < 1) {
      throw invalidValue(
        name,
        value,
        "Replication factor must be positive and not larger than the number of brokers in the Kafka cluster, or -1 to use the broker's default",
      );
    }
  },
  () =>
    "Positive number not larger than the number of brokers in the Kafka cluster, or -1 to use the broker's default",
);

const partitionsValidator = LambdaValidator.with(
  (name, value) => {
    if (typeof value === 'number' && value !== -1 && value < 1) {
      throw invalidValue(
        name,
        value,
        "Number of partitions must be positive, or -1 to use the broker's default",
      );
    }
  },
  () => "Positive number, or -1 to use the broker's default",
);

/**
 * Keys of one topic creation group (Connect's `TopicCreationConfig.configDef`), to be embedded
 * under `topic.creation.<group>.` (the embedding names the group). Replication factor and
 * partitions default to the default group's values (`null` when those are missing or invalid).
 */
export function topicCreationGroupConfigDef(
  group: string,
  defaultReplicationFactor: number | null,
  defaultPartitions: number | null,
): ConfigDef {
  let order = 0;
  return new ConfigDef()
    .define({
      name: 'include',
      type: 'LIST',
      defaultValue: [],
      validator: new RegexListValidator(),
      importance: 'LOW',
      documentation: INCLUDE_DOC,
      orderInGroup: ++order,
      width: 'LONG',
      displayName: `Inclusion Topic Pattern for ${group}`,
    })
    .define({
      name: 'exclude',
      type: 'LIST',
      defaultValue: [],
      validator: new RegexListValidator(),
      importance: 'LOW',
      documentation: EXCLUDE_DOC,
      orderInGroup: ++order,
      width: 'LONG',
      displayName: `Exclusion Topic Pattern for ${group}`,
    })
    .define({
      name: 'replication.factor',
      type: 'SHORT',
      defaultValue: defaultReplicationFactor,
      validator: replicationFactorValidator,
      importance: 'LOW',
      documentation: REPLICATION_FACTOR_DOC,
      orderInGroup: ++order,
      width: 'LONG',
      displayName: `Replication Factor for Topics in ${group}`,
    })
    .define({
      name: 'partitions',
      type: 'INT',
      defaultValue: defaultPartitions,
      validator: partitionsValidator,
      importance: 'LOW',
      documentation: PARTITIONS_DOC,
      orderInGroup: ++order,
      width: 'LONG',
      displayName: `Partition Count for Topics in ${group}`,
    });
}

/** Keys of the implicit `default` topic creation group; replication factor and partitions are required. */
export function topicCreationDefaultGroupConfigDef(): ConfigDef {
  const group = 'default';
  let order = 0;
  return new ConfigDef()
    .define({
      name: 'include',
      type: 'LIST',
      defaultValue: '.*',
      validator: new NonNullValidator(),
      importance: 'LOW',
      documentation: INCLUDE_DOC,
      orderInGroup: ++order,
      width: 'LONG',
      displayName: `Inclusion Topic Pattern for ${group}`,
    })
    .define({
      name: 'exclude',
      type: 'LIST',
      defaultValue: [],
      validator: new NonNullValidator(),
      importance: 'LOW',
      documentation: EXCLUDE_DOC,
      orderInGroup: ++order,
      width: 'LONG',
      displayName: `Exclusion Topic Pattern for ${group}`,
    })
    .define({
      name: 'replication.factor',
      type: 'SHORT',
      validator: replicationFactorValidator,
      importance: 'LOW',
      documentation: REPLICATION_FACTOR_DOC,
      orderInGroup: ++order,
      width: 'LONG',
      displayName: `Replication Factor for Topics in ${group}`,
    })
    .define({
      name: 'partitions',
      type: 'INT',
      validator: partitionsValidator,
      importance: 'LOW',
      documentation: PARTITIONS_DOC,
      orderInGroup: ++order,
      width: 'LONG',
      displayName: `Partition Count for Topics in ${group}`,
    });
}

/** Whether a source config uses topic creation: any key starts with `topic.creation.`. */
export function usesTopicCreation(props: ConfigProps): boolean {
  return Object.keys(props).some((key) => key.startsWith(ConnectorConfigPrefixes.TOPIC_CREATION));
}

/** The topic creation groups listed in `topic.creation.groups`, without the implicit `default`. */
export function topicCreationGroups(props: ConfigProps): string[] {
  return aliasesOf(props, ConnectorConfigNames.TOPIC_CREATION_GROUPS).filter(
    (g) => g !== 'default',
  );
}

function lenient(props: ConfigProps, name: string, type: 'SHORT' | 'INT'): number | null {
  try {
    const value = parseType(name, props[name], type);
    return typeof value === 'number' ? value : null;
  } catch {
    return null;
  }
}

/**
 * A copy of a source `base` with the topic creation keys (Connect's
 * `SourceConnectorConfig.embedDefaultGroup` + `enrich`): `topic.creation.default.*` (replication
 * factor and partitions required) and, per listed group, `topic.creation.<group>.*` whose
 * replication factor and partitions default to the default group's.
 */
export function enrichTopicCreation(base: ConfigDef, props: ConfigProps): ConfigDef {
  const defaultPrefix = ConnectorConfigPrefixes.TOPIC_CREATION_DEFAULT;
  const def = new ConfigDef(base).embed(
    defaultPrefix,
    `${ConnectorConfigGroups.TOPIC_CREATION}: default`,
    0,
    topicCreationDefaultGroupConfigDef(),
    'skip',
  );
  const replicationFactor = lenient(props, `${defaultPrefix}replication.factor`, 'SHORT');
  const partitions = lenient(props, `${defaultPrefix}partitions`, 'INT');
  for (const group of topicCreationGroups(props)) {
    def.embed(
      `${ConnectorConfigPrefixes.TOPIC_CREATION}${group}.`,
      `${ConnectorConfigGroups.TOPIC_CREATION}: ${group}`,
      0,
      topicCreationGroupConfigDef(group, replicationFactor, partitions),
      'skip',
    );
  }
  return def;
}

/** One topic creation group; `default` (include `.*`) comes last and catches the rest. */
export interface TopicCreationGroupConfig {
  readonly name: string;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  /** -1 = the broker's default. */
  readonly replicationFactor: number;
  /** -1 = the broker's default. */
  readonly partitions: number;
  /** Other `topic.creation.<group>.*` keys, passed as topic configs (e.g. `cleanup.policy`). */
  readonly topicConfigs: Readonly<Record<string, string>>;
}

function stringsWithPrefix(props: ConfigProps, prefix: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(props)
      .filter((e): e is [string, string] => e[0].startsWith(prefix) && typeof e[1] === 'string')
      .map(([k, v]) => [k.slice(prefix.length), v]),
  );
}

/**
 * The topic creation groups of a source config, listed groups first and `default` last, or
 * undefined when no `topic.creation.*` key is set. Throws {@link ConfigError} when invalid.
 */
export function parseTopicCreation(props: ConfigProps): TopicCreationGroupConfig[] | undefined {
  if (!usesTopicCreation(props)) return undefined;
  // As in Connect, include/exclude of the default group are ignored: it catches every topic.
  const defaultPrefix = ConnectorConfigPrefixes.TOPIC_CREATION_DEFAULT;
  const relevant = Object.fromEntries(
    Object.entries(props).filter(
      ([k]) => k !== `${defaultPrefix}include` && k !== `${defaultPrefix}exclude`,
    ),
  );
  const parsed = enrichTopicCreation(new ConfigDef(), relevant).parse(relevant);
  const group = (name: string): TopicCreationGroupConfig => {
    const prefix = `${ConnectorConfigPrefixes.TOPIC_CREATION}${name}.`;
    const isDefault = name === 'default';
    return {
      name,
      include: isDefault ? ['.*'] : (parsed[`${prefix}include`] as string[]),
      exclude: isDefault ? [] : (parsed[`${prefix}exclude`] as string[]),
      replicationFactor: parsed[`${prefix}replication.factor`] as number,
      partitions: parsed[`${prefix}partitions`] as number,
      topicConfigs: Object.fromEntries(
        Object.entries(stringsWithPrefix(props, prefix)).filter(([k]) => !GROUP_KEYS.includes(k)),
      ),
    };
  };
  return [...topicCreationGroups(props).map(group), group('default')];
}
