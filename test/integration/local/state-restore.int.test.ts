import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);

/**
 * `npm run check:state-restore` in its short form: `npm start`'s runtime with an exactly-once
 * source and an S3 sink, its state put back to an earlier copy once and removed once (the
 * connectors created again), and the source topic and the S3 objects checked by independent
 * readers.
 */
describe('check:state-restore (short form)', () => {
  it('ends with no duplicate and no loss after a restored and a removed state', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'scripts/check-state-restore.ts',
        '--quick',
        '--restores',
        '1',
        '--removals',
        '1',
      ],
      {
        cwd: process.cwd(),
        env: { ...process.env, KAFKA_BROKERS: inject('kafkaBrokers').join(',') },
        timeout: 300_000,
        maxBuffer: 16 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`check:state-restore failed:\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
    });
    const last = stdout.trim().split('\n').at(-1);
    expect(last).toBe('duplicates=0 losses=0 restores=2');
    expect(stdout).toMatch(
      /^s3-sink: records=[1-9]\d* objects=[1-9]\d* duplicates=0 losses=0 inconsistent=0/m,
    );
  }, 330_000);
});
