/**
 * What a task does when it starts, decided from `snapshot.mode`, its committed offset and its
 * slot (pure):
 *
 * | snapshot.mode | committed offset | slot     | plan                                                        |
 * |---------------|------------------|----------|-------------------------------------------------------------|
 * | initial       | none             | any      | (drop the slot: nothing was delivered) create it exporting its snapshot, read the tables on it, stream from its consistent point |
 * | initial       | mid-snapshot     | present  | resume the snapshot after the committed key on a fresh snapshot, then stream from the consistent point |
 * | any           | streaming        | present  | stream from the committed position                          |
 * | no_data       | none             | present  | stream from the slot's confirmed position                   |
 * | no_data       | none             | missing  | create the slot, stream from its consistent point           |
 * | initial_only  | none / mid       | (none)   | snapshot (resumed on a fresh snapshot), no slot, no stream  |
 * | initial_only  | complete         | (none)   | nothing                                                     |
 *
 * A slot missing while offsets say it should exist means changes were lost: a ConnectError,
 * unless `slot.drop.on.stop` (which accepts losing them) creates it again. So is a slot confirmed
 * past the committed offset, or another plugin's or database's slot of the same name.
 */
import { ConnectError } from 'serverless-connect/connect';
import type { SlotInfo } from './catalog.js';
import type { SnapshotMode } from './cdc-config-def.js';
import type { CdcPosition, StreamPosition } from './cdc-offsets.js';
import { formatLsn, type Lsn } from './lsn.js';
import type { SnapshotResume } from './snapshot-reader.js';

export type TaskPlan =
  | { readonly kind: 'idle' }
  | {
      readonly kind: 'snapshot';
      /** Drop the existing slot first (nothing was delivered from it). */
      readonly dropSlot: boolean;
      /** Create the slot exporting its snapshot, read on it; else a fresh snapshot. */
      readonly createSlot: boolean;
      readonly resume: SnapshotResume | null;
      /** The consistent point streaming starts from, when the slot exists already. */
      readonly lsn: Lsn | null;
      /** Stream after the snapshot (not for initial_only). */
      readonly stream: boolean;
    }
  | {
      readonly kind: 'stream';
      readonly createSlot: boolean;
      /** Where to start: the committed position, or (`null`) the slot's confirmed/consistent point. */
      readonly from: StreamPosition | null;
    };

export interface PlanInput {
  readonly slotName: string;
  readonly database: string;
  readonly snapshotMode: SnapshotMode;
  readonly committed: CdcPosition | null;
  readonly slot: SlotInfo | null;
  readonly slotDropOnStop: boolean;
}

function lost(slot: string): ConnectError {
  return new ConnectError(
    `Replication slot ${slot} does not exist, but the connector committed offsets from it: the changes made since ` +
      'cannot be read. Stop the connector and DELETE its offsets to start again (snapshot.mode=initial snapshots anew).',
  );
}

function checkSlot(input: PlanInput): void {
  const { slot, slotName } = input;
  if (slot === null) return;
  if (slot.plugin !== 'pgoutput' || slot.database !== input.database) {
    throw new ConnectError(
      `Replication slot ${slotName} belongs to plugin ${slot.plugin} on database ${slot.database}, not pgoutput on ${input.database}; choose another slot.name`,
    );
  }
  const committed = input.committed;
  const bound =
    committed === null ? null : committed.kind === 'stream' ? committed.confirmable : committed.lsn;
  if (bound !== null && slot.confirmedFlush !== null && slot.confirmedFlush > bound) {
    throw new ConnectError(
      `Replication slot ${slotName} was confirmed up to ${formatLsn(slot.confirmedFlush)}, past the connector's committed offset ` +
        `(${formatLsn(bound)}): something else advanced it and the changes in between are gone. Stop the connector and DELETE its offsets to start again.`,
    );
  }
}

/** The plan of a starting task. @throws ConnectError for a lost or foreign slot. */
export function planTask(input: PlanInput): TaskPlan {
  const { committed, slot, snapshotMode } = input;
  if (snapshotMode === 'initial_only') {
    if (committed?.kind === 'stream') return { kind: 'idle' };
    return {
      kind: 'snapshot',
      dropSlot: false,
      createSlot: false,
      resume: committed === null ? null : { table: committed.table, key: committed.key },
      lsn: committed?.lsn ?? null,
      stream: false,
    };
  }
  checkSlot(input);
  if (committed === null) {
    if (snapshotMode === 'no_data')
      return { kind: 'stream', createSlot: slot === null, from: null };
    return {
      kind: 'snapshot',
      dropSlot: slot !== null,
      createSlot: true,
      resume: null,
      lsn: null,
      stream: true,
    };
  }
  if (committed.kind === 'snapshot') {
    const resume = { table: committed.table, key: committed.key };
    if (slot === null && !input.slotDropOnStop) throw lost(input.slotName);
    if (snapshotMode === 'no_data') {
      return {
        kind: 'stream',
        createSlot: slot === null,
        from: {
          kind: 'stream',
          lsn: committed.lsn,
          event: -1,
          confirmable: committed.lsn,
          eventLsn: committed.lsn,
          txId: null,
          timeMicros: null,
        },
      };
    }
    return slot === null
      ? { kind: 'snapshot', dropSlot: false, createSlot: true, resume, lsn: null, stream: true }
      : {
          kind: 'snapshot',
          dropSlot: false,
          createSlot: false,
          resume,
          lsn: committed.lsn,
          stream: true,
        };
  }
  if (slot === null && !input.slotDropOnStop) throw lost(input.slotName);
  return { kind: 'stream', createSlot: slot === null, from: committed };
}
