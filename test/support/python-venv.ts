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

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** The Python 3 interpreter to build the venv with: PYTHON, else python3 on PATH. */
async function findPython(): Promise<string> {
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
    'The end-to-end tests need Python 3 (with the venv module) to install kafka-connect-py; install python3, or set PYTHON to one',
  );
}

/**
 * A virtual environment at `dir` holding exactly `packages` (pinned `name==version` specs),
 * created and installed with pip from PyPI on first use and reused while the package list is
 * the same. Returns the venv's python.
 */
export async function ensurePythonVenv(
  packages: readonly string[] = [KAFKA_CONNECT_PY],
  dir: string = E2E_VENV,
): Promise<string> {
  const python = join(dir, 'bin', 'python');
  const wanted = [...packages].sort().join('\n');
  const marker = join(dir, MARKER);
  if ((await exists(python)) && (await readFile(marker, 'utf8').catch(() => '')) === wanted) {
    return python;
  }
  const base = await findPython();
  await run(base, ['-m', 'venv', '--clear', dir], { timeout: 120_000 });
  await run(
    python,
    ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-input', ...packages],
    { timeout: 300_000, maxBuffer: 1 << 22 },
  );
  await writeFile(marker, wanted);
  return python;
}
