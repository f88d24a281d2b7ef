/**
 * Which files config providers may read: the worker's `allowed.paths` (Kafka's `AllowedPaths`,
 * KIP-993), a comma-separated list of absolute directories. A path is allowed when it lies inside
 * one of them after `..` segments are removed (Kafka's `Path.normalize`) and, unlike Kafka,
 * also after symbolic links are resolved (the real path of the file and of each directory), so
 * a link inside an allowed directory cannot lead out of it. The real path checked is the path
 * then read. `/proc` is never readable, whatever the setting: it holds this process's
 * environment (`/proc/self/environ`, with the AWS credentials in Lambda) and memory.
 */
import { realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { ConfigError } from '../../connect/errors.js';

/** Directories never readable, whatever `allowed.paths` says. */
const DENIED_ROOTS: readonly string[] = ['/proc'];

/** What {@link AllowedPaths.check} found for a path. */
export type PathCheck =
  /** May be read: `realPath` is the file, links resolved. */
  | { readonly outcome: 'allowed'; readonly realPath: string }
  /** The file does not exist (or a parent is not a directory). */
  | { readonly outcome: 'missing' }
  /** Refused by the policy, with the reason (no file content, ever). */
  | { readonly outcome: 'refused'; readonly reason: string };

function inside(dir: string, target: string): boolean {
  const rel = relative(dir, target);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function missing(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** An allowed directory as given (normalised) and as it really is (links resolved). */
interface AllowedDir {
  readonly given: string;
  readonly real: string;
}

/** The policy of one provider; see the module notes. */
export class AllowedPaths {
  readonly #setting: string;
  readonly #dirs: readonly AllowedDir[] | undefined;

  /**
   * @param dirs the allowed directories, absolute and existing; `undefined` allows every path
   *   (Kafka's default) but `/proc`.
   * @param setting the worker setting they come from, named in messages.
   * @throws ConfigError when a directory is not absolute or does not exist (as Kafka does).
   */
  constructor(dirs: readonly string[] | undefined, setting: string) {
    this.#setting = setting;
    this.#dirs = dirs?.map((dir) => {
      if (!isAbsolute(dir)) {
        throw new ConfigError(`Path ${dir} in ${setting} is not absolute`, setting);
      }
      const given = resolve(dir);
      try {
        return { given, real: realpathSync(given) };
      } catch (error) {
        throw new ConfigError(`Path ${given} in ${setting} does not exist`, setting, {
          cause: error,
        });
      }
    });
  }

  /** Whether `path` may be read, and the real path to read. Reads no file content. */
  async check(path: string): Promise<PathCheck> {
    if (this.#dirs !== undefined && !isAbsolute(path)) {
      return this.#refused(`the path ${path} is not absolute`);
    }
    const normal = resolve(path);
    const lexical = this.#refusal(normal, ['given', 'real']);
    if (lexical !== undefined) return this.#refused(`the path ${path} ${lexical}`);
    let real: string;
    try {
      real = await realpath(normal);
    } catch (error) {
      if (missing(error)) return { outcome: 'missing' };
      // A loop of links, a folder this process may not enter: nothing it could read.
      const code = String((error as { code?: unknown }).code ?? 'an error');
      return this.#refused(`the path ${path} cannot be resolved (${code})`);
    }
    const linked = this.#refusal(real, ['real']);
    if (linked !== undefined) {
      return this.#refused(
        `the path ${path} leads through a symbolic link to ${real}, which ${linked}`,
      );
    }
    return { outcome: 'allowed', realPath: real };
  }

  /** Why `path` is refused, checked against the directories' `forms`; undefined if allowed. */
  #refusal(path: string, forms: readonly (keyof AllowedDir)[]): string | undefined {
    if (DENIED_ROOTS.some((root) => inside(root, path))) {
      return 'is under /proc, which holds this process’s environment and is never readable';
    }
    const allowed = (dir: AllowedDir) => forms.some((form) => inside(dir[form], path));
    if (this.#dirs === undefined || this.#dirs.some(allowed)) return undefined;
    return `is outside the worker's ${this.#setting}`;
  }

  #refused(reason: string): PathCheck {
    return { outcome: 'refused', reason };
  }
}
