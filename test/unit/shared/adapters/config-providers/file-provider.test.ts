import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFileConfigProvider,
  parseJavaProperties,
} from '../../../../../shared/adapters/config-providers/file-provider.js';
import { resolvePlaceholders } from '../../../../../shared/config/config-providers.js';
import { ConfigError } from '../../../../../shared/connect/errors.js';

describe('parseJavaProperties', () => {
  it('reads key=value, key:value and key value pairs, trimming around separators', () => {
    const props = parseJavaProperties('a=1\nb : 2\nc 3\n  d=  4  \ne\n');
    expect(Object.fromEntries(props)).toEqual({ a: '1', b: '2', c: '3', d: '4  ', e: '' });
  });

  it('skips comments and blank lines', () => {
    const props = parseJavaProperties('# comment\n! also comment\n\n   \n\tx=1\n#y=2');
    expect(Object.fromEntries(props)).toEqual({ x: '1' });
  });

  it('joins continuation lines, dropping their leading whitespace', () => {
    const props = parseJavaProperties('list=a,\\\n    b,\\\r\n    c\nnext=1');
    expect(Object.fromEntries(props)).toEqual({ list: 'a,b,c', next: '1' });
  });

  it('does not continue after an even number of trailing backslashes', () => {
    const props = parseJavaProperties('path=C:\\\\\nnext=1');
    expect(Object.fromEntries(props)).toEqual({ path: 'C:\\', next: '1' });
  });

  it('ends a continuation at a blank line and at end of input', () => {
    expect(Object.fromEntries(parseJavaProperties('a=1\\\n\nb=2'))).toEqual({ a: '1', b: '2' });
    expect(Object.fromEntries(parseJavaProperties('a=1\\'))).toEqual({ a: '1' });
  });

  it('decodes escapes in keys and values', () => {
    const props = parseJavaProperties('key\\ with\\=sep\\:s=tab\\there\\nnew\\u00e9\\\\\\#');
    expect(Object.fromEntries(props)).toEqual({ 'key with=sep:s': 'tab\there\nnewé\\#' });
  });

  it('lets later duplicates win and keeps # inside values', () => {
    const props = parseJavaProperties('a=1\na=2#not-a-comment');
    expect(props.get('a')).toBe('2#not-a-comment');
  });

  it('rejects a malformed unicode escape', () => {
    expect(() => parseJavaProperties('a=\\u12')).toThrow('Malformed \\uxxxx encoding.');
  });
});

describe('createFileConfigProvider', () => {
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sc-file-provider-'));
    file = join(dir, 'app.properties');
    await writeFile(file, '# secrets\ndb.user=app\ndb.password = s3cr3t\n', 'utf8');
    await writeFile(join(dir, 'bad.properties'), 'x=\\uZZZZ', 'utf8');
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('resolves keys of a properties file through placeholders', async () => {
    // Prepare
    const providers = { file: createFileConfigProvider() };

    // Act
    const resolved = await resolvePlaceholders(
      {
        'connection.user': `\${file:${file}:db.user}`,
        'connection.password': `\${file:${file}:db.password}`,
      },
      providers,
    );

    // Assess
    expect(resolved).toEqual({ 'connection.user': 'app', 'connection.password': 's3cr3t' });
  });

  it('returns only the requested keys it has', async () => {
    const provider = createFileConfigProvider();
    expect(await provider.get(file, new Set(['db.user', 'missing']))).toEqual({ 'db.user': 'app' });
    expect(await provider.get('', new Set(['db.user']))).toEqual({});
  });

  it('fails with the file name only when the file cannot be read', async () => {
    const provider = createFileConfigProvider();
    const missing = join(dir, 'missing.properties');
    await expect(provider.get(missing, new Set(['k']))).rejects.toThrow(
      `Could not read properties from file ${missing}`,
    );
    await expect(provider.get(join(dir, 'bad.properties'), new Set(['x']))).rejects.toThrow(
      'Malformed \\uxxxx encoding.',
    );
  });

  it('refuses paths outside the allowed directories', async () => {
    const provider = createFileConfigProvider({ allowedPaths: [join(dir, 'sub')] });
    const error = await provider.get(file, new Set(['db.user'])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(`The path ${file} is not allowed to be accessed`);
    const allowed = createFileConfigProvider({ allowedPaths: [dir] });
    expect(
      await allowed.get(join(dir, 'sub', '..', 'app.properties'), new Set(['db.user'])),
    ).toEqual({
      'db.user': 'app',
    });
  });
});
