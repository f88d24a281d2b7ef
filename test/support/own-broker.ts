import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../local/services/free-port.js';

const run = promisify(execFile);
/** scripts/kafka, the broker scripts a developer uses. */
export const kafkaScripts = join(process.cwd(), 'scripts', 'kafka');

/** A broker folder of a test's own: a temporary KAFKA_HOME_DIR, free ports, the cached jars. */
export interface OwnBrokerFolder {
  /** The temporary KAFKA_HOME_DIR. */
  readonly home: string;
  /**
   * The environment for scripts/kafka (KAFKA_HOME_DIR, KAFKA_LIB_DIR of the already fetched
   * pinned version, KAFKA_PORT, KAFKA_CONTROLLER_PORT, a small heap), without KAFKA_BROKERS.
   */
  readonly env: NodeJS.ProcessEnv;
  /** Stops a broker started there (scripts/kafka/stop.sh) and removes the folder. */
  remove(): Promise<void>;
}

/** A new folder for a broker of the test's own; nothing is started yet. */
export async function ownBrokerFolder(): Promise<OwnBrokerFolder> {
  const home = await mkdtemp(join(tmpdir(), 'sc-own-kafka-'));
  const { KAFKA_BROKERS: _shared, ...rest } = process.env;
  const env: NodeJS.ProcessEnv = {
    ...rest,
    KAFKA_HOME_DIR: home,
    KAFKA_LIB_DIR: join(process.cwd(), '.kafka', `lib-${await pinnedKafkaVersion()}`),
    KAFKA_PORT: String(await freePort()),
    KAFKA_CONTROLLER_PORT: String(await freePort()),
    KAFKA_HEAP: '384m',
  };
  return {
    home,
    env,
    remove: async () => {
      await run('bash', [join(kafkaScripts, 'stop.sh')], { env }).catch(() => undefined);
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** A broker of the test's own, started by scripts/kafka/start.sh in a temporary folder. */
export interface FreshBroker {
  /** `127.0.0.1:<port>`, once the broker answers. */
  readonly address: string;
  /** Stops the broker (scripts/kafka/stop.sh) and removes its folder. */
  stop(): Promise<void>;
}

/**
 * Starts a broker nobody has used yet (see {@link ownBrokerFolder}). Resolves as soon as
 * start.sh reports it ready, before anything created `__consumer_offsets` or
 * `__transaction_state`. If the start fails, whatever was started is stopped and removed.
 */
export async function startFreshBroker(): Promise<FreshBroker> {
  const folder = await ownBrokerFolder();
  try {
    await run('bash', [join(kafkaScripts, 'start.sh')], { env: folder.env });
    const address = (await readFile(join(folder.home, 'broker.address'), 'utf8')).trim();
    if (address !== `127.0.0.1:${folder.env.KAFKA_PORT}`) {
      throw new Error(`start.sh wrote the address ${address}`);
    }
    return { address, stop: () => folder.remove() };
  } catch (error) {
    await folder.remove();
    throw error;
  }
}

/** The pinned Kafka version (scripts/kafka/pom.xml). */
export async function pinnedKafkaVersion(): Promise<string> {
  const pom = await readFile(join(kafkaScripts, 'pom.xml'), 'utf8');
  const version = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(pom)?.[1];
  if (!version) throw new Error('kafka.version missing from scripts/kafka/pom.xml');
  return version;
}
