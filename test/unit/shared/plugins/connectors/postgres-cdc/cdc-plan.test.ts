import { describe, expect, it } from 'vitest';
import { ConnectError } from '../../../../../../shared/connect/errors.js';
import type { SlotInfo } from '../../../../../../shared/plugins/connectors/postgres-cdc/catalog.js';
import type { CdcPosition } from '../../../../../../shared/plugins/connectors/postgres-cdc/cdc-offsets.js';
import {
  type PlanInput,
  planTask,
} from '../../../../../../shared/plugins/connectors/postgres-cdc/cdc-plan.js';

const slot: SlotInfo = {
  plugin: 'pgoutput',
  database: 'shop',
  active: false,
  activePid: null,
  confirmedFlush: 100n,
};
const streaming: CdcPosition = {
  kind: 'stream',
  lsn: 150n,
  event: 2,
  confirmable: 120n,
  eventLsn: 140n,
  txId: 1,
  timeMicros: null,
};
const midSnapshot: CdcPosition = {
  kind: 'snapshot',
  lsn: 100n,
  table: 'public.a',
  key: ['5'],
  timeMicros: null,
};
const input = (over: Partial<PlanInput>): PlanInput => ({
  slotName: 'debezium',
  database: 'shop',
  snapshotMode: 'initial',
  committed: null,
  slot,
  slotDropOnStop: false,
  ...over,
});

describe('planTask', () => {
  it('snapshots on an exported snapshot of a new slot when nothing was committed (dropping a leftover slot)', () => {
    expect(planTask(input({ slot: null }))).toEqual({
      kind: 'snapshot',
      dropSlot: false,
      createSlot: true,
      resume: null,
      lsn: null,
      stream: true,
    });
    expect(planTask(input({}))).toMatchObject({
      kind: 'snapshot',
      dropSlot: true,
      createSlot: true,
    });
  });

  it('resumes a cut snapshot on the existing slot, and streams from a committed position', () => {
    expect(planTask(input({ committed: midSnapshot }))).toEqual({
      kind: 'snapshot',
      dropSlot: false,
      createSlot: false,
      resume: { table: 'public.a', key: ['5'] },
      lsn: 100n,
      stream: true,
    });
    expect(planTask(input({ committed: streaming }))).toEqual({
      kind: 'stream',
      createSlot: false,
      from: streaming,
    });
  });

  it('streams without a snapshot in no_data mode, from the slot or a new one', () => {
    expect(planTask(input({ snapshotMode: 'no_data' }))).toEqual({
      kind: 'stream',
      createSlot: false,
      from: null,
    });
    expect(planTask(input({ snapshotMode: 'no_data', slot: null }))).toEqual({
      kind: 'stream',
      createSlot: true,
      from: null,
    });
  });

  it('snapshots without a slot in initial_only mode, and then does nothing', () => {
    expect(planTask(input({ snapshotMode: 'initial_only', slot: null }))).toMatchObject({
      kind: 'snapshot',
      createSlot: false,
      stream: false,
    });
    expect(planTask(input({ snapshotMode: 'initial_only', committed: streaming }))).toEqual({
      kind: 'idle',
    });
  });

  it('fails when the slot is gone or was moved past the committed offset, unless slot.drop.on.stop accepts the loss', () => {
    expect(() => planTask(input({ committed: streaming, slot: null }))).toThrow(
      /does not exist, but the connector committed offsets/,
    );
    expect(() =>
      planTask(input({ committed: streaming, slot: { ...slot, confirmedFlush: 130n } })),
    ).toThrow(/past the connector's committed offset/);
    expect(() => planTask(input({ slot: { ...slot, plugin: 'wal2json' } }))).toThrow(ConnectError);
    expect(planTask(input({ committed: streaming, slot: null, slotDropOnStop: true }))).toEqual({
      kind: 'stream',
      createSlot: true,
      from: streaming,
    });
  });
});
