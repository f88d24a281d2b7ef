/**
 * How the peer benchmark runs OUR side: `node --import tsx local/main.ts` (what `npm start`
 * runs) as a child process, so its CPU and memory are read from /proc apart from the benchmark's
 * own process and from the state store. Every option that differs from `npm start`'s default
 * is here, with its reason.
 */

/** The arguments after `local/main.ts`; `dataDir` and the DynamoDB endpoint are per run. */
export function oursArgs(dataDir: string, dynamoEndpoint: string): string[] {
  return [
    // A fresh folder per run: no connectors, offsets or leases from an earlier run.
    '--data-dir',
    dataDir,
    // Any free ports, so the benchmark never collides with an `npm start` of the user's.
    '--port',
    '0',
    '--s3-port',
    '0',
    // The state store (dynalite) runs in a process of its own, excluded from our CPU and memory:
    // in AWS, DynamoDB is a remote service, as Apache's worker keeps its state in Kafka topics
    // on the broker, which is excluded as well.
    '--dynamodb-endpoint',
    dynamoEndpoint,
  ];
}

/** The environment added to the benchmark's own (which carries KAFKA_BROKERS). */
export const OURS_ENV: Readonly<Record<string, string>> = {
  // Warnings and errors only: info lines per invocation would be CPU spent on logging that
  // Apache's worker (log4j at INFO, to a file) does not spend per batch either.
  LOG_LEVEL: 'warn',
  // The default, written down: exactly-once sources, as the Connect worker is configured
  // (exactly.once.source.support=enabled in worker.properties).
  EXACTLY_ONCE_SOURCE: 'enabled',
};
