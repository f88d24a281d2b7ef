/**
 * Replication slots on the test server, as a test or a campaign frees them: what a dead
 * invocation's closing sockets would do, and the drop at the end (a slot holds WAL).
 */
import type pg from 'pg';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Ends the connection streaming from `slot` (`pg_terminate_backend` of its `active_pid`), as
 * the server would once the socket of a dead holder closed, and waits until the slot shows
 * inactive (at most 5 s). Returns false when the slot does not exist.
 */
export async function releaseSlot(db: pg.Client, slot: string): Promise<boolean> {
  await db.query(
    'SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = $1 AND active',
    [slot],
  );
  for (let i = 0; i < 50; i++) {
    const { rows } = await db.query(
      'SELECT active FROM pg_replication_slots WHERE slot_name = $1',
      [slot],
    );
    if (rows.length === 0) return false;
    if (rows[0].active === false) return true;
    await sleep(100);
  }
  throw new Error(`replication slot ${slot} is still active 5 s after its holder was terminated`);
}

/** Releases `slot` (see {@link releaseSlot}) and drops it; nothing when it does not exist. */
export async function dropSlot(db: pg.Client, slot: string): Promise<void> {
  if (await releaseSlot(db, slot)) {
    await db.query('SELECT pg_drop_replication_slot($1)', [slot]);
  }
}
