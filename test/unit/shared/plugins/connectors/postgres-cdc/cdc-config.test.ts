import { describe, expect, it } from 'vitest';
import {
  parsePostgresCdcConfig,
  postgresCdcTaskConfigs,
} from '../../../../../../shared/plugins/connectors/postgres-cdc/cdc-config.js';
import { POSTGRES_CDC_CONFIG_DEF } from '../../../../../../shared/plugins/connectors/postgres-cdc/cdc-config-def.js';
import { PostgresCdcSourceConnector } from '../../../../../../shared/plugins/connectors/postgres-cdc/postgres-cdc-source-connector.js';

const debezium = {
  'database.hostname': 'db.internal',
  'database.port': '5433',
  'database.user': 'cdc',
  'database.password': 'hunter2-secret',
  'database.dbname': 'shop',
  'topic.prefix': 'shop',
};

const connector = new PostgresCdcSourceConnector({
  clock: { now: () => 0 },
  sleep: async () => {},
});
const errorsOf = (props: Record<string, string>) =>
  Object.fromEntries(
    connector
      .validate(props)
      .filter((v) => v.errors.length > 0)
      .map((v) => [v.name, v.errors]),
  );

describe('postgres-cdc config', () => {
  it("takes a Debezium PostgreSQL config with Debezium's defaults", () => {
    const config = parsePostgresCdcConfig(debezium);

    expect(config.connection).toMatchObject({
      host: 'db.internal',
      port: 5433,
      database: 'shop',
      user: 'cdc',
      password: 'hunter2-secret',
      ssl: false,
    });
    expect(config).toMatchObject({
      slotName: 'debezium',
      publicationName: 'dbz_publication',
      autocreate: 'all_tables',
      snapshotMode: 'initial',
      tombstonesOnDelete: true,
      heartbeatIntervalMs: 0,
      heartbeatTopicPrefix: '__debezium-heartbeat',
      maxBatchSize: 2048,
      pollIntervalMs: 500,
      types: {
        decimalHandling: 'precise',
        timePrecision: 'adaptive',
        unavailablePlaceholder: '__debezium_unavailable_value',
      },
    });
    expect([...config.skippedOperations]).toEqual(['t']);
    expect(config.connection.applicationName).toBe('serverless-connect postgres-cdc');
    expect(POSTGRES_CDC_CONFIG_DEF.configKey('database.password')?.type).toBe('PASSWORD');
  });

  it('takes connection.url with connection.user and connection.password instead', () => {
    const config = parsePostgresCdcConfig({
      'connection.url': 'jdbc:postgresql://db:5432/shop?sslmode=require',
      'connection.user': 'cdc',
      'connection.password': 'pw',
      'topic.prefix': 'shop',
      'snapshot.mode': 'never',
      'skipped.operations': 'none',
    });

    expect(config.connection).toMatchObject({
      host: 'db',
      database: 'shop',
      user: 'cdc',
      password: 'pw',
      ssl: { rejectUnauthorized: false },
    });
    expect(config.snapshotMode).toBe('no_data');
    expect(config.skippedOperations.size).toBe(0);
  });

  it('reports bad configs on their keys with Kafka messages, never showing the password', () => {
    const both = errorsOf({ ...debezium, 'connection.url': 'postgres://db/shop' });
    const neither = errorsOf({ 'topic.prefix': 'shop' });
    const lists = errorsOf({
      ...debezium,
      'table.include.list': 'public.a',
      'table.exclude.list': 'public.b',
    });
    const plugin = errorsOf({ ...debezium, 'plugin.name': 'decoderbufs', 'slot.name': 'Bad-Name' });
    const ops = errorsOf({ ...debezium, 'skipped.operations': 'x' });

    expect(both['database.hostname']?.[0]).toContain(
      'give database.hostname or connection.url, not both',
    );
    expect(neither['database.hostname']?.[0]).toContain(
      'give database.hostname (with database.dbname) or connection.url',
    );
    expect(errorsOf({ 'database.hostname': 'db' })['topic.prefix']?.[0]).toContain(
      'Missing required configuration "topic.prefix"',
    );
    expect(lists['table.exclude.list']?.[0]).toContain(
      'table.include.list and table.exclude.list cannot both be set',
    );
    expect(Object.keys(plugin).sort()).toEqual(['plugin.name', 'slot.name']);
    expect(ops['skipped.operations']?.[0]).toContain(
      'Invalid value x for configuration skipped.operations',
    );
    expect(JSON.stringify([both, neither, lists, plugin])).not.toContain('hunter2-secret');
  });

  it('names one slot and publication per task when there are several tasks', () => {
    const [first, second] = postgresCdcTaskConfigs(debezium, 2).map(parsePostgresCdcConfig);

    expect([first?.slotName, first?.publicationName, first?.taskIndex]).toEqual([
      'debezium_0',
      'dbz_publication_0',
      0,
    ]);
    expect([second?.slotName, second?.publicationName, second?.taskCount]).toEqual([
      'debezium_1',
      'dbz_publication_1',
      2,
    ]);
  });
});
