import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../../../../../../shared/connect/records.js';
import type { Struct } from '../../../../../../shared/connect/struct.js';
import {
  parseCdcOffset,
  type StreamPosition,
} from '../../../../../../shared/plugins/connectors/postgres-cdc/cdc-offsets.js';
import { ChangeRecords } from '../../../../../../shared/plugins/connectors/postgres-cdc/change-records.js';
import { ChangeStream } from '../../../../../../shared/plugins/connectors/postgres-cdc/change-stream.js';
import { tableShapeOf } from '../../../../../../shared/plugins/connectors/postgres-cdc/debezium-schemas.js';
import { decodePgoutput } from '../../../../../../shared/plugins/connectors/postgres-cdc/pgoutput.js';
import type { ServerMessage } from '../../../../../../shared/plugins/connectors/postgres-cdc/replication-protocol.js';

const fixture = JSON.parse(
  readFileSync(new URL('../../../../../fixtures/pgoutput-capture.json', import.meta.url), 'utf8'),
) as { captured: Record<string, string[]> };

/** The REPLICA IDENTITY FULL transaction: Begin, Relation, Insert, Update, Delete, Commit. */
const payloads = (fixture.captured.replicaIdentityFull ?? []).map((hex) => Buffer.from(hex, 'hex'));
const messages: ServerMessage[] = payloads.map((payload, i) => ({
  kind: 'xlogdata',
  start: 1000n + BigInt(i),
  walEnd: 2000n,
  payload,
}));
const begin = decodePgoutput(payloads[0] ?? Buffer.alloc(0));
const commit = decodePgoutput(payloads[payloads.length - 1] ?? Buffer.alloc(0));
const commitLsn = begin.tag === 'begin' ? begin.finalLsn : 0n;
const endLsn = commit.tag === 'commit' ? commit.endLsn : 0n;
const START = 500n;

function stream(committed: StreamPosition | null = null): ChangeStream {
  return new ChangeStream({
    records: new ChangeRecords(
      {
        version: 'test',
        topicPrefix: 'shop',
        database: 'db',
        partition: { server: 'shop' },
        tombstonesOnDelete: true,
        skippedOperations: new Set(),
      },
      () => 1n,
    ),
    resolve: async (relation) =>
      tableShapeOf(
        'shop',
        {
          schema: relation.namespace,
          table: relation.name,
          columns: relation.columns.map((c) => ({ ...c, notNull: false })),
          primaryKey: ['k'],
        },
        { decimalHandling: 'precise', timePrecision: 'adaptive', unavailablePlaceholder: '?' },
      ),
    committed,
    confirmable: START,
  });
}

const ops = (records: SourceRecord[]) =>
  records.map((r) => (r.value === null ? 'tombstone' : (r.value as Struct).get('op')));
const positions = (records: SourceRecord[]) =>
  records.map((r) => {
    const p = parseCdcOffset(r.sourceOffset) as StreamPosition;
    return [p.lsn, p.event, p.confirmable];
  });

describe('ChangeStream', () => {
  it('numbers the events of a transaction and gives its last one the end of the transaction as lsn_commit', async () => {
    const records = await stream().process(messages);

    expect(ops(records)).toEqual(['c', 'u', 'd', 'tombstone']);
    expect(positions(records)).toEqual([
      [commitLsn, 0, START],
      [commitLsn, 1, START],
      [commitLsn, 2, endLsn],
      [commitLsn, 2, endLsn],
    ]);
    expect(
      JSON.parse(
        String((records[1]?.value as Struct | undefined)?.getStruct('source')?.get('sequence')),
      ),
    ).toEqual([null, '1003']);
  });

  it('holds the latest change until the next message says whether it ends its transaction', async () => {
    const changes = stream();
    const first = await changes.process(messages.slice(0, 3));
    const second = await changes.process(messages.slice(3, 4));
    const heartbeatInside = changes.heartbeatPosition();
    const rest = await changes.process(messages.slice(4));

    expect(first).toEqual([]);
    expect(ops(second)).toEqual(['c']);
    expect(heartbeatInside).toBeNull();
    expect(ops(rest)).toEqual(['u', 'd', 'tombstone']);
  });

  it('drops the events at or before the committed position (the server sends the transaction again)', async () => {
    const committed: StreamPosition = {
      kind: 'stream',
      lsn: commitLsn,
      event: 1,
      confirmable: START,
      eventLsn: 0n,
      txId: null,
      timeMicros: null,
    };
    const records = await stream(committed).process(messages);

    expect(ops(records)).toEqual(['d', 'tombstone']);
  });

  it('offers the furthest delivered WAL position for heartbeats between transactions', async () => {
    const changes = stream();
    await changes.process(messages);
    const afterCommit = changes.heartbeatPosition();
    await changes.process([{ kind: 'keepalive', walEnd: endLsn + 100n, replyRequested: false }]);
    const afterKeepalive = changes.heartbeatPosition();

    expect(afterCommit).toMatchObject({ lsn: endLsn, confirmable: endLsn, event: -1 });
    expect(afterKeepalive).toMatchObject({ lsn: endLsn + 100n, confirmable: endLsn + 100n });
  });
});
