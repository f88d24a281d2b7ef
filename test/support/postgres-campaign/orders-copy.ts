/**
 * The sink campaign's PostgreSQL sink (sink-campaign/postgres-target.ts: its crash points just
 * before and just after each COMMIT), pointed at the orders topic postgres-source wrote: it
 * copies the records into a table of the destination database, which is then read back and held
 * against the topic.
 */
import pg from 'pg';
import { toEsmSourceRecord } from '../../../local/esm/kafkajs-records.js';
import type { CommittedMessage } from '../eos-checker.js';
import type { InputRecord } from '../sink-campaign/input.js';
import { POSTGRES_CLIENT_STEPS, postgresSinkContainer } from '../sink-campaign/postgres-target.js';
import type { SinkTarget } from '../sink-campaign/target.js';
import { type CampaignNames, sinkConfig } from './connectors.js';
import type { CampaignDatabase } from './databases.js';
import { orderIdOf, orderRecordKey, orderRowKey, verifyCopy } from './verify.js';

const UNDEFINED_TABLE = '42P01';

/** The orders topic's records as the sink's input: per partition, in offset order. */
export function ordersInput(
  topic: string,
  partitions: number,
  read: readonly CommittedMessage[],
): InputRecord[][] {
  const input: InputRecord[][] = Array.from({ length: partitions }, () => []);
  for (const { partition, message } of read) {
    const record = toEsmSourceRecord(topic, partition, message);
    const list = input[partition] as InputRecord[];
    list.push({ ...record, id: String(orderIdOf(record.value)), seq: list.length + 1 });
  }
  return input;
}

/** postgres-sink from the orders topic into `names.copyTable` of `sink`. */
export async function createOrdersCopyTarget(
  names: CampaignNames,
  sink: CampaignDatabase,
): Promise<SinkTarget> {
  const db = new pg.Client({ connectionString: sink.url });
  await db.connect();
  return {
    name: 'postgres',
    clientSteps: POSTGRES_CLIENT_STEPS,
    config: sinkConfig(names, sink),
    container: postgresSinkContainer,
    async readOutput(input) {
      const rows = await db
        .query(`SELECT id, customer, qty, note FROM "${names.copyTable}"`)
        .then((result) => result.rows)
        .catch((error: { code?: string }) => {
          // Nothing was written: the sink creates the table with its first rows.
          if (error.code === UNDEFINED_TABLE) return [];
          throw error;
        });
      const verdict = verifyCopy(
        input.flat().map((record) => orderRecordKey(record.value)),
        rows.map(orderRowKey),
      );
      return {
        duplicates: verdict.duplicates,
        losses: verdict.losses,
        anomalies: verdict.unexpected,
        records: rows.length,
        examples: verdict.examples,
      };
    },
    close: () => db.end(),
  };
}
