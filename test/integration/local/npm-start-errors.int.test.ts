import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { ClassicLevel } from 'classic-level';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startDynalite } from '../../../local/services/dynalite.js';
import { ensureTable } from '../../../shared/adapters/dynamodb/ensure-table.js';

const root = process.cwd();

interface Exit {
  readonly code: number | null;
  readonly stderr: string;
}

/** A stack frame line, as Node prints them (`    at fn (file:line:col)`). */
const STACK_FRAME = /^\s+at .+/m;

/**
 * `npm start` (local/main.ts) failing to start for a reason the user can act on: one message
 * saying what and what to do, exit code 1, no stack trace.
 */
describe('npm start failing to start', { timeout: 120_000 }, () => {
  let home: string;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'sc-npm-start-errors-'));
  });

  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it.each([
    ['its manifest', (name: string) => name.startsWith('MANIFEST-')],
    ['a table file', (name: string) => name.endsWith('.ldb')],
  ])(
    'names the data folder and what to do when dynalite’s files are damaged (%s)',
    async (_, damaged) => {
      // Prepare: a data folder with a table and an item, then one of its LevelDB files garbled
      const dataDir = await dataFolderWithState(join(home, `damaged-${Date.now()}`));
      const folder = join(dataDir, 'dynamodb');
      const victims = (await readdir(folder)).filter(damaged);
      expect(victims.length).toBeGreaterThan(0);
      for (const file of victims) await writeFile(join(folder, file), 'garbage '.repeat(64));
      // Act
      const exit = await npmStart(['--data-dir', dataDir, '--port', '0', '--s3-port', '0']);
      // Assess
      expect(exit.code).toBe(1);
      expect(exit.stderr).toContain(
        `serverless-connect could not start: the state in ${folder} is damaged (LevelDB: `,
      );
      expect(exit.stderr).toContain(`Restore ${folder} from a copy, or move it aside`);
      expect(exit.stderr).toContain(
        'source connectors resume from the offsets they committed to Kafka',
      );
      expect(exit.stderr).not.toMatch(STACK_FRAME);
    },
  );

  it('names the port, what holds it and the option to choose another when the REST port is taken', async () => {
    // Prepare: this process listens on the port npm start wants
    const blocker = await listening();
    const port = (blocker.address() as { port: number }).port;
    try {
      // Act
      const exit = await npmStart(['--memory', '--port', String(port), '--s3-port', '0']);
      // Assess
      expect(exit.code).toBe(1);
      const lines = exit.stderr.trim().split('\n');
      expect(lines.at(-1)).toMatch(
        new RegExp(
          `^serverless-connect could not start: port ${port} \\(the REST API\\) is taken by another process \\(pid ${process.pid}, [^)]+\\); choose another with --port <n> or PORT=<n>\\.$`,
        ),
      );
      expect(exit.stderr).not.toMatch(STACK_FRAME);
      expect(exit.stderr).not.toContain('EADDRINUSE');
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('says the data folder is in use when another process holds it', async () => {
    // Prepare: this process holds the folder's LevelDB lock, as a running npm start does
    const dataDir = await dataFolderWithState(join(home, 'in-use'));
    const db = new ClassicLevel(join(dataDir, 'dynamodb'));
    await db.open();
    try {
      // Act
      const exit = await npmStart(['--data-dir', dataDir, '--port', '0', '--s3-port', '0']);
      // Assess
      expect(exit.code).toBe(1);
      expect(exit.stderr).toContain(
        `serverless-connect could not start: the data folder ${dataDir} is in use by another process`,
      );
      expect(exit.stderr).toContain('--data-dir <dir>');
      expect(exit.stderr).not.toMatch(STACK_FRAME);
    } finally {
      await db.close();
    }
  });
});

/** `dataDir` with dynalite's folder holding a table and an item, as npm start leaves it. */
async function dataFolderWithState(dataDir: string): Promise<string> {
  // Twice: LevelDB writes its table files (.ldb) when it reopens a folder.
  for (let round = 0; round < 2; round++) {
    const dynamo = await startDynalite({ path: join(dataDir, 'dynamodb') });
    const client = new DynamoDBClient({
      endpoint: dynamo.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await ensureTable(client, 'serverless-connect-state');
    await client.send(
      new PutItemCommand({
        TableName: 'serverless-connect-state',
        Item: { pk: { S: `probe-${round}` }, sk: { S: 'probe' } },
      }),
    );
    client.destroy();
    await dynamo.close();
  }
  return dataDir;
}

/** A server listening on a free loopback port. */
async function listening(): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** Runs `npm start`'s command (`node --import tsx local/main.ts`) against the test broker. */
async function npmStart(args: readonly string[]): Promise<Exit> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts', ...args], {
    cwd: root,
    env: { ...process.env, KAFKA_BROKERS: inject('kafkaBrokers').join(',') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, stderr };
}
