import {
  BrokerStartError,
  type EnsureBrokerOptions,
  ensureKafkaBroker,
  type KafkaBrokerHandle,
} from '../services/kafka-broker.js';

/** The broker could not be had; `message` is meant for the terminal as it is. */
export class BrokerUnavailableError extends Error {
  override readonly name = 'BrokerUnavailableError';
}

const USE_YOUR_OWN = 'or use a broker you already have: KAFKA_BROKERS=host:9092 npm start';

/**
 * The message shown when the pinned local broker cannot start: the real cause, the scripts'
 * own lines (unless they were already shown as progress), and what to do about that cause.
 */
export function brokerStartFailure(error: BrokerStartError, detailShown = false): string {
  const detail = detailShown ? [] : error.detail.map((line) => `  ${line}`);
  const logs = `${error.home}/logs`;
  const what: Record<BrokerStartError['reason'], { cause: string; next: string[] }> = {
    'java-missing': {
      cause: 'Java 17 or newer is missing',
      next: [
        'install a JDK 17+ (for example: apt-get install openjdk-17-jre-headless), then run',
        '`npm start` again: the pinned Apache Kafka broker is fetched and started for you;',
        USE_YOUR_OWN,
      ],
    },
    'maven-missing': {
      cause: 'Maven is missing (it fetches the broker from Maven Central once)',
      next: [
        'install Maven (for example: apt-get install maven), then run `npm start` again;',
        USE_YOUR_OWN,
      ],
    },
    'fetch-failed': {
      cause: 'Maven could not fetch the broker from Maven Central',
      next: [
        'check that Maven Central is reachable from here (or a mirror in ~/.m2/settings.xml), then',
        'run `npm start` again;',
        USE_YOUR_OWN,
      ],
    },
    'port-taken': {
      cause: "the broker's port is taken by another process",
      next: [
        'free the port, or pick others: KAFKA_PORT=19092 KAFKA_CONTROLLER_PORT=19093 npm start;',
        'if a Kafka broker already listens there: KAFKA_BROKERS=127.0.0.1:<port> npm start',
      ],
    },
    'broker-exited': {
      cause: 'the broker exited during start-up',
      next: [
        `its logs are in ${logs}; \`npm run kafka:stop -- --wipe\` clears its data;`,
        USE_YOUR_OWN,
      ],
    },
    'not-ready': {
      cause: 'the broker did not become ready in time (KAFKA_START_TIMEOUT, 120 s)',
      next: [
        `its logs are in ${logs}; a busy machine may need KAFKA_START_TIMEOUT=300;`,
        USE_YOUR_OWN,
      ],
    },
    interrupted: { cause: 'start-up was interrupted', next: [] },
    'no-address': { cause: 'the broker scripts gave no broker address', next: [USE_YOUR_OWN] },
    'script-failed': { cause: 'the broker scripts failed', next: [`see ${logs};`, USE_YOUR_OWN] },
  };
  const { cause, next } = what[error.reason];
  return [
    `serverless-connect needs a Kafka broker, and ${cause}.`,
    ...detail,
    ...(next.length === 0 ? [] : ['', 'What to do:', ...next.map((line) => `  ${line}`)]),
  ].join('\n');
}

/**
 * `brokers` when given; else the broker at KAFKA_BROKERS; else the project's pinned local broker,
 * started through scripts/kafka (and stopped by `stop()` when this call started it, or adopted
 * one an earlier run of the same owner left behind).
 * @throws BrokerUnavailableError naming the cause and what to do when the local broker cannot
 * start.
 */
export async function connectBroker(
  brokers?: readonly string[],
  options: EnsureBrokerOptions = {},
): Promise<KafkaBrokerHandle> {
  if (brokers !== undefined && brokers.length > 0) {
    return { brokers: [...brokers], startedHere: false, stop: async () => {} };
  }
  try {
    return await ensureKafkaBroker(options);
  } catch (error) {
    if (!(error instanceof BrokerStartError)) throw error;
    throw new BrokerUnavailableError(brokerStartFailure(error, options.onProgress !== undefined), {
      cause: error,
    });
  }
}
