/**
 * The Kafka sink connector's configuration: its own keys (a {@link ConfigDef} serving both the
 * runtime and `…/config/validate`), their parsed form, the output topic of a record, the loop
 * check, and the names it derives (consumer group, transactional ids).
 */
import {
  CaseInsensitiveValidString,
  ConfigDef,
  ConfigError,
  compileFullMatch,
  NonEmptyString,
} from 'serverless-connect/connect';

/** The version of the Kafka sink connector and task. */
export const KAFKA_SINK_VERSION = '0.1.0';

export const TOPIC_RENAME_FORMAT_CONFIG = 'topic.rename.format';
export const OUTPUT_PARTITION_CONFIG = 'output.partition';

/** The placeholder of `topic.rename.format` replaced by the record's topic. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Connect's placeholder syntax
export const TOPIC_PLACEHOLDER = '${topic}';

/** How the output partition of a record is chosen. */
export type OutputPartitionMode = 'source' | 'key';
export const OUTPUT_PARTITION_MODES: readonly OutputPartitionMode[] = Object.freeze([
  'source',
  'key',
]);

const GROUP = 'Kafka sink';

/** The connector's own keys, in documentation order. */
export const KAFKA_SINK_CONFIG_DEF: ConfigDef = new ConfigDef()
  .define({
    name: TOPIC_RENAME_FORMAT_CONFIG,
    type: 'STRING',
    defaultValue: TOPIC_PLACEHOLDER,
    validator: new NonEmptyString(),
    importance: 'HIGH',
    group: GROUP,
    orderInGroup: 1,
    documentation:
      `The topic each record is written to; '${TOPIC_PLACEHOLDER}' is replaced by the record's ` +
      `topic after transformations (e.g. '${TOPIC_PLACEHOLDER}.replica' or ` +
      `'mirror.${TOPIC_PLACEHOLDER}'). The output is the cluster the connector reads from, so ` +
      'an output topic that the connector also consumes (listed in topics or matched by ' +
      `topics.regex) is refused: with the default '${TOPIC_PLACEHOLDER}', rename topics with a ` +
      'transformation such as RegexRouter. A missing output topic is created with as many ' +
      "partitions as its input topic and the broker's default replication factor and configs.",
  })
  .define({
    name: OUTPUT_PARTITION_CONFIG,
    type: 'STRING',
    defaultValue: 'source',
    validator: CaseInsensitiveValidString.in(...OUTPUT_PARTITION_MODES),
    importance: 'MEDIUM',
    group: GROUP,
    orderInGroup: 2,
    documentation:
      "source: each record goes to the partition of the same number as its input partition (the output topic needs at least as many partitions; per-partition order is kept). key: the producer's default partitioner (murmur2 of the key, round robin without a key), as the Java client does. " +
      'Records are written in transactions, one per input partition and batch, together with ' +
      "the offsets of the connector's consumer group connect-<connector name> (Kafka Connect's " +
      'sink group name; not configurable), so read_committed readers see every input record ' +
      'exactly once.',
  });

/** The parsed connector (and task) config. */
export interface KafkaSinkConfig {
  readonly topicRenameFormat: string;
  readonly outputPartition: OutputPartitionMode;
}

/** Parses the connector's own keys. @throws ConfigError with Kafka's messages. */
export function parseKafkaSinkConfig(props: Readonly<Record<string, string>>): KafkaSinkConfig {
  const values = KAFKA_SINK_CONFIG_DEF.parse(props);
  const mode = String(values[OUTPUT_PARTITION_CONFIG]).toLowerCase();
  return {
    topicRenameFormat: String(values[TOPIC_RENAME_FORMAT_CONFIG]),
    outputPartition: mode === 'key' ? 'key' : 'source',
  };
}

/** The output topic of a record of `topic`: the format with {@link TOPIC_PLACEHOLDER} replaced. */
export function outputTopicFor(format: string, topic: string): string {
  return format.replaceAll(TOPIC_PLACEHOLDER, topic);
}

const LEGAL_TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;

/** What the connector consumes: `topics` or `topics.regex`. */
export interface InputTopics {
  readonly topics: readonly string[];
  readonly topicsRegex: string | undefined;
}

/**
 * Why writing to `output` is refused, or undefined: not a legal Kafka topic name, or a topic the
 * connector consumes (records would be read again and written again, forever).
 */
export function outputTopicProblem(output: string, input: InputTopics): string | undefined {
  if (!LEGAL_TOPIC.test(output) || output === '.' || output === '..') {
    return `'${output}' is not a legal topic name (1 to 249 of the characters a-z, A-Z, 0-9, '.', '_', '-')`;
  }
  const regex = input.topicsRegex;
  if (input.topics.includes(output) || (regex !== undefined && matches(regex, output))) {
    return (
      `the output topic '${output}' is consumed by the connector itself (it is listed in topics ` +
      'or matched by topics.regex): its records would be written back to their own input in a ' +
      `loop. Use a format such as '${TOPIC_PLACEHOLDER}.replica', or route topics with a ` +
      'transformation'
    );
  }
  return undefined;
}

function matches(pattern: string, topic: string): boolean {
  try {
    return compileFullMatch(pattern).test(topic);
  } catch {
    return false; // an invalid regex is reported on topics.regex
  }
}

/**
 * The loop and topic-name check of `topic.rename.format` that can be made before any record is
 * seen: each listed topic renamed (only without transformations, which may route records to
 * other topics first), and a format without the placeholder (one output topic whatever the
 * input); with `topics.regex` and no transformations, the bare placeholder (every topic mapped to
 * itself). The rest is checked on every output topic at run time.
 * @throws ConfigError on `topic.rename.format`.
 */
export function checkRenameFormat(
  format: string,
  input: InputTopics,
  hasTransforms: boolean,
): void {
  let problem: string | undefined;
  if (!format.includes(TOPIC_PLACEHOLDER)) problem = outputTopicProblem(format, input);
  else if (!hasTransforms && input.topics.length > 0) {
    problem = input.topics
      .map((topic) => outputTopicProblem(outputTopicFor(format, topic), input))
      .find((p) => p !== undefined);
  } else if (!hasTransforms && format === TOPIC_PLACEHOLDER) {
    problem =
      'every topic matched by topics.regex would be written back to itself in a loop; use a ' +
      `format such as '${TOPIC_PLACEHOLDER}.replica', or route topics with a transformation`;
  }
  if (problem !== undefined) {
    throw new ConfigError(
      `Invalid value ${format} for configuration ${TOPIC_RENAME_FORMAT_CONFIG}: ${problem}`,
      TOPIC_RENAME_FORMAT_CONFIG,
    );
  }
}

/** The connector's consumer group: `connect-<connector>`, as Kafka Connect names sink groups. */
export function connectorGroupId(connector: string): string {
  return `connect-${connector}`;
}

/**
 * The transactional id of one input partition: `<prefix>-<connector>-<topic>/<partition>`.
 * Kafka accepts any non-empty string as a transactional id, so nothing needs replacing; the `/`
 * before the partition keeps these ids apart from source task ids (`<prefix>-<connector>-<task>`,
 * a dash before the final number), so a source connector named `<connector>-<topic>` can never
 * fence this sink's producers.
 */
export function partitionTransactionalId(
  prefix: string,
  connector: string,
  topic: string,
  partition: number,
): string {
  return `${prefix}-${connector}-${topic}/${partition}`;
}
