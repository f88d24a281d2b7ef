import { describe, expect, it } from 'vitest';
import { RetriableError } from '../../../../../../shared/connect/errors.js';
import { uploadObject } from '../../../../../../shared/plugins/connectors/s3-sink/object-upload.js';
import {
  KnownObjects,
  type ObjectWriterSettings,
  type PendingObject,
  writeObject,
} from '../../../../../../shared/plugins/connectors/s3-sink/object-writer.js';
import { PreconditionFailedError } from '../../../../../../shared/plugins/connectors/s3-sink/s3-sink-client.js';
import { FakeS3Sink, sdkError, textOf } from './fakes.js';

const encoder = new TextEncoder();
const settings: ObjectWriterSettings = {
  bucket: 'bucket',
  compression: 'none',
  contentType: 'application/x-ndjson',
  partSize: 1024,
  conditionalWrites: true,
};

function pending(key: string, offsets: readonly number[]): PendingObject {
  return {
    key,
    entries: offsets.map((offset) => ({ offset, bytes: encoder.encode(`r${offset}\n`) })),
  };
}

/** Stores `key` holding `offsets` as another task instance would have written it. */
function storeWritten(s3: FakeS3Sink, key: string, offsets: readonly number[]): void {
  s3.store(key, encoder.encode(offsets.map((o) => `r${o}\n`).join('')), {
    'first-offset': String(offsets[0]),
    'last-offset': String(offsets[offsets.length - 1]),
    'record-count': String(offsets.length),
    'layout-version': '1',
  });
}

async function text(s3: FakeS3Sink, key: string, gzip = false): Promise<string> {
  return textOf(s3.objects.get(key)?.bytes ?? new Uint8Array(), gzip);
}

describe('writeObject optimistic create', () => {
  it('creates a new key with one conditional put and no read', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const known = new KnownObjects();

    // Act
    const outcome = await writeObject(s3, settings, pending('o', [4, 5]), known);

    // Assess
    expect(outcome).toEqual({ kind: 'created', appended: 2, method: { kind: 'put' } });
    expect(s3.calls).toEqual([{ kind: 'put', key: 'o', condition: { kind: 'create' } }]);
    expect(await text(s3, 'o')).toBe('r4\nr5\n');
    expect(s3.objects.get('o')?.metadata).toEqual({
      'first-offset': '4',
      'last-offset': '5',
      'record-count': '2',
      'layout-version': '1',
    });
    expect(known.has('o')).toBe(true);
  });

  it('reads and appends under If-Match when the create finds the key taken', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    storeWritten(s3, 'o', [0, 1, 2]);
    const etag = s3.objects.get('o')?.etag;

    // Act
    const outcome = await writeObject(s3, settings, pending('o', [2, 3]), new KnownObjects());

    // Assess
    expect(outcome).toEqual({ kind: 'appended', appended: 1, method: { kind: 'put' } });
    expect(s3.calls).toEqual([
      { kind: 'put', key: 'o', condition: { kind: 'create' } },
      { kind: 'get', key: 'o' },
      { kind: 'put', key: 'o', condition: { kind: 'replace', etag } },
    ]);
    expect(await text(s3, 'o')).toBe('r0\nr1\nr2\nr3\n');
    expect(s3.objects.get('o')?.metadata).toMatchObject({
      'first-offset': '0',
      'last-offset': '3',
      'record-count': '4',
    });
  });

  it('falls back to reading on a 409 ConditionalRequestConflict', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    s3.failures.set('put', [sdkError('ConditionalRequestConflict', 409, 'client')]);

    // Act
    const outcome = await writeObject(s3, settings, pending('o', [0]), new KnownObjects());

    // Assess
    expect(outcome).toMatchObject({ kind: 'created', appended: 1 });
    expect(s3.calls.map((c) => c.kind)).toEqual(['put', 'get', 'put']);
    expect(await text(s3, 'o')).toBe('r0\n');
  });

  it('appends to an object it wrote from what it wrote, under If-Match and without a read', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const known = new KnownObjects();
    await writeObject(s3, settings, pending('o', [0, 1]), known);
    const etag = s3.objects.get('o')?.etag;
    s3.calls.length = 0;

    // Act
    const appended = await writeObject(s3, settings, pending('o', [2]), known);
    const unchanged = await writeObject(s3, settings, pending('o', [1, 2]), known);

    // Assess
    expect(appended).toEqual({ kind: 'appended', appended: 1, method: { kind: 'put' } });
    expect(unchanged).toEqual({ kind: 'unchanged' });
    expect(s3.calls).toEqual([{ kind: 'put', key: 'o', condition: { kind: 'replace', etag } }]);
    expect(await text(s3, 'o')).toBe('r0\nr1\nr2\n');
    expect(s3.objects.get('o')?.metadata).toEqual({
      'first-offset': '0',
      'last-offset': '2',
      'record-count': '3',
      'layout-version': '1',
    });
  });

  it('reads and appends when another writer changed an object it wrote (If-Match refused)', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const known = new KnownObjects();
    await writeObject(s3, settings, pending('o', [0]), known);
    const stale = s3.objects.get('o')?.etag;
    storeWritten(s3, 'o', [0, 1, 2]);
    const current = s3.objects.get('o')?.etag;
    s3.calls.length = 0;

    // Act
    const outcome = await writeObject(s3, settings, pending('o', [1, 2, 3]), known);
    const next = await writeObject(s3, settings, pending('o', [4]), known);

    // Assess
    expect(outcome).toEqual({ kind: 'appended', appended: 1, method: { kind: 'put' } });
    expect(next).toMatchObject({ kind: 'appended', appended: 1 });
    expect(s3.calls.slice(0, 3)).toEqual([
      { kind: 'put', key: 'o', condition: { kind: 'replace', etag: stale } },
      { kind: 'get', key: 'o' },
      { kind: 'put', key: 'o', condition: { kind: 'replace', etag: current } },
    ]);
    expect(s3.calls.slice(3).map((c) => c.kind)).toEqual(['put']);
    expect(await text(s3, 'o')).toBe('r0\nr1\nr2\nr3\nr4\n');
  });

  it('re-creates, after a read, an object it wrote that was deleted since', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const known = new KnownObjects();
    await writeObject(s3, settings, pending('o', [0]), known);
    s3.objects.delete('o');
    s3.calls.length = 0;

    // Act
    const outcome = await writeObject(s3, settings, pending('o', [0, 1]), known);

    // Assess
    expect(outcome).toMatchObject({ kind: 'created', appended: 2 });
    expect(s3.calls.map((c) => c.kind)).toEqual(['put', 'get', 'put']);
    expect(await text(s3, 'o')).toBe('r0\nr1\n');
  });

  it('reads first, without a wasted put, for a key known to exist without its bytes', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    storeWritten(s3, 'o', [0, 1]);
    const known = new KnownObjects(10, 0); // no budget: keys only
    await writeObject(s3, settings, pending('o', [2]), known);
    s3.calls.length = 0;

    // Act
    const appended = await writeObject(s3, settings, pending('o', [3]), known);

    // Assess
    expect(appended).toMatchObject({ kind: 'appended', appended: 1 });
    expect(s3.calls.map((c) => c.kind)).toEqual(['get', 'put']);
    expect(s3.calls[1]?.condition?.kind).toBe('replace');
    expect(await text(s3, 'o')).toBe('r0\nr1\nr2\nr3\n');
  });

  it('appends without a read after the fallback read and write', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    storeWritten(s3, 'o', [0]);
    const known = new KnownObjects();
    await writeObject(s3, settings, pending('o', [1]), known);
    s3.calls.length = 0;

    // Act
    await writeObject(s3, settings, pending('o', [2]), known);

    // Assess
    expect(s3.calls.map((c) => c.kind)).toEqual(['put']);
    expect(await text(s3, 'o')).toBe('r0\nr1\nr2\n');
  });

  it('keeps the bytes of multipart objects nowhere, so appending to them reads first', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const known = new KnownObjects();
    const small = { ...settings, partSize: 4 };
    await writeObject(s3, small, pending('o', [0, 1, 2]), known);
    s3.calls.length = 0;

    // Act
    await writeObject(s3, small, pending('o', [3]), known);

    // Assess
    expect(s3.calls[0]?.kind).toBe('get');
    expect(await text(s3, 'o')).toBe('r0\nr1\nr2\nr3\n');
  });

  it('always reads first, and writes unconditionally, with conditional writes off', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const off = { ...settings, conditionalWrites: false };
    const known = new KnownObjects();

    // Act
    await writeObject(s3, off, pending('o', [0]), known);
    storeWritten(s3, 'p', [0]);
    await writeObject(s3, off, pending('p', [0, 1]), known);

    // Assess
    expect(s3.calls).toEqual([
      { kind: 'get', key: 'o' },
      { kind: 'put', key: 'o', condition: { kind: 'none' } },
      { kind: 'get', key: 'p' },
      { kind: 'put', key: 'p', condition: { kind: 'none' } },
    ]);
    expect(await text(s3, 'p')).toBe('r0\nr1\n');
  });

  it('aborts a multipart create over an existing object, then appends to it', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    storeWritten(s3, 'o', [0, 1]);
    const small = { ...settings, partSize: 4 };

    // Act
    const outcome = await writeObject(s3, small, pending('o', [1, 2, 3]), new KnownObjects());

    // Assess
    expect(outcome).toMatchObject({ kind: 'appended', appended: 2, method: { kind: 'multipart' } });
    expect(s3.calls.filter((c) => c.kind === 'complete').map((c) => c.condition?.kind)).toEqual([
      'create',
      'replace',
    ]);
    expect(s3.count('abort')).toBe(1);
    expect(s3.uploads.size).toBe(0);
    expect(await text(s3, 'o')).toBe('r0\nr1\nr2\nr3\n');
  });

  it('does not read after a create that failed for another reason', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    s3.failures.set('put', [sdkError('SlowDown', 503, 'server')]);

    // Act
    const write = writeObject(s3, settings, pending('o', [0]), new KnownObjects());

    // Assess
    await expect(write).rejects.toBeInstanceOf(RetriableError);
    await expect(write).rejects.not.toBeInstanceOf(PreconditionFailedError);
    expect(s3.count('get')).toBe(0);
  });

  it('fails retriably when another writer creates the key between the fallback read and write', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    s3.failures.set('put', [sdkError('ConditionalRequestConflict', 409, 'client')]);
    s3.afterGet = (key) => {
      s3.afterGet = null;
      storeWritten(s3, key, [0]);
    };

    // Act
    const write = writeObject(s3, settings, pending('o', [0, 1]), new KnownObjects());

    // Assess
    await expect(write).rejects.toBeInstanceOf(PreconditionFailedError);
    expect(await text(s3, 'o')).toBe('r0\n');
  });
});

describe('uploadObject preconditions', () => {
  it('aborts the multipart upload and rejects with PreconditionFailedError on a 412 completion', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    s3.store('k', encoder.encode('old'), {});
    const target = { bucket: 'bucket', key: 'k', metadata: {}, contentType: 'text/plain' };
    const content = new Blob(['abcdefghij']).stream();

    // Act
    const upload = uploadObject(s3, target, content, { kind: 'create' }, 4);

    // Assess
    await expect(upload).rejects.toBeInstanceOf(PreconditionFailedError);
    expect(s3.count('abort')).toBe(1);
    expect(s3.uploads.size).toBe(0);
    expect(await text(s3, 'k')).toBe('old');
  });
});

describe('KnownObjects', () => {
  it('forgets the least recently used key beyond its capacity', () => {
    // Prepare
    const known = new KnownObjects(2);
    known.add('a');
    known.add('b');

    // Act
    known.has('a');
    known.add('c');

    // Assess
    expect([known.has('a'), known.has('b'), known.has('c')]).toEqual([true, false, true]);
    expect(known.size).toBe(2);
  });

  it('keeps the bytes of the most recently used objects within its byte budget', () => {
    // Prepare
    const known = new KnownObjects(10, 10);
    const written = (n: number) => ({
      etag: `"${n}"`,
      offsets: { firstOffset: 0, lastOffset: 0, recordCount: 1 },
      bytes: new Uint8Array(n),
    });

    // Act
    known.add('a', written(4));
    known.add('b', written(4));
    known.written('a');
    known.add('c', written(4));
    known.add('huge', written(11));

    // Assess
    expect(known.written('b')).toBeUndefined();
    expect(known.has('b')).toBe(true);
    expect(known.written('a')?.etag).toBe('"4"');
    expect(known.written('c')?.etag).toBe('"4"');
    expect(known.written('huge')).toBeUndefined();
    expect(known.has('huge')).toBe(true);
    expect(known.contentBytes).toBe(8);
    known.delete('a');
    expect(known.contentBytes).toBe(4);
  });

  it('holds 10,000 keys by default', () => {
    // Prepare
    const known = new KnownObjects();

    // Act
    for (let i = 0; i <= 10_000; i++) known.add(`k${i}`);

    // Assess
    expect(known.size).toBe(10_000);
    expect(known.has('k0')).toBe(false);
    expect(known.has('k10000')).toBe(true);
  });
});
