import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../../../../../shared/connect/errors.js';
import {
  decodePgoutput,
  type PgoutputMessage,
  postgresMicrosToUnixMicros,
  UNCHANGED_TOAST,
} from '../../../../../../shared/plugins/connectors/postgres-cdc/pgoutput.js';

/** Real pgoutput bytes from PostgreSQL (scripts/postgres-cdc/capture-pgoutput.ts). */
const fixture = JSON.parse(
  readFileSync(new URL('../../../../../fixtures/pgoutput-capture.json', import.meta.url), 'utf8'),
) as { captured: Record<string, string[]> };

function decoded(scenario: string): PgoutputMessage[] {
  return (fixture.captured[scenario] ?? []).map((hex) => decodePgoutput(Buffer.from(hex, 'hex')));
}

describe('decodePgoutput (captured PostgreSQL bytes)', () => {
  it('decodes a transaction: Begin, Type, Relation, Insert, Commit', () => {
    const [begin, type, relation, insert, commit] = decoded('insert');

    expect(begin).toMatchObject({ tag: 'begin', xid: expect.any(Number) });
    expect(type).toMatchObject({ tag: 'type', namespace: 'public', name: 'capture_mood' });
    expect(relation).toMatchObject({
      tag: 'relation',
      namespace: 'public',
      name: 'capture_items',
      replicaIdentity: 'default',
    });
    const columns = relation?.tag === 'relation' ? relation.columns : [];
    expect(columns.map((c) => [c.name, c.key, c.typeOid])).toEqual([
      ['id', true, 23],
      ['name', false, 25],
      ['mood', false, (type as { typeOid: number }).typeOid],
      ['price', false, 1700],
      ['payload', false, 17],
      ['tags', false, 1009],
      ['big', false, 25],
    ]);
    expect(columns[3]?.typmod).toBe(((10 << 16) | 2) + 4);
    expect(insert).toEqual({
      tag: 'insert',
      relationOid: (relation as { relationOid: number }).relationOid,
      newTuple: ['1', 'one', 'happy', '12.50', '\\x0102', '{a,"b c",NULL}', null],
    });
    expect(commit).toMatchObject({ tag: 'commit', flags: 0 });
    if (begin?.tag === 'begin' && commit?.tag === 'commit') {
      expect(commit.commitLsn).toBe(begin.finalLsn);
      expect(commit.endLsn).toBeGreaterThan(commit.commitLsn);
      expect(commit.commitTimeMicros).toBe(begin.commitTimeMicros);
      const unix = Number(postgresMicrosToUnixMicros(begin.commitTimeMicros) / 1000n);
      expect(unix).toBeGreaterThan(Date.UTC(2020, 0, 1));
    }
  });

  it('decodes updates without an old tuple, with the old key (K) when the key changed, and with unchanged TOAST', () => {
    const plain = decoded('updateDefaultIdentity')[1];
    const keyChange = decoded('updateKeyChange')[1];
    const toast = decoded('unchangedToast')[2];

    expect(plain).toMatchObject({ tag: 'update', oldKind: null, oldTuple: null });
    expect(keyChange).toMatchObject({
      tag: 'update',
      oldKind: 'key',
      oldTuple: ['1', null, null, null, null, null, null],
    });
    expect((keyChange as unknown as { newTuple: unknown[] }).newTuple[0]).toBe('2');
    expect((toast as unknown as { newTuple: unknown[] }).newTuple[6]).toBe(UNCHANGED_TOAST);
  });

  it('decodes deletes with the key (K) or the whole old row (O, REPLICA IDENTITY FULL)', () => {
    const [, relation, , update, remove] = decoded('replicaIdentityFull');

    expect(decoded('deleteDefaultIdentity')[1]).toMatchObject({
      tag: 'delete',
      oldKind: 'key',
      oldTuple: ['2', null, null, null, null, null, null],
    });
    expect(relation).toMatchObject({ replicaIdentity: 'full', name: 'capture_full' });
    expect(update).toMatchObject({ oldKind: 'old', oldTuple: ['7', 'x'], newTuple: ['7', 'y'] });
    expect(remove).toMatchObject({ tag: 'delete', oldKind: 'old', oldTuple: ['7', 'y'] });
  });

  it('decodes a truncate of several relations and a transactional logical message', () => {
    const truncate = decoded('truncate').find((m) => m.tag === 'truncate');
    const message = decoded('message')[1];

    expect(truncate).toMatchObject({ cascade: false, restartIdentity: false });
    expect((truncate as unknown as { relationOids: number[] }).relationOids).toHaveLength(2);
    expect(message).toMatchObject({ tag: 'message', transactional: true, prefix: 'capture' });
    expect(new TextDecoder().decode((message as { content: Uint8Array }).content)).toBe('hello');
  });

  it('refuses unknown, truncated and overlong messages with a DataError', () => {
    const insert = Buffer.from(fixture.captured.insert?.[3] ?? '', 'hex');

    expect(() => decodePgoutput(Buffer.from('5a', 'hex'))).toThrow(
      /Unknown pgoutput message type 'Z'/,
    );
    expect(() => decodePgoutput(insert.subarray(0, insert.length - 3))).toThrow(DataError);
    expect(() => decodePgoutput(Buffer.concat([insert, Buffer.from([0])]))).toThrow(
      /trailing bytes/,
    );
  });
});
