import { describe, expect, it } from 'vitest';
import { ConnectError } from '../../../../../../shared/connect/errors.js';
import {
  checkServer,
  type SqlClient,
} from '../../../../../../shared/plugins/connectors/postgres-cdc/catalog.js';

const answering = (row: Record<string, unknown>): SqlClient => ({
  query: async () => ({ rows: [row] }),
});

describe('checkServer', () => {
  it('refuses a server without wal_level=logical, saying what to set (RDS included)', async () => {
    const error = await checkServer(
      answering({ wal_level: 'replica', can_replicate: true, rolname: 'cdc' }),
    ).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ConnectError);
    expect((error as Error).message).toMatch(
      /wal_level is 'replica': logical decoding needs wal_level=logical/,
    );
    expect((error as Error).message).toContain('rds.logical_replication=1');
  });

  it('refuses a user that may not replicate, and accepts a ready server', async () => {
    await expect(
      checkServer(answering({ wal_level: 'logical', can_replicate: false, rolname: 'app' })),
    ).rejects.toThrow(/user app may not stream changes: grant it REPLICATION/);
    await expect(
      checkServer(answering({ wal_level: 'logical', can_replicate: true, rolname: 'cdc' })),
    ).resolves.toBeUndefined();
  });
});
