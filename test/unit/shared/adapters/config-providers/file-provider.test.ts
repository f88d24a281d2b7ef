import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
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
  let root: string;
  let dir: string;
  let file: string;
  let outside: string;

  beforeAll(async () => {
    // Prepare: <root>/allowed/app.properties, and <root>/outside/secret.properties beside it
    root = await mkdtemp(join(tmpdir(), 'sc-file-provider-'));
    dir = join(root, 'allowed');
    file = join(dir, 'app.properties');
    outside = join(root, 'outside', 'secret.properties');
    await mkdir(join(dir, 'sub'), { recursive: true });
    await mkdir(join(root, 'outside'));
    await writeFile(file, '# secrets\ndb.user=app\ndb.password = s3cr3t\n', 'utf8');
    await writeFile(join(dir, 'bad.properties'), 'x=\\uZZZZ', 'utf8');
    await writeFile(outside, 'token=outside-secret\n', 'utf8');
    // A link inside the allowed directory to the file outside it, and one to the directory.
    await symlink(outside, join(dir, 'link.properties'));
    await symlink(join(root, 'outside'), join(dir, 'linked-dir'));
    // The allowed directory reached through a link of its own.
    await symlink(dir, join(root, 'allowed-link'));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
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
    const provider = createFileConfigProvider({ allowedPaths: [dir] });
    const missing = join(dir, 'missing.properties');
    await expect(provider.get(missing, new Set(['k']))).rejects.toThrow(
      `Could not read properties from file ${missing}`,
    );
    await expect(provider.refusal?.(missing, 'k')).resolves.toBeUndefined();
    await expect(provider.get(join(dir, 'bad.properties'), new Set(['x']))).rejects.toThrow(
      'Malformed \\uxxxx encoding.',
    );
  });

  it('reads files inside the allowed directories, also through .. that stays inside', async () => {
    // Prepare
    const provider = createFileConfigProvider({ allowedPaths: [dir] });
    const viaDotDot = join(dir, 'sub', '..', 'app.properties');

    // Act
    const direct = await provider.get(file, new Set(['db.user']));
    const dotted = await provider.get(viaDotDot, new Set(['db.user']));

    // Assess
    expect(direct).toEqual({ 'db.user': 'app' });
    expect(dotted).toEqual({ 'db.user': 'app' });
    await expect(provider.refusal?.(viaDotDot, 'db.user')).resolves.toBeUndefined();
  });

  it('refuses a file outside the allowed directories, naming the setting', async () => {
    const provider = createFileConfigProvider({ allowedPaths: [dir] });
    const reason = await provider.refusal?.(outside, 'token');
    const error = await provider.get(outside, new Set(['token'])).catch((e: unknown) => e);
    expect(reason).toBe(
      `the path ${outside} is outside the worker's config.providers.file.param.allowed.paths`,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      `The path ${outside} is not allowed to be accessed: ${reason}`,
    );
  });

  it('refuses a traversal out of an allowed directory with ..', async () => {
    const provider = createFileConfigProvider({ allowedPaths: [dir] });
    const traversal = `${dir}/../outside/secret.properties`;
    expect(await provider.refusal?.(traversal, 'token')).toContain('is outside the worker');
    await expect(provider.get(traversal, new Set(['token']))).rejects.toThrow(
      `The path ${traversal} is not allowed to be accessed`,
    );
  });

  it('refuses a symbolic link inside an allowed directory that leads out of it', async () => {
    // Prepare
    const provider = createFileConfigProvider({ allowedPaths: [dir] });
    const link = join(dir, 'link.properties');
    const throughDir = join(dir, 'linked-dir', 'secret.properties');

    // Act
    const reason = await provider.refusal?.(link, 'token');
    const error = await provider.get(link, new Set(['token'])).catch((e: unknown) => e);

    // Assess
    expect(reason).toBe(
      `the path ${link} leads through a symbolic link to ${outside}, which is outside the worker's config.providers.file.param.allowed.paths`,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain('outside-secret');
    expect(await provider.refusal?.(throughDir, 'token')).toContain('symbolic link');
  });

  it('allows an allowed directory given through a symbolic link, by either name', async () => {
    const provider = createFileConfigProvider({ allowedPaths: [join(root, 'allowed-link')] });
    expect(
      await provider.get(join(root, 'allowed-link', 'app.properties'), new Set(['db.user'])),
    ).toEqual({ 'db.user': 'app' });
    expect(await provider.get(file, new Set(['db.user']))).toEqual({ 'db.user': 'app' });
  });

  it('refuses a loop of symbolic links instead of failing', async () => {
    // Prepare
    const provider = createFileConfigProvider({ allowedPaths: [dir] });
    await symlink(join(dir, 'loop-b'), join(dir, 'loop-a'));
    await symlink(join(dir, 'loop-a'), join(dir, 'loop-b'));
    // Act + Assess
    expect(await provider.refusal?.(join(dir, 'loop-a'), 'k')).toBe(
      `the path ${join(dir, 'loop-a')} cannot be resolved (ELOOP)`,
    );
  });

  it('refuses a relative path when directories are allowed', async () => {
    const provider = createFileConfigProvider({ allowedPaths: [dir] });
    expect(await provider.refusal?.('app.properties', 'db.user')).toBe(
      'the path app.properties is not absolute',
    );
  });

  it('never reads /proc, whatever the allowed directories', async () => {
    for (const provider of [
      createFileConfigProvider(),
      createFileConfigProvider({ allowedPaths: ['/'] }),
    ]) {
      expect(await provider.refusal?.('/proc/self/environ', 'AWS_SECRET_ACCESS_KEY')).toContain(
        'is under /proc',
      );
      await expect(provider.get('/proc/self/environ', new Set(['PATH']))).rejects.toThrow(
        ConfigError,
      );
    }
  });

  it('refuses allowed directories that are relative or missing, as Kafka does', () => {
    expect(() => createFileConfigProvider({ allowedPaths: ['relative/dir'] })).toThrow(
      'Path relative/dir in config.providers.file.param.allowed.paths is not absolute',
    );
    expect(() => createFileConfigProvider({ allowedPaths: [join(root, 'nope')] })).toThrow(
      `Path ${join(root, 'nope')} in config.providers.file.param.allowed.paths does not exist`,
    );
  });
});
