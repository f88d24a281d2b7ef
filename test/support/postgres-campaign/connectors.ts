/**
 * The PostgreSQL campaign's connectors, as a user would configure them: postgres-cdc streaming
 * `items`, postgres-source copying `orders` in `incrementing` mode (both exactly once), and
 * postgres-sink writing the orders topic into the other database.
 */
import type { CampaignDatabase } from './databases.js';

/** The campaign's names, all derived from one prefix (lower case, digits and `_`). */
export interface CampaignNames {
  readonly prefix: string;
  readonly slot: string;
  readonly publication: string;
  /** postgres-cdc's topic of `items` (`<topic.prefix>.<schema>.<table>`). */
  readonly itemsTopic: string;
  /** postgres-source's topic of `orders` (`<topic.prefix><table>`). */
  readonly ordersTopic: string;
  /** The sink's table in the destination database. */
  readonly copyTable: string;
}

export function campaignNames(prefix: string): CampaignNames {
  return {
    prefix,
    slot: `${prefix}_slot`,
    publication: `${prefix}_pub`,
    itemsTopic: `${prefix}.public.items`,
    ordersTopic: `${prefix}-orders`,
    copyTable: 'orders_copy',
  };
}

/** A connector config, as stored. */
export type NamedConfig = Readonly<Record<string, string>> & { readonly name: string };

/** What the runtime needs beside a connector's own keys (per-connector offsets topic, JSON). */
function runtimeKeys(name: string): Record<string, string> {
  return {
    'exactly.once.support': 'required',
    'offsets.storage.topic': `${name}-offsets`,
    'key.converter': 'org.apache.kafka.connect.json.JsonConverter',
    'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
  };
}

/**
 * postgres-cdc on `items`, in Debezium's keys. `max.batch.size` is small so that a snapshot and
 * a bulk transaction both span several polls (Kafka transactions), and crashes land inside them.
 */
export function cdcConfig(names: CampaignNames, source: CampaignDatabase): NamedConfig {
  const url = new URL(source.url);
  const name = `${names.prefix}-cdc`;
  return {
    name,
    'connector.class': 'io.debezium.connector.postgresql.PostgresConnector',
    'database.hostname': url.hostname,
    'database.port': url.port,
    'database.dbname': source.name,
    'database.user': decodeURIComponent(url.username),
    'database.password': decodeURIComponent(url.password),
    'topic.prefix': names.prefix,
    'slot.name': names.slot,
    'publication.name': names.publication,
    'publication.autocreate.mode': 'filtered',
    'table.include.list': 'public.items',
    'max.batch.size': '25',
    'poll.interval.ms': '100',
    ...runtimeKeys(name),
  };
}

/** postgres-source on `orders`, `incrementing` mode, in Confluent's JDBC source keys. */
export function sourceConfig(names: CampaignNames, source: CampaignDatabase): NamedConfig {
  const url = new URL(source.url);
  const name = `${names.prefix}-source`;
  return {
    name,
    'connector.class': 'io.confluent.connect.jdbc.JdbcSourceConnector',
    'connection.url': `jdbc:postgresql://${url.host}/${source.name}`,
    'connection.user': decodeURIComponent(url.username),
    'connection.password': decodeURIComponent(url.password),
    mode: 'incrementing',
    'incrementing.column.name': 'id',
    'table.whitelist': 'public.orders',
    'topic.prefix': `${names.prefix}-`,
    'batch.max.rows': '20',
    'poll.interval.ms': '100',
    'table.poll.interval.ms': '0',
    ...runtimeKeys(name),
  };
}

/**
 * postgres-sink's keys (beside `name`, `connector.class`, `topics`): the orders records into a
 * table it creates, `insert.mode=insert` without a key, so a record written twice is two rows.
 */
export function sinkConfig(names: CampaignNames, sink: CampaignDatabase): Record<string, string> {
  const url = new URL(sink.url);
  return {
    'connection.url': `jdbc:postgresql://${url.host}/${sink.name}`,
    'connection.user': decodeURIComponent(url.username),
    'connection.password': decodeURIComponent(url.password),
    'table.name.format': names.copyTable,
    'insert.mode': 'insert',
    'pk.mode': 'none',
    'auto.create': 'true',
    'key.converter': 'org.apache.kafka.connect.json.JsonConverter',
    'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
  };
}
