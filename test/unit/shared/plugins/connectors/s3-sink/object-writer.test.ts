import { describe, expect, it } from 'vitest';
import { ConnectError, RetriableError } from '../../../../../../shared/connect/errors.js';
import {
  bucketStart,
  objectKey,
  padOffset,
} from '../../../../../../shared/plugins/connectors/s3-sink/object-naming.js';
import { uploadObject } from '../../../../../../shared/plugins/connectors/s3-sink/object-upload.js';
import {
  KnownObjects,
  type ObjectWriterSettings,
  type PendingObject,
  writeObject,
} from '../../../../../../shared/plugins/connectors/s3-sink/object-writer.js';
import { FakeS3Sink, sdkError, textOf } from './fakes.js';

const encoder = new TextEncoder();
const settings: ObjectWriterSettings = {
  bucket: 'bucket',
  compression: 'none',
  contentType: 'application/x-ndjson',
  partSize: 1024,
  conditionalWrites: true,
};
const target = { bucket: 'bucket', key: 'k', metadata: { a: '1' }, contentType: 'text/plain' };

function pending(key: string, offsets: readonly number[]): PendingObject {
  return {
    key,
    entries: offsets.map((offset) => ({ offset, bytes: encoder.encode(`r${offset}\n`) })),
  };
}

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c));
      controller.close();
    },
  });
}

describe('object naming', () => {
  it('aligns buckets on flush.size and pads start offsets to 20 digits', () => {
    // Act
    const starts = [0, 99, 100, 250].map((o) => bucketStart(o, 100));
    const key = objectKey({
      topicsDir: 'topics',
      directoryTopic: 'orders',
      encodedPartition: 'partition=3',
      topic: 'orders',
      kafkaPartition: 3,
      bucketStart: 2000,
      extension: '.json.gz',
    });

    // Assess
    expect(starts).toEqual([0, 0, 100, 200]);
    expect(padOffset(9_007_199_254_740_991)).toBe('00009007199254740991');
    expect(key).toBe('topics/orders/partition=3/orders+3+00000000000000002000.json.gz');
  });

  it('leaves out an empty topics.dir', () => {
    // Act
    const key = objectKey({
      topicsDir: '',
      directoryTopic: 'renamed',
      encodedPartition: 'region=eu',
      topic: 'orders',
      kafkaPartition: 0,
      bucketStart: 0,
      extension: '.bin',
    });

    // Assess
    expect(key).toBe('renamed/region=eu/orders+0+00000000000000000000.bin');
  });
});

describe('uploadObject', () => {
  it('writes content up to the part size in one PutObject', async () => {
    // Prepare
    const s3 = new FakeS3Sink();

    // Act
    const upload = await uploadObject(s3, target, streamOf('abc', 'def'), { kind: 'create' }, 6);

    // Assess
    expect(upload.method).toEqual({ kind: 'put' });
    expect(upload.stored?.etag).toBe(s3.objects.get('k')?.etag);
    expect(await textOf(upload.stored?.bytes ?? new Uint8Array())).toBe('abcdef');
    expect(await textOf(s3.objects.get('k')?.bytes ?? new Uint8Array())).toBe('abcdef');
    expect(s3.objects.get('k')?.metadata).toEqual({ a: '1' });
  });

  it('joins content given as chunks into one PutObject, or streams it past the part size', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const chunks = ['ab', 'cd', 'e'].map((c) => encoder.encode(c));

    // Act
    const small = await uploadObject(s3, target, chunks, { kind: 'create' }, 5);
    const large = await uploadObject(s3, { ...target, key: 'l' }, chunks, { kind: 'none' }, 2);

    // Assess
    expect(small.method).toEqual({ kind: 'put' });
    expect(await textOf(small.stored?.bytes ?? new Uint8Array())).toBe('abcde');
    expect(large).toEqual({ method: { kind: 'multipart', parts: 3 } });
    expect(await textOf(s3.objects.get('l')?.bytes ?? new Uint8Array())).toBe('abcde');
    expect(s3.calls.map((c) => c.kind)).toEqual([
      'put',
      'create',
      'part',
      'part',
      'part',
      'complete',
    ]);
  });

  it('streams larger content as parts of exactly the part size', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const parts: number[] = [];
    const uploadPart = s3.uploadPart.bind(s3);
    s3.uploadPart = async (b, k, id, n, body) => {
      parts.push(body.length);
      return uploadPart(b, k, id, n, body);
    };

    // Act
    const upload = await uploadObject(
      s3,
      target,
      streamOf('abcd', 'efghij', 'k'),
      { kind: 'none' },
      4,
    );

    // Assess
    expect(upload).toEqual({ method: { kind: 'multipart', parts: 3 } });
    expect(parts).toEqual([4, 4, 3]);
    expect(await textOf(s3.objects.get('k')?.bytes ?? new Uint8Array())).toBe('abcdefghijk');
    expect(s3.objects.get('k')?.metadata).toEqual({ a: '1' });
  });

  it('aborts the multipart upload and keeps the old object when a part fails', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    s3.store('k', encoder.encode('old'), {});
    s3.failures.set('part', [new Error('socket hang up')]);

    // Act
    const upload = uploadObject(s3, target, streamOf('abcdefgh'), { kind: 'none' }, 4);

    // Assess
    await expect(upload).rejects.toBeInstanceOf(RetriableError);
    expect(s3.count('abort')).toBe(1);
    expect(s3.uploads.size).toBe(0);
    expect(await textOf(s3.objects.get('k')?.bytes ?? new Uint8Array())).toBe('old');
  });

  it('cancels the content and fails retriably when the content stream breaks', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error('ECONNRESET'));
      },
    });

    // Act
    const upload = uploadObject(s3, target, broken, { kind: 'none' }, 4);

    // Assess
    await expect(upload).rejects.toBeInstanceOf(RetriableError);
    expect(s3.objects.size).toBe(0);
  });
});

/** The known keys of each fake, as if each fake were used by one task instance. */
const knownByClient = new WeakMap<FakeS3Sink, KnownObjects>();

/** `writeObject` by the task instance owning `s3`. */
function writeAs(s3: FakeS3Sink, writerSettings: ObjectWriterSettings, object: PendingObject) {
  let known = knownByClient.get(s3);
  if (known === undefined) {
    known = new KnownObjects();
    knownByClient.set(s3, known);
  }
  return writeObject(s3, writerSettings, object, known);
}

describe('writeObject', () => {
  it('creates an object with its offsets in the metadata', async () => {
    // Prepare
    const s3 = new FakeS3Sink();

    // Act
    const outcome = await writeAs(s3, settings, pending('o', [3, 5, 8]));

    // Assess
    expect(outcome).toEqual({ kind: 'created', appended: 3, method: { kind: 'put' } });
    expect(await textOf(s3.objects.get('o')?.bytes ?? new Uint8Array())).toBe('r3\nr5\nr8\n');
    expect(s3.objects.get('o')?.metadata).toEqual({
      'first-offset': '3',
      'last-offset': '8',
      'record-count': '3',
      'layout-version': '1',
    });
  });

  it('appends only the records above last-offset and leaves a fully written object alone', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    await writeAs(s3, settings, pending('o', [0, 1, 2]));

    // Act
    const appended = await writeAs(s3, settings, pending('o', [1, 2, 3, 4]));
    const puts = s3.count('put');
    const unchanged = await writeAs(s3, settings, pending('o', [2, 3, 4]));

    // Assess
    expect(appended).toMatchObject({ kind: 'appended', appended: 2 });
    expect(unchanged).toEqual({ kind: 'unchanged' });
    expect(s3.count('put')).toBe(puts);
    expect(await textOf(s3.objects.get('o')?.bytes ?? new Uint8Array())).toBe(
      'r0\nr1\nr2\nr3\nr4\n',
    );
    expect(s3.objects.get('o')?.metadata).toMatchObject({
      'first-offset': '0',
      'last-offset': '4',
      'record-count': '5',
    });
  });

  it('re-compresses the whole object as one gzip member when appending', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const gzip = { ...settings, compression: 'gzip' as const };
    await writeAs(s3, gzip, pending('o.gz', [0, 1]));

    // Act
    await writeAs(s3, gzip, pending('o.gz', [1, 2]));
    const clean = new FakeS3Sink();
    await writeAs(clean, gzip, pending('o.gz', [0, 1, 2]));

    // Assess
    const bytes = s3.objects.get('o.gz')?.bytes ?? new Uint8Array();
    expect(await textOf(bytes, true)).toBe('r0\nr1\nr2\n');
    expect(bytes).toEqual(clean.objects.get('o.gz')?.bytes);
  });

  it('fails retriably when another writer changed the object since it was read', async () => {
    // Prepare: an object of another writer, so this one reads it before appending
    const s3 = new FakeS3Sink();
    s3.store('o', encoder.encode('r0\n'), {
      'first-offset': '0',
      'last-offset': '0',
      'record-count': '1',
    });
    s3.afterGet = (key) => {
      s3.afterGet = null;
      s3.store(key, encoder.encode('r0\nr1\n'), {
        'first-offset': '0',
        'last-offset': '1',
        'record-count': '2',
      });
    };

    // Act
    const write = writeAs(s3, settings, pending('o', [0, 1, 2]));

    // Assess
    await expect(write).rejects.toBeInstanceOf(RetriableError);
    expect(await textOf(s3.objects.get('o')?.bytes ?? new Uint8Array())).toBe('r0\nr1\n');
  });

  it('refuses to overwrite an object without the sink metadata', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    s3.store('o', encoder.encode('foreign'), { owner: 'someone' });

    // Act
    const write = writeAs(s3, settings, pending('o', [0]));

    // Assess
    await expect(write).rejects.toThrow(ConnectError);
    await expect(write).rejects.not.toBeInstanceOf(RetriableError);
    expect(await textOf(s3.objects.get('o')?.bytes ?? new Uint8Array())).toBe('foreign');
  });

  it('reads objects without a layout version as version 1 and refuses unknown versions', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    const offsets = { 'first-offset': '0', 'last-offset': '0', 'record-count': '1' };
    s3.store('v1', encoder.encode('r0\n'), offsets);
    s3.store('v2', encoder.encode('r0\n'), { ...offsets, 'layout-version': '2' });

    // Act
    const appended = await writeAs(s3, settings, pending('v1', [0, 1]));
    const refused = writeAs(s3, settings, pending('v2', [0, 1]));

    // Assess
    expect(appended).toMatchObject({ kind: 'appended', appended: 1 });
    expect(await textOf(s3.objects.get('v1')?.bytes ?? new Uint8Array())).toBe('r0\nr1\n');
    await expect(refused).rejects.toThrow('is not the S3 sink');
  });

  it('reports invalid gzip in an existing object as a non-retriable error', async () => {
    // Prepare
    const s3 = new FakeS3Sink();
    s3.store('o.gz', encoder.encode('not gzip at all'), {
      'first-offset': '0',
      'last-offset': '0',
      'record-count': '1',
    });

    // Act
    const write = writeAs(s3, { ...settings, compression: 'gzip' }, pending('o.gz', [1]));

    // Assess
    await expect(write).rejects.toThrow('holds invalid gzip data');
    await expect(write).rejects.not.toBeInstanceOf(RetriableError);
  });

  it('maps S3 access and bucket errors to non-retriable errors and throttling to retriable', async () => {
    // Prepare
    const denied = new FakeS3Sink();
    denied.failures.set('put', [sdkError('AccessDenied', 403, 'client')]);
    const throttled = new FakeS3Sink();
    throttled.failures.set('put', [sdkError('SlowDown', 503, 'server')]);
    const missing = new FakeS3Sink('other-bucket');

    // Act
    const results = await Promise.allSettled([
      writeAs(denied, settings, pending('o', [0])),
      writeAs(throttled, settings, pending('o', [0])),
      writeAs(missing, settings, pending('o', [0])),
    ]);

    // Assess
    const retriable = results.map((r) =>
      r.status === 'rejected' ? (r.reason as ConnectError).retriable : 'resolved',
    );
    expect(retriable).toEqual([false, true, false]);
  });
});
