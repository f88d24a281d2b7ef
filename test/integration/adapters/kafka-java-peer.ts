import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = resolve(fileURLToPath(import.meta.url), '../../../..');
const source = join(root, 'test/integration/adapters/java/KafkaJavaPeer.java');

/**
 * The broker's classpath, found as scripts/kafka/common.sh finds it: `KAFKA_LIB_DIR`, else
 * `${KAFKA_HOME_DIR:-.kafka}/lib-<kafka.version of scripts/kafka/pom.xml>`.
 */
export function kafkaLibDir(): string {
  const fromEnv = process.env.KAFKA_LIB_DIR;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const pom = readFileSync(join(root, 'scripts/kafka/pom.xml'), 'utf8');
  const version = /<kafka\.version>(.*)<\/kafka\.version>/.exec(pom)?.[1];
  const home = process.env.KAFKA_HOME_DIR ?? join(root, '.kafka');
  return join(home, `lib-${version}`);
}

/** One value a Java client read; `null` for a tombstone. */
export interface JavaRecord {
  readonly partition: number;
  readonly offset: number;
  readonly value: Buffer | null;
}

/** Apache Kafka's Java consumer and producer (KafkaJavaPeer.java), compiled once. */
export class KafkaJavaPeer {
  private constructor(private readonly classpath: string) {}

  /** Compiles the peer against the broker's jars (Java 17+ on PATH; `npm run kafka:fetch` for the jars). */
  static async compile(): Promise<KafkaJavaPeer> {
    const lib = kafkaLibDir();
    if (!existsSync(lib)) {
      throw new Error(
        `Kafka's jars are not in ${lib}: run npm run kafka:fetch (or set KAFKA_LIB_DIR)`,
      );
    }
    const out = mkdtempSync(join(tmpdir(), 'kafka-java-peer-'));
    await run('javac', ['-nowarn', '-cp', join(lib, '*'), '-d', out, source]);
    return new KafkaJavaPeer([out, join(lib, '*')].join(delimiter));
  }

  /** Reads `topic` from the beginning, read_committed, until `count` records or `timeoutMs`. */
  async consume(
    bootstrap: string,
    topic: string,
    count: number,
    timeoutMs = 20_000,
  ): Promise<JavaRecord[]> {
    const { stdout } = await run(
      'java',
      [
        '-cp',
        this.classpath,
        'KafkaJavaPeer',
        'consume',
        bootstrap,
        topic,
        String(count),
        String(timeoutMs),
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    return stdout
      .split('\n')
      .filter((line) => line.startsWith('VALUE '))
      .map((line) => {
        const [, partition, offset, value] = line.split(' ');
        return {
          partition: Number(partition),
          offset: Number(offset),
          value: value === '-' || value === undefined ? null : Buffer.from(value, 'base64'),
        };
      });
  }

  /** Writes `values` to partition 0 of `topic` with the Java producer and `compression.type`. */
  async produce(
    bootstrap: string,
    topic: string,
    compression: string,
    values: readonly Uint8Array[],
  ): Promise<void> {
    const child = spawn('java', [
      '-cp',
      this.classpath,
      'KafkaJavaPeer',
      'produce',
      bootstrap,
      topic,
      compression,
    ]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolveExit, reject) => {
      child.on('error', reject);
      child.on('close', resolveExit);
    });
    child.stdin.end(values.map((v) => Buffer.from(v).toString('base64')).join('\n'));
    const code = await exited;
    if (code !== 0 || !stdout.includes('PRODUCED')) {
      throw new Error(`the Java producer failed (exit ${code}): ${stderr.slice(-2000)}`);
    }
  }
}
