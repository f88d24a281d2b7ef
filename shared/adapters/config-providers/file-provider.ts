/**
 * The `file` config provider, as Kafka's `FileConfigProvider`:
 * `${file:/opt/secrets/app.properties:db.password}` resolves to the key `db.password` of that
 * Java `.properties` file (read as UTF-8 at each resolution). The worker's
 * `config.providers.file.param.allowed.paths` (KIP-993) limits which files configs may read
 * (allowed-paths.ts: `..` and symbolic links resolved, `/proc` never).
 */
import { readFile } from 'node:fs/promises';
import type { ConfigProviderResolver } from '../../config/config-providers.js';
import { ConfigError } from '../../connect/errors.js';
import { AllowedPaths } from './allowed-paths.js';

/** The provider name configs use: `${file:/path:key}`. */
export const FILE_PROVIDER_NAME = 'file';

/** The worker setting the allowed directories come from, named as Kafka Connect names it. */
export const FILE_ALLOWED_PATHS_SETTING = 'config.providers.file.param.allowed.paths';

export interface FileConfigProviderOptions {
  /**
   * Absolute directories whose files may be read (Kafka's `allowed.paths`); any other path is
   * refused. Each must exist (a {@link ConfigError} otherwise).
   * @default every path but /proc
   */
  readonly allowedPaths?: readonly string[];
}

const SPACE = new Set([' ', '\t', '\f']);

function trailingBackslashes(line: string): number {
  let count = 0;
  while (count < line.length && line[line.length - 1 - count] === '\\') count++;
  return count;
}

/** Java `Properties.load` logical lines: comments and blank lines dropped, continuations joined. */
function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let buffer: string | undefined;
  for (const natural of text.split(/\r\n|\r|\n/)) {
    let start = 0;
    while (start < natural.length && SPACE.has(natural.charAt(start))) start++;
    let line = natural.slice(start);
    if (buffer === undefined && (line === '' || line[0] === '#' || line[0] === '!')) continue;
    if (buffer !== undefined && line === '') {
      lines.push(buffer);
      buffer = undefined;
      continue;
    }
    const continued = trailingBackslashes(line) % 2 === 1;
    if (continued) line = line.slice(0, -1);
    buffer = (buffer ?? '') + line;
    if (!continued) {
      lines.push(buffer);
      buffer = undefined;
    }
  }
  if (buffer !== undefined) lines.push(buffer);
  return lines;
}

const ESCAPES: Readonly<Record<string, string>> = { t: '\t', r: '\r', n: '\n', f: '\f' };

/** Java `Properties.loadConvert`: `\t \r \n \f`, `\uXXXX`, and `\x` → `x`. */
function loadConvert(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c !== '\\') {
      out += c;
      continue;
    }
    if (++i >= text.length) break;
    const next = text.charAt(i);
    if (next === 'u') {
      const hex = text.slice(i + 1, i + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new Error('Malformed \\uxxxx encoding.');
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += 4;
    } else {
      out += ESCAPES[next] ?? next;
    }
  }
  return out;
}

function splitKeyValue(line: string): [string, string] {
  let keyLen = 0;
  let valueStart = line.length;
  let hasSeparator = false;
  let precedingBackslash = false;
  while (keyLen < line.length) {
    const c = line.charAt(keyLen);
    if ((c === '=' || c === ':') && !precedingBackslash) {
      valueStart = keyLen + 1;
      hasSeparator = true;
      break;
    }
    if (SPACE.has(c) && !precedingBackslash) {
      valueStart = keyLen + 1;
      break;
    }
    precedingBackslash = c === '\\' ? !precedingBackslash : false;
    keyLen++;
  }
  while (valueStart < line.length) {
    const c = line.charAt(valueStart);
    if (!SPACE.has(c)) {
      if (!hasSeparator && (c === '=' || c === ':')) hasSeparator = true;
      else break;
    }
    valueStart++;
  }
  return [line.slice(0, keyLen), line.slice(valueStart)];
}

/**
 * Parses a Java `.properties` text as `java.util.Properties.load` does: `key=value`,
 * `key:value` or `key value`; `#`/`!` comment lines; backslash line continuations (leading
 * whitespace of the next line dropped); escapes `\t \n \r \f \uXXXX` and `\` before any other
 * char. Later duplicates win. Throws on a malformed `\uXXXX`.
 */
export function parseJavaProperties(text: string): Map<string, string> {
  const result = new Map<string, string>();
  for (const line of logicalLines(text)) {
    const [key, value] = splitKeyValue(line);
    result.set(loadConvert(key), loadConvert(value));
  }
  return result;
}

/**
 * Creates the `file` provider. An empty path resolves nothing; an unreadable or malformed
 * file, or a refused path, fails with a {@link ConfigError} naming the file (never its
 * content). Throws a {@link ConfigError} when an allowed directory is not absolute or missing.
 */
export function createFileConfigProvider(
  options: FileConfigProviderOptions = {},
): ConfigProviderResolver {
  const allowed = new AllowedPaths(options.allowedPaths, FILE_ALLOWED_PATHS_SETTING);
  return {
    async get(path, keys) {
      if (path === '') return {};
      const checked = await allowed.check(path);
      if (checked.outcome === 'refused') {
        throw new ConfigError(`The path ${path} is not allowed to be accessed: ${checked.reason}`);
      }
      let properties: Map<string, string>;
      try {
        if (checked.outcome === 'missing') throw new Error(`${path} does not exist`);
        properties = parseJavaProperties(await readFile(checked.realPath, 'utf8'));
      } catch (error) {
        const reason =
          error instanceof Error && error.message.startsWith('Malformed')
            ? `: ${error.message}`
            : '';
        throw new ConfigError(`Could not read properties from file ${path}${reason}`, undefined, {
          cause: error,
        });
      }
      const found: Record<string, string> = {};
      for (const key of keys) {
        const value = properties.get(key);
        if (value !== undefined) found[key] = value;
      }
      return found;
    },
    async refusal(path) {
      if (path === '') return undefined;
      const checked = await allowed.check(path);
      return checked.outcome === 'refused' ? checked.reason : undefined;
    },
  };
}
