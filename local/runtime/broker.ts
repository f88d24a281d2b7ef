import { ensureKafkaBroker, type KafkaBrokerHandle } from '../services/kafka-broker.js';

/** The broker could not be had; `message` is meant for the terminal as it is. */
export class BrokerUnavailableError extends Error {
  override readonly name = 'BrokerUnavailableError';
}

/**
 * The message shown when the pinned local broker cannot start: what went wrong (the scripts'
 * own lines, which name the missing tool) and both ways out.
 */
export function brokerStartFailure(detail: string): string {
  const lines = detail
    .split('\n')
    .map((line) => line.replace(/^\[kafka\]\s*/, '').trim())
    .filter((line) => line.length > 0 && !/^could not start the local Kafka broker:?$/.test(line));
  const missingJava = /\bjava\b/i.test(detail) && /(17|required|not found)/i.test(detail);
  const missingMaven = /\b(maven|mvn)\b/i.test(detail);
  const cause = missingJava
    ? 'Java 17 or newer is missing'
    : missingMaven
      ? 'Maven is missing'
      : 'the local broker did not start';
  return [
    `serverless-connect needs a Kafka broker, and ${cause}:`,
    ...lines.map((line) => `  ${line}`),
    '',
    'Two ways out:',
    '  1. install Java 17+ and Maven (for example: apt-get install openjdk-17-jre-headless maven),',
    '     then run `npm start` again: the pinned Apache Kafka broker is fetched and started for you;',
    '  2. or use a broker you already have: KAFKA_BROKERS=host:9092 npm start',
  ].join('\n');
}

/**
 * `brokers` when given; else the broker at KAFKA_BROKERS; else the project's pinned local broker,
 * started through scripts/kafka (and stopped by `stop()` when this call started it).
 * @throws BrokerUnavailableError naming both ways out when the local broker cannot start.
 */
export async function connectBroker(brokers?: readonly string[]): Promise<KafkaBrokerHandle> {
  if (brokers !== undefined && brokers.length > 0) {
    return { brokers: [...brokers], startedHere: false, stop: async () => {} };
  }
  try {
    return await ensureKafkaBroker();
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new BrokerUnavailableError(brokerStartFailure(detail), { cause: error });
  }
}
