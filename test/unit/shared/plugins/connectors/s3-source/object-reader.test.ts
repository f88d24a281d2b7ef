import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ConnectError,
  DataError,
  RetriableError,
} from '../../../../../../shared/connect/errors.js';
import {
  compressionOf,
  decompress,
  LineReader,
  listAll,
  toConnectError,
} from '../../../../../../shared/plugins/connectors/s3-source/object-reader.js';
import { chunkedStream, FakeS3, gzip } from './fakes.js';

const encoder = new TextEncoder();

async function readAll(reader: LineReader): Promise<string[]> {
  const out: string[] = [];
  for (let line = await reader.next(); line !== null; line = await reader.next()) out.push(line);
  return out;
}

function linesOf(text: string | Uint8Array, chunkSize: number): Promise<string[]> {
  const bytes = typeof text === 'string' ? encoder.encode(text) : text;
  return readAll(new LineReader(chunkedStream(bytes, chunkSize)));
}

describe('LineReader', () => {
  it('splits lines on \\n and \\r\\n whatever the chunk boundaries', async () => {
    // Prepare
    const text = 'alpha\nbeta\r\ngamma\r\ndelta\n';

    // Act
    const bySize = await Promise.all([1, 2, 3, 5, 6, 100].map((size) => linesOf(text, size)));

    // Assess
    for (const lines of bySize) expect(lines).toEqual(['alpha', 'beta', 'gamma', 'delta']);
  });

  it('returns a last line that has no newline', async () => {
    // Act
    const lines = await linesOf('one\ntwo\r\nthree', 4);

    // Assess
    expect(lines).toEqual(['one', 'two', 'three']);
  });

  it('keeps empty lines in between but adds none after a final newline', async () => {
    // Act
    const lines = await linesOf('a\n\n\r\nb\n', 3);

    // Assess
    expect(lines).toEqual(['a', '', '', 'b']);
  });

  it('returns no line for an empty stream', async () => {
    // Act
    const lines = await linesOf('', 3);

    // Assess
    expect(lines).toEqual([]);
  });

  it('decodes multi-byte UTF-8 characters split across chunks and drops a BOM', async () => {
    // Prepare
    const text = '\uFEFFzürich\n日本語\n😀 ok';

    // Act
    const lines = await linesOf(text, 1);

    // Assess
    expect(lines).toEqual(['zürich', '日本語', '😀 ok']);
  });

  it('keeps a lone \\r inside a line', async () => {
    // Act
    const lines = await linesOf('a\rb\nc', 2);

    // Assess
    expect(lines).toEqual(['a\rb', 'c']);
  });

  it('yields the same lines for any content and any chunking (property)', async () => {
    // Prepare
    const line = fc
      .string({ unit: 'grapheme', maxLength: 12 })
      .map((s) => s.replace(/[\r\n\uFEFF]/g, ''));
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 20 }),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        fc.integer({ min: 1, max: 16 }),
        async (expected, separator, finalNewline, chunk) => {
          const text = finalNewline
            ? expected.map((l) => l + separator).join('')
            : expected.join(separator);
          const wanted = !finalNewline && expected.at(-1) === '' ? expected.slice(0, -1) : expected;

          // Act
          const lines = await linesOf(text, chunk);

          // Assess
          expect(lines).toEqual(wanted);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('rejects next() after cancel instead of reporting the end', async () => {
    // Prepare
    const reader = new LineReader(chunkedStream(encoder.encode('a\nb\nc'), 2), 's3://b/k');
    await reader.next();

    // Act
    await reader.cancel();

    // Assess
    await expect(reader.next()).rejects.toThrow(/cancelled/);
  });

  it('fails with a RetriableError when the stream errors', async () => {
    // Prepare
    const broken = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.error(new Error('socket hang up')),
    });

    // Act
    const next = new LineReader(broken, 's3://b/k').next();

    // Assess
    await expect(next).rejects.toBeInstanceOf(RetriableError);
  });
});

describe('decompress', () => {
  it('gunzips a gzip stream with DecompressionStream, lines intact', async () => {
    // Prepare
    const bytes = await gzip('first\r\nsecond\nthird');

    // Act
    const lines = await readAll(new LineReader(decompress(chunkedStream(bytes, 5), 'gzip')));

    // Assess
    expect(lines).toEqual(['first', 'second', 'third']);
  });

  it('reads concatenated gzip members as one stream', async () => {
    // Prepare
    const [a, b] = await Promise.all([gzip('a1\na2\n'), gzip('b1\n')]);
    const bytes = new Uint8Array([...a, ...b]);

    // Act
    const lines = await readAll(new LineReader(decompress(chunkedStream(bytes, 9), 'gzip')));

    // Assess
    expect(lines).toEqual(['a1', 'a2', 'b1']);
  });

  it('fails with a DataError naming the object when the bytes are not gzip', async () => {
    // Prepare
    const stream = decompress(chunkedStream(encoder.encode('plain text\n'), 4), 'gzip');

    // Act
    const next = new LineReader(stream, 's3://b/data.gz').next();

    // Assess
    await expect(next).rejects.toThrow(DataError);
    await expect(
      new LineReader(
        decompress(chunkedStream(encoder.encode('x'), 4), 'gzip'),
        's3://b/data.gz',
      ).next(),
    ).rejects.toThrow('s3://b/data.gz is not valid gzip data');
  });

  it('passes the stream through when not compressed', async () => {
    // Act
    const lines = await readAll(
      new LineReader(decompress(chunkedStream(encoder.encode('x\ny'), 1), 'none')),
    );

    // Assess
    expect(lines).toEqual(['x', 'y']);
  });
});

describe('compressionOf', () => {
  it('picks gzip for .gz keys only in auto mode', () => {
    // Assess
    expect(compressionOf('logs/a.jsonl.gz', 'auto')).toBe('gzip');
    expect(compressionOf('logs/A.GZ', 'auto')).toBe('gzip');
    expect(compressionOf('logs/a.jsonl', 'auto')).toBe('none');
    expect(compressionOf('logs/a.jsonl', 'gzip')).toBe('gzip');
    expect(compressionOf('logs/a.gz', 'none')).toBe('none');
  });
});

describe('toConnectError', () => {
  it('marks throttling, server faults and network errors retriable and client faults not', () => {
    // Prepare
    const denied = Object.assign(new Error('Access Denied'), {
      name: 'AccessDenied',
      $fault: 'client',
      $metadata: { httpStatusCode: 403 },
    });
    const slowDown = Object.assign(new Error('Reduce your request rate'), {
      name: 'SlowDown',
      $fault: 'client',
      $metadata: { httpStatusCode: 503 },
    });
    const server = Object.assign(new Error('oops'), {
      name: 'InternalError',
      $fault: 'server',
      $metadata: { httpStatusCode: 500 },
    });
    const network = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

    // Act
    const mapped = [denied, slowDown, server, network].map((e) => toConnectError(e, 'Listing'));

    // Assess
    expect(mapped.map((e) => e.retriable)).toEqual([false, true, true, true]);
    expect(mapped[0]).toBeInstanceOf(ConnectError);
    expect(mapped[0]?.message).toBe('Listing failed: AccessDenied: Access Denied');
  });

  it('keeps ConnectErrors as they are', () => {
    // Prepare
    const error = new DataError('bad');

    // Assess
    expect(toConnectError(error, 'x')).toBe(error);
  });
});

describe('listAll', () => {
  it('follows continuation tokens across pages', async () => {
    // Prepare
    const s3 = new FakeS3('bucket', 2);
    for (const key of ['p/a', 'p/b', 'p/c', 'p/d/x', 'p/e/y', 'q/z']) s3.put(key, 'x');

    // Act
    const flat = await listAll(s3, { bucket: 'bucket', prefix: 'p/' });
    const grouped = await listAll(s3, { bucket: 'bucket', prefix: 'p/', delimiter: '/' });

    // Assess
    expect(flat.objects.map((o) => o.key)).toEqual(['p/a', 'p/b', 'p/c', 'p/d/x', 'p/e/y']);
    expect(grouped.objects.map((o) => o.key)).toEqual(['p/a', 'p/b', 'p/c']);
    expect(grouped.commonPrefixes).toEqual(['p/d/', 'p/e/']);
  });
});
