/**
 * Apache Avro's Java library reading our framed payloads (java/AvroWireReader.java): the
 * reference implementation as a Java consumer would use it, against the registry's schema.
 * Needs Java 17+ on PATH, Kafka's jars (Jackson; `npm run kafka:fetch`) and Apache Avro 1.12.2's
 * jar: from `.kafka/vectors-lib` (scripts/vectors/generate.sh), the local Maven repository, or
 * fetched into `.kafka/avro-lib` with Maven on first use.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { kafkaLibDir } from '../adapters/kafka-java-peer.js';

const root = resolve(fileURLToPath(import.meta.url), '../../../..');
const source = join(root, 'test/integration/converters/java/AvroWireReader.java');
const AVRO = 'avro-1.12.2.jar';

/** What Java read from one payload. */
export interface JavaAvroRead {
  readonly schemaId: number;
  /** Java's own binary encoding of the datum it read (hex). */
  readonly hex: string;
  /** The datum in Avro's JSON encoding. */
  readonly json: unknown;
}

async function avroJar(): Promise<string> {
  const candidates = [
    join(root, '.kafka/vectors-lib', AVRO),
    join(root, '.kafka/avro-lib', AVRO),
    join(homedir(), '.m2/repository/org/apache/avro/avro/1.12.2', AVRO),
  ];
  const found = candidates.find((path) => existsSync(path));
  if (found !== undefined) return found;
  await promisify(execFile)(
    'mvn',
    [
      '-q',
      '-B',
      'dependency:copy',
      '-Dartifact=org.apache.avro:avro:1.12.2',
      `-DoutputDirectory=${join(root, '.kafka/avro-lib')}`,
    ],
    { timeout: 300_000 },
  );
  return join(root, '.kafka/avro-lib', AVRO);
}

/** Java's reading of each framed `payload`, with schemas from the registry at `registryUrl`. */
export async function readWithJavaAvro(
  registryUrl: string,
  payloads: readonly Uint8Array[],
): Promise<JavaAvroRead[]> {
  const classpath = [join(kafkaLibDir(), '*'), await avroJar()].join(delimiter);
  const child = spawn('java', ['-cp', classpath, source, registryUrl], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((done) => child.on('close', done));
  child.stdin.end(payloads.map((p) => Buffer.from(p).toString('base64')).join('\n'));
  const code = await exited;
  if (code !== 0) throw new Error(`AvroWireReader failed (${code}): ${stderr.trim()}`);
  return stdout
    .trim()
    .split('\n')
    .map((line) => {
      const [id, hex, ...json] = line.split(' ');
      return { schemaId: Number(id), hex: hex ?? '', json: JSON.parse(json.join(' ')) };
    });
}
