import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type OwnBrokerFolder,
  ownBrokerFolder,
  pinnedKafkaVersion,
  kafkaScripts as scripts,
} from '../../support/own-broker.js';
import { createTopics } from '../../support/services.js';

const run = promisify(execFile);

/**
 * The broker scripts as a developer uses them: a second broker in its own folder and ports
 * (sharing the jar cache), started twice, used, stopped twice.
 */
describe('scripts/kafka start and stop', () => {
  let folder: OwnBrokerFolder;
  let home: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    folder = await ownBrokerFolder();
    ({ home, env } = folder);
  });

  afterAll(async () => {
    await folder.remove();
  });

  it('starts a usable broker, and a second start is a harmless no-op', async () => {
    const first = await run('bash', [join(scripts, 'start.sh')], { env });
    const pid = (await readFile(join(home, 'broker.pid'), 'utf8')).trim();
    const second = await run('bash', [join(scripts, 'start.sh')], { env });

    expect(first.stdout.trim()).toBe(`127.0.0.1:${env.KAFKA_PORT}`);
    expect((await readFile(join(home, 'broker.address'), 'utf8')).trim()).toBe(first.stdout.trim());
    expect(second.stdout.trim()).toBe(first.stdout.trim());
    expect(second.stderr).toContain('already running');
    expect((await readFile(join(home, 'broker.pid'), 'utf8')).trim()).toBe(pid);

    const kafka = new Kafka({ brokers: [first.stdout.trim()], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await createTopics(admin, [{ topic: 'scripts-check' }]);
    expect(await admin.listTopics()).toContain('scripts-check');
    await admin.disconnect();
  });

  it('stops the broker, and stopping again is harmless', async () => {
    const pid = Number((await readFile(join(home, 'broker.pid'), 'utf8')).trim());
    await run('bash', [join(scripts, 'stop.sh')], { env });
    const again = await run('bash', [join(scripts, 'stop.sh')], { env });

    expect(() => process.kill(pid, 0)).toThrow();
    expect(again.stderr).toContain('not running');
    await expect(readFile(join(home, 'broker.address'), 'utf8')).rejects.toThrow();
  });

  it('fetches the broker into a fresh folder with nothing but its progress on stderr', async () => {
    // Prepare: no jar cache in this KAFKA_HOME_DIR (Maven's own ~/.m2 may hold the artifacts)
    const { KAFKA_LIB_DIR: _cached, ...fresh } = env;
    // Act
    const fetched = await run('bash', [join(scripts, 'fetch.sh')], { env: fresh });
    // Assess: stdout stays clean whatever Maven prints (Debian's Maven writes colour codes)
    expect(fetched.stdout).toBe('');
    expect(fetched.stderr).toMatch(/fetched \d+ jars/);
    const lib = join(home, `lib-${await pinnedKafkaVersion()}`);
    const jars = await readdir(lib);
    expect(jars).toContain(`kafka_2.13-${await pinnedKafkaVersion()}.jar`);
    expect(jars).toContain('.complete');
  });
});
