import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { ensureKafkaBroker, type KafkaBrokerHandle } from '../local/services/kafka-broker.js';
import { ensurePostgres, type RunningPostgres } from '../test/support/postgres-server.js';

/** A service running in a child process (see service-process.ts). */
export interface ChildService {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** The child's process id (for its CPU time in /proc). */
  readonly pid: number;
  close(): Promise<void>;
}

const serviceProcess = fileURLToPath(new URL('./service-process.ts', import.meta.url));

/**
 * Starts `kind` (with `args`, see service-process.ts) in a child process of the same Node and
 * loader (tsx) as this one.
 */
export async function startChildService(
  kind: 'dynalite' | 's3rver' | 'rest-api',
  args: readonly string[] = [],
): Promise<ChildService> {
  const child: ChildProcess = spawn(
    process.execPath,
    [...process.execArgv, serviceProcess, kind, ...args],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = once(child, 'exit');
  const stdout = child.stdout;
  if (stdout === null) throw new Error(`${kind}: no standard output`);
  let line = '';
  for await (const chunk of stdout) {
    line += String(chunk);
    if (line.includes('\n')) break;
  }
  const endpoint = line.trim();
  if (!endpoint.startsWith('http://')) {
    child.kill();
    throw new Error(`${kind} did not start (printed ${JSON.stringify(line)})`);
  }
  if (child.pid === undefined) throw new Error(`${kind}: no process id`);
  return {
    endpoint,
    pid: child.pid,
    close: async () => {
      child.stdin?.end();
      await exited;
    },
  };
}

/**
 * The services a benchmark needs, started on first use: Kafka exactly as the integration tests
 * start it (KAFKA_BROKERS, or the pinned local broker); dynalite and s3rver each in a process of
 * its own (DynamoDB and S3 are remote in AWS: in-process, their CPU would be charged to the code
 * measured and to its baseline). Stopped by `close()`.
 */
export class BenchServices {
  #kafka: Promise<KafkaBrokerHandle> | undefined;
  #dynamo: Promise<ChildService> | undefined;
  #s3: Promise<ChildService> | undefined;
  #postgres: Promise<RunningPostgres> | undefined;

  kafka(): Promise<KafkaBrokerHandle> {
    this.#kafka ??= ensureKafkaBroker();
    return this.#kafka;
  }

  dynamo(): Promise<ChildService> {
    this.#dynamo ??= startChildService('dynalite');
    return this.#dynamo;
  }

  s3(): Promise<ChildService> {
    this.#s3 ??= startChildService('s3rver');
    return this.#s3;
  }

  /** `POSTGRES_URL`, else the project's PostgreSQL server (`npm run postgres:start`). */
  postgres(): Promise<RunningPostgres> {
    this.#postgres ??= ensurePostgres();
    return this.#postgres;
  }

  async close(): Promise<void> {
    await Promise.allSettled([
      this.#postgres?.then((postgres) => postgres.stop()),
      this.#kafka?.then((kafka) => kafka.stop()),
      this.#dynamo?.then((dynamo) => dynamo.close()),
      this.#s3?.then((s3) => s3.close()),
    ]);
  }
}
