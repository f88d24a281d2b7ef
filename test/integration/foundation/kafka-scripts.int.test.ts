import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../local/services/free-port.js';
import { createTopics } from '../../support/services.js';

const run = promisify(execFile);
const scripts = join(process.cwd(), 'scripts', 'kafka');

/**
 * The broker scripts as a developer uses them: a second broker in its own folder and ports
 * (sharing the jar cache), started twice, used, stopped twice.
 */
describe('scripts/kafka start and stop', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'sc-kafka-'));
    const port = await freePort();
    env = {
      ...process.env,
      KAFKA_HOME_DIR: home,
      KAFKA_LIB_DIR: join(process.cwd(), '.kafka', `lib-${await pinnedVersion()}`),
      KAFKA_PORT: String(port),
      KAFKA_CONTROLLER_PORT: String(await freePort()),
      KAFKA_HEAP: '384m',
    };
  });

  afterAll(async () => {
    await run('bash', [join(scripts, 'stop.sh')], { env }).catch(() => undefined);
    await rm(home, { recursive: true, force: true });
  });

  it('starts a usable broker, and a second start is a harmless no-op', async () => {
    const first = await run('bash', [join(scripts, 'start.sh')], { env });
    const pid = (await readFile(join(home, 'broker.pid'), 'utf8')).trim();
    const second = await run('bash', [join(scripts, 'start.sh')], { env });

    expect(first.stdout.trim()).toBe(`127.0.0.1:${env.KAFKA_PORT}`);
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
  });
});

async function pinnedVersion(): Promise<string> {
  const pom = await readFile(join(scripts, 'pom.xml'), 'utf8');
  const version = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(pom)?.[1];
  if (!version) throw new Error('kafka.version missing from scripts/kafka/pom.xml');
  return version;
}
