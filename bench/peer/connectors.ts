/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: Connect's ${topic} placeholder */
/**
 * The connector configs of the peer benchmark, sent through the Connect REST API to both sides.
 * Where both sides run the same connector class (the verifiable source: ours answers to Apache's
 * class name) the JSON is the same; the replication workload runs Apache's MirrorSourceConnector
 * against our kafka-sink, each configured to copy bytes as they are.
 */

/**
 * Both sides commit a transaction per this interval (`transaction.boundary=interval`; Apache's
 * task returns one record per poll, so `poll` would commit every record). Short enough that a
 * round of ~10 s holds dozens of transactions (the clock reads committed end offsets, so it
 * advances a transaction at a time), long enough that commits are a small share of the work.
 */
export const TRANSACTION_INTERVAL_MS = 250;

/**
 * Apache's `VerifiableSourceConnector`, unthrottled (`throughput` -1, as Apache's throttler
 * reads it), exactly once with `transaction.boundary=interval`. The same JSON creates our
 * verifiable-source (its `records.per.poll` stays at its default, 500: Apache's task returns one
 * record per poll, ours a batch; the records are the same).
 */
export function verifiableSourceConfig(topic: string, tasks: number): Record<string, string> {
  return {
    'connector.class': 'org.apache.kafka.connect.tools.VerifiableSourceConnector',
    topic,
    throughput: '-1',
    'tasks.max': String(tasks),
    // `requested` (the default, written down): Apache's connector does not answer the
    // exactly-once preflight check, so `required` is refused by the worker.
    'exactly.once.support': 'requested',
    'transaction.boundary': 'interval',
    'transaction.boundary.interval.ms': String(TRANSACTION_INTERVAL_MS),
    'key.converter': 'org.apache.kafka.connect.json.JsonConverter',
    'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
  };
}

const BYTES = 'org.apache.kafka.connect.converters.ByteArrayConverter';

/**
 * Apache's MirrorSourceConnector copying `topic` within the same cluster to `<alias>.<topic>`
 * (its DefaultReplicationPolicy), exactly once: keys, values and headers as bytes, one task
 * per partition.
 */
export function mirrorSourceConfig(
  topic: string,
  alias: string,
  brokers: string,
  tasks: number,
): Record<string, string> {
  return {
    'connector.class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector',
    'source.cluster.alias': alias,
    'target.cluster.alias': 'peer',
    'source.cluster.bootstrap.servers': brokers,
    'target.cluster.bootstrap.servers': brokers,
    topics: topic,
    'tasks.max': String(tasks),
    // MirrorSourceConnector supports exactly once only with a read_committed source consumer.
    'source.consumer.isolation.level': 'read_committed',
    'exactly.once.support': 'required',
    'key.converter': BYTES,
    'value.converter': BYTES,
    'header.converter': BYTES,
    // A single-node broker: the target topic with replication factor 1 (default 2).
    'replication.factor': '1',
    // Only the copy is measured: no offset-sync records (a second topic written per batch, for
    // consumer-group translation, which our sink does not do), no topic config or ACL sync.
    'emit.offset-syncs.enabled': 'false',
    'sync.topic.configs.enabled': 'false',
    'sync.topic.acls.enabled': 'false',
  };
}

/** Our exactly-once kafka-sink copying `topic` to `<topic>.<suffix>`, bytes as they are. */
export function kafkaSinkConfig(
  topic: string,
  suffix: string,
  tasks: number,
): Record<string, string> {
  return {
    'connector.class': 'kafka-sink',
    topics: topic,
    'topic.rename.format': `\${topic}.${suffix}`,
    'tasks.max': String(tasks),
    'key.converter': BYTES,
    'value.converter': BYTES,
    'header.converter': BYTES,
  };
}
