import { describe, expect, it } from 'vitest';
import { portTakenMessage, startFailureMessage } from '../../../../local/runtime/start-failure.js';
import { DynamoFolderError } from '../../../../local/services/dynalite.js';

const ports = { port: 8083, s3Port: 4568 };

describe('start-up failure messages', () => {
  it('name the port, its holder and the option and variable that choose another', async () => {
    // Act
    const rest = await portTakenMessage(8083, ports, async () => ({
      pid: 42,
      command: 'node',
      npmStart: true,
    }));
    const s3 = await portTakenMessage(4568, ports, async () => ({
      pid: 7,
      command: 'java',
      npmStart: false,
    }));
    const unknown = await portTakenMessage(4568, ports, async () => undefined);
    // Assess
    expect(rest).toBe(
      'serverless-connect could not start: port 8083 (the REST API) is taken by another npm start (pid 42); choose another with --port <n> or PORT=<n>.',
    );
    expect(s3).toBe(
      'serverless-connect could not start: port 4568 (the local S3 server) is taken by another process (pid 7, java); choose another with --s3-port <n> or S3_PORT=<n>.',
    );
    expect(unknown).toContain('is taken by another process; choose another with --s3-port');
  });

  it('tell what to do with a damaged state folder, and leave other errors alone', async () => {
    // Act
    const damaged = await startFailureMessage(
      new DynamoFolderError('/data/dynamodb', 'damaged', 'Corruption: bad block'),
      ports,
      '/data',
    );
    const other = await startFailureMessage(new Error('boom'), ports, '/data');
    // Assess
    expect(damaged?.split('\n')).toEqual([
      'serverless-connect could not start: the state in /data/dynamodb is damaged (LevelDB: Corruption: bad block).',
      'Restore /data/dynamodb from a copy, or move it aside (mv /data/dynamodb /data/dynamodb.damaged) or start on another folder (--data-dir <dir>): connectors must then be created again, and source connectors resume from the offsets they committed to Kafka.',
    ]);
    expect(other).toBeUndefined();
  });
});
