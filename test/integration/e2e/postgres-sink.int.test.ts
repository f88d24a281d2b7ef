/**
 * The PostgreSQL sink through the whole local runtime (REST API, enumerator, the event source
 * mapping stand-in feeding the sink-task handler, the real broker) into the real PostgreSQL
 * server, seen as a user sees it.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTopics, testKafka, uniqueName } from '../../support/services.js';
import { connectorPath, type E2eRuntime, eventually, sleep, startE2eRuntime } from './support.js';

const PASSWORD_VARIABLE = 'E2E_POSTGRES_SINK_PASSWORD';

/** A JsonConverter envelope (schemas.enable=true) of an order. */
function orderJson(id: number, qty: number, price: string): string {
  return JSON.stringify({
    schema: {
      type: 'struct',
      fields: [
        { field: 'id', type: 'int64' },
        { field: 'qty', type: 'int32' },
        {
          field: 'price',
          type: 'bytes',
          name: 'org.apache.kafka.connect.data.Decimal',
          parameters: { scale: '2' },
        },
      ],
    },
    payload: {
      id,
      qty,
      price: Buffer.from(
        BigInt(price.replace('.', '')).toString(16).padStart(4, '0'),
        'hex',
      ).toString('base64'),
    },
  });
}

describe('postgres-sink under the local runtime (real broker, real PostgreSQL)', {
  timeout: 120_000,
}, () => {
  let e2e: E2eRuntime;
  let db: pg.Client;

  beforeAll(async () => {
    e2e = await startE2eRuntime();
    db = new pg.Client({ connectionString: inject('postgresUrl') });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await e2e?.close();
  });

  it('upserts and deletes a topic into a table it creates, with offsets from its own table', async () => {
    // Prepare: 2 partitions; k0..k5 each written twice, k4 and k5 then deleted
    const topic = uniqueName('pg_e2e').replaceAll('-', '_');
    const name = uniqueName('pg-sink');
    const kafka = testKafka();
    const admin = kafka.admin();
    await admin.connect();
    await createTopics(admin, [{ topic, numPartitions: 2 }]);
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    const messages = [
      ...Array.from({ length: 6 }, (_, i) => ({ key: `k${i}`, value: orderJson(i, 1, '1.00') })),
      ...Array.from({ length: 6 }, (_, i) => ({ key: `k${i}`, value: orderJson(i, 2, '12.34') })),
      { key: 'k4', value: null },
      { key: 'k5', value: null },
    ];
    for (const m of messages) {
      await producer.send({ topic, messages: [{ ...m, partition: Number(m.key.slice(1)) % 2 }] });
    }
    await producer.disconnect();
    const url = new URL(inject('postgresUrl'));
    process.env[PASSWORD_VARIABLE] = decodeURIComponent(url.password);
    const config = {
      'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector',
      topics: topic,
      'connection.url': `jdbc:postgresql://${url.host}${url.pathname}`,
      'connection.user': decodeURIComponent(url.username),
      'connection.password': `\${env:${PASSWORD_VARIABLE}}`,
      'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'insert.mode': 'upsert',
      'pk.mode': 'record_key',
      'pk.fields': 'code',
      'delete.enabled': 'true',
      'auto.create': 'true',
      'tasks.max': '2',
    };
    const { http } = e2e;

    // Act
    const created = await http('PUT', connectorPath(name, '/config'), config);
    const rows = await eventually(
      async () =>
        (
          await db
            .query(`SELECT code, id::int, qty, price::text FROM "${topic}" ORDER BY code`)
            .catch(() => ({ rows: [] }))
        ).rows,
      (r) => r.length === 4 && r.every((row) => row.qty === 2),
      60_000,
      'the table',
    );
    const stored = await eventually(
      async () =>
        (
          await db.query(
            'SELECT topic, kafka_partition, next_offset::int FROM __connect_offsets WHERE connector = $1 ORDER BY kafka_partition',
            [name],
          )
        ).rows,
      (r) => r.length === 2 && r.every((row) => row.next_offset === 7),
      30_000,
      'the offsets table',
    );
    const reported = await eventually(
      async () => (await http('GET', connectorPath(name, '/offsets'))).body.offsets,
      (o) => Array.isArray(o) && o.length === 2 && o.every((e) => e.offset.kafka_offset === 7),
      30_000,
      'the reported offsets',
    );
    const shown = await http('GET', connectorPath(name, '/config'));

    // Assess
    expect(created.status).toBe(201);
    expect(rows).toEqual(
      [0, 1, 2, 3].map((i) => ({ code: `k${i}`, id: i, qty: 2, price: '12.34' })),
    );
    expect(stored).toEqual([
      { topic, kafka_partition: 0, next_offset: 7 },
      { topic, kafka_partition: 1, next_offset: 7 },
    ]);
    expect(
      reported
        .map((o: { partition: { kafka_partition: number } }) => o.partition.kafka_partition)
        .sort(),
    ).toEqual([0, 1]);
    expect(shown.text).not.toContain(url.password);

    // Stop, then reset: the offsets table follows the runtime's offsets.
    expect((await http('PUT', connectorPath(name, '/stop'))).status).toBe(204);
    await eventually(
      async () => (await http('GET', connectorPath(name, '/status'))).body.connector.state,
      (s) => s === 'STOPPED',
      20_000,
      'STOPPED',
    );
    await sleep(2_500);
    const reset = await http('DELETE', connectorPath(name, '/offsets'));
    expect(reset.status).toBe(200);
    const left = await db.query(
      'SELECT count(*)::int AS n FROM __connect_offsets WHERE connector = $1',
      [name],
    );
    expect(left.rows).toEqual([{ n: 0 }]);
    expect((await http('DELETE', connectorPath(name))).status).toBe(204);
  });

  it('answers bad configs with ConfigDef messages on their keys and never shows the password', async () => {
    const validated = await e2e.http('PUT', '/connector-plugins/postgres-sink/config/validate', {
      'connector.class': 'postgres-sink',
      name: uniqueName('pg-sink'),
      topics: 'orders',
      'connection.url': 'jdbc:postgresql://localhost/shop',
      'connection.password': 'hunter2-secret',
      'insert.mode': 'update',
      'batch.size': 'many',
    });
    const errors = Object.fromEntries(
      validated.body.configs
        .filter((c: { value: { errors: string[] } }) => c.value.errors.length > 0)
        .map((c: { value: { name: string; errors: string[] } }) => [c.value.name, c.value.errors]),
    );
    expect(Object.keys(errors)).toEqual(['batch.size']);
    expect(errors['batch.size']).toContain(
      'Invalid value many for configuration batch.size: Not a number of type INT',
    );
    expect(validated.text).not.toContain('hunter2-secret');
    const upsertWithoutKey = await e2e.http(
      'PUT',
      '/connector-plugins/postgres-sink/config/validate',
      {
        'connector.class': 'postgres-sink',
        name: uniqueName('pg-sink'),
        topics: 'orders',
        'connection.url': 'jdbc:postgresql://localhost/shop',
        'insert.mode': 'update',
      },
    );
    expect(upsertWithoutKey.body.error_count).toBe(1);
    expect(upsertWithoutKey.text).toContain(
      'Invalid value update for configuration insert.mode: update needs primary key columns',
    );
  });
});
