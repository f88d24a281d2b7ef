import { execFile } from 'node:child_process';
import { access, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The Kafka Connect REST client from PyPI the end-to-end tests drive the local runtime with. */
export const KAFKA_CONNECT_PY = 'kafka-connect-py==1.0.0';

/** The project-local virtual environment of the end-to-end tests (git-ignored). */
export const E2E_VENV = join(projectRoot, '.venv-e2e');

const MARKER = '.serverless-connect-packages';

/** A project-managed virtual environment: where it lives and exactly what it holds. */
export interface PythonVenvSpec {
  /** Its folder (git-ignored, `.venv-*` at the project root). */
  readonly dir: string;
  /** Pinned `name==version` requirement specs, installed with pip from PyPI. */
  readonly packages: readonly string[];
  /** What needs it, for the message when no Python 3 is found. */
  readonly purpose: string;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** The Python 3 interpreter to build a venv with: PYTHON, else python3 on PATH. */
async function findPython(purpose: string): Promise<string> {
  const candidates = [process.env.PYTHON, 'python3', 'python'].filter(
    (c): c is string => c !== undefined && c !== '',
  );
  for (const candidate of candidates) {
    try {
      const { stdout } = await run(candidate, ['-c', 'import sys; print(sys.version_info[0])']);
      if (stdout.trim() === '3') return candidate;
    } catch {
      // try the next one
    }
  }
  throw new Error(
    `${purpose} needs Python 3 (with the venv module); install python3, or set PYTHON to one`,
  );
}

/**
 * The virtual environment `spec` describes, created and installed with pip on first use and
 * reused while its package list is the same (a marker file in the venv holds the list, written
 * only once pip succeeded, so an interrupted install is redone). Returns the venv's python.
 */
export async function ensurePythonVenv(spec: PythonVenvSpec): Promise<string> {
  const python = join(spec.dir, 'bin', 'python');
  const wanted = [...spec.packages].sort().join('\n');
  const marker = join(spec.dir, MARKER);
  if ((await exists(python)) && (await readFile(marker, 'utf8').catch(() => '')) === wanted) {
    return python;
  }
  const base = await findPython(spec.purpose);
  await run(base, ['-m', 'venv', '--clear', spec.dir], { timeout: 120_000 });
  try {
    await run(
      python,
      [
        '-m',
        'pip',
        'install',
        '--quiet',
        '--disable-pip-version-check',
        '--no-input',
        ...spec.packages,
      ],
      { timeout: 300_000, maxBuffer: 1 << 22 },
    );
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(
      `pip could not install ${spec.purpose}'s packages into ${spec.dir}:\n${stderr.trim().split('\n').slice(-15).join('\n')}`,
      { cause: error },
    );
  }
  await writeFile(marker, wanted);
  return python;
}
