/**
 * The reference readers the S3 sink's Avro and Parquet objects are checked with in the
 * integration tests: Apache Avro 1.12.2's Java library (Maven Central, `pom.xml` beside this
 * file; jars copied by Maven into `.kafka/avro-reader-lib/`, again when the pom changes) and
 * pyarrow (PyPI, `requirements.txt`; a project-managed virtual environment `.venv-parquet/`,
 * built with pip on first use). Both are fetched by this module, never installed by hand;
 * `npx tsx test/support/reference-readers/reference-readers.ts --install` fetches them ahead of
 * time (`.ci/run` does, in the background).
 *
 * @example
 * const [file] = await readAvroFilesWithJava(['/tmp/x.avro']); // { schema, codec, records, … }
 * const [table] = await readParquetFilesWithPyarrow(['/tmp/x.parquet']); // { rows, … }
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ensurePythonVenv } from '../python-venv.js';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const projectRoot = join(here, '..', '..', '..');
const POM = join(here, 'pom.xml');
const AVRO_LIB = join(projectRoot, '.kafka', 'avro-reader-lib');
export const PARQUET_VENV = join(projectRoot, '.venv-parquet');
/** Fetches both readers ahead of time (what `.ci/run` runs). */
export const INSTALL_COMMAND =
  'npx tsx test/support/reference-readers/reference-readers.ts --install';

/** What Apache Avro's Java library read from one file. */
export interface JavaAvroFile {
  readonly file: string;
  /** The writer's schema as `Schema.toString()` writes it. */
  readonly schema: string;
  readonly codec: string;
  /** `SchemaNormalization.fingerprint64` of the schema text, 16 hex digits. */
  readonly fingerprint: string;
  /** Each record in Avro's JSON encoding. */
  readonly records: readonly string[];
}

/** What pyarrow read from one Parquet file. */
export interface PyarrowFile {
  readonly file: string;
  readonly arrow_schema: string;
  readonly parquet_schema: string;
  readonly codec: string | null;
  readonly metadata_keys: readonly string[];
  /** The rows as pyarrow gives them to Python, made JSON (see parquet_dump.py). */
  readonly rows: readonly Record<string, unknown>[];
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Copies Apache Avro's jars into `.kafka/avro-reader-lib/` unless done for this pom. */
export async function ensureAvroJava(): Promise<string> {
  const stamp = join(
    AVRO_LIB,
    `.complete-${createHash('sha256')
      .update(await readFile(POM))
      .digest('hex')
      .slice(0, 16)}`,
  );
  if (await exists(stamp)) return AVRO_LIB;
  await rm(AVRO_LIB, { recursive: true, force: true });
  await mkdir(AVRO_LIB, { recursive: true });
  const args = [
    ...['-q', '-B', '-ntp', '-Dstyle.color=never', '-f', POM],
    'org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies',
  ];
  try {
    await run('mvn', [...args, `-DoutputDirectory=${AVRO_LIB}`], {
      timeout: 300_000,
      maxBuffer: 1 << 22,
    });
  } catch (error) {
    const out = `${(error as { stdout?: string }).stdout ?? ''}${(error as { stderr?: string }).stderr ?? ''}`;
    throw new Error(
      `Maven could not fetch Apache Avro's jars into ${AVRO_LIB} (needs mvn, Java 17+ and Maven Central; retry with \`${INSTALL_COMMAND}\`):\n${out}`,
      { cause: error },
    );
  }
  await writeFile(stamp, '');
  return AVRO_LIB;
}

/** Builds `.venv-parquet/` with pyarrow when missing or out of date; returns its python. */
export async function ensurePyarrow(): Promise<string> {
  const text = await readFile(join(here, 'requirements.txt'), 'utf8');
  const packages = text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line !== '');
  return ensurePythonVenv({ dir: PARQUET_VENV, packages, purpose: 'pyarrow (the Parquet reader)' });
}

/**
 * Both readers, fetched when missing (a first run takes about a minute: call it from a
 * `beforeAll`, whose timeout allows for that, rather than from a test).
 */
export async function ensureReferenceReaders(): Promise<void> {
  await Promise.all([ensureAvroJava(), ensurePyarrow()]);
}

/** Reads Avro object container files with Apache Avro's Java library. */
export async function readAvroFilesWithJava(paths: readonly string[]): Promise<JavaAvroFile[]> {
  const lib = await ensureAvroJava();
  const { stdout } = await run(
    'java',
    ['-cp', join(lib, '*'), join(here, 'AvroFileDump.java'), ...paths],
    { timeout: 120_000, maxBuffer: 1 << 26 },
  );
  return JSON.parse(stdout) as JavaAvroFile[];
}

/** Reads Parquet files with pyarrow. */
export async function readParquetFilesWithPyarrow(
  paths: readonly string[],
): Promise<PyarrowFile[]> {
  const python = await ensurePyarrow();
  const { stdout } = await run(python, [join(here, 'parquet_dump.py'), ...paths], {
    timeout: 120_000,
    maxBuffer: 1 << 26,
  });
  return JSON.parse(stdout) as PyarrowFile[];
}

if (process.argv.includes('--install')) {
  await ensureReferenceReaders();
  console.log(`Apache Avro's jars in ${AVRO_LIB}, pyarrow in ${PARQUET_VENV}`);
}
