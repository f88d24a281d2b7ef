import { NoSuchKey, type S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { ConnectError, RetriableError } from '../../../../../../shared/connect/errors.js';
import {
  PreconditionFailedError,
  sdkS3SinkClient,
  toSinkError,
} from '../../../../../../shared/plugins/connectors/s3-sink/s3-sink-client.js';
import { sdkError } from './fakes.js';

interface Sent {
  readonly command: string;
  readonly input: Record<string, unknown>;
}

/** An S3Client stand-in answering each command with `answer`, recording what was sent. */
function stubClient(answer: (command: string, input: Record<string, unknown>) => unknown) {
  const sent: Sent[] = [];
  const client = {
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      const name = command.constructor.name;
      sent.push({ command: name, input: command.input });
      const out = answer(name, command.input);
      if (out instanceof Error) throw out;
      return out;
    },
    destroy: () => {},
  };
  return { client: client as unknown as S3Client, sent };
}

const target = { bucket: 'b', key: 'k', metadata: { 'last-offset': '4' }, contentType: 'x/y' };

describe('sdkS3SinkClient', () => {
  it('sends If-None-Match for new objects and If-Match with the ETag read for appends', async () => {
    // Prepare
    const { client, sent } = stubClient(() => ({}));
    const s3 = sdkS3SinkClient(client);

    // Act
    await s3.putObject(target, Uint8Array.of(1), { kind: 'create' });
    await s3.putObject(target, Uint8Array.of(1), { kind: 'replace', etag: '"abc"' });
    await s3.putObject(target, Uint8Array.of(1), { kind: 'none' });

    // Assess
    expect(sent.map((s) => [s.input.IfNoneMatch, s.input.IfMatch])).toEqual([
      ['*', undefined],
      [undefined, '"abc"'],
      [undefined, undefined],
    ]);
    expect(sent[0]?.input).toMatchObject({ Metadata: { 'last-offset': '4' }, ContentLength: 1 });
  });

  it('reads metadata in lower case and resolves null for a missing key', async () => {
    // Prepare
    const { client } = stubClient((_, input) =>
      input.Key === 'missing'
        ? new NoSuchKey({ message: 'gone', $metadata: {} })
        : { Metadata: { 'Last-Offset': '9' }, ETag: '"e1"' },
    );
    const s3 = sdkS3SinkClient(client);

    // Act
    const found = await s3.getObject('b', 'k');
    const missing = await s3.getObject('b', 'missing');

    // Assess
    expect(found?.metadata).toEqual({ 'last-offset': '9' });
    expect(found?.etag).toBe('"e1"');
    expect(missing).toBeNull();
  });

  it('passes part checksums back when completing a multipart upload', async () => {
    // Prepare
    const { client, sent } = stubClient((command) =>
      command === 'UploadPartCommand' ? { ETag: '"p1"', ChecksumCRC32: 'crc==' } : {},
    );
    const s3 = sdkS3SinkClient(client);

    // Act
    const part = await s3.uploadPart('b', 'k', 'u1', 1, Uint8Array.of(1, 2));
    await s3.completeMultipartUpload('b', 'k', 'u1', [part], { kind: 'replace', etag: '"e"' });

    // Assess
    expect(sent[1]?.input).toMatchObject({
      UploadId: 'u1',
      IfMatch: '"e"',
      MultipartUpload: { Parts: [{ PartNumber: 1, ETag: '"p1"', ChecksumCRC32: 'crc==' }] },
    });
  });
});

describe('toSinkError', () => {
  it('makes failed preconditions and vanished uploads retriable, access denied not', () => {
    // Act
    const errors = [
      toSinkError(sdkError('PreconditionFailed', 412, 'client'), 'w'),
      toSinkError(sdkError('ConditionalRequestConflict', 409, 'client'), 'w'),
      toSinkError(sdkError('NoSuchUpload', 404, 'client'), 'w'),
      toSinkError(sdkError('AccessDenied', 403, 'client'), 'w'),
      toSinkError(sdkError('NoSuchBucket', 404, 'client'), 'w'),
      toSinkError(new Error('socket hang up'), 'w'),
    ];

    // Assess
    expect(errors.map((e) => e instanceof RetriableError)).toEqual([
      true,
      true,
      true,
      false,
      false,
      true,
    ]);
    expect(errors.every((e) => e instanceof ConnectError)).toBe(true);
  });

  it('types failed preconditions apart from other retriable failures', () => {
    // Act
    const errors = [
      toSinkError(sdkError('PreconditionFailed', 412, 'client'), 'w'),
      toSinkError(sdkError('ConditionalRequestConflict', 409, 'client'), 'w'),
      toSinkError({ name: 'Unknown', $metadata: { httpStatusCode: 412 } }, 'w'),
      toSinkError(sdkError('NoSuchUpload', 404, 'client'), 'w'),
      toSinkError(sdkError('SlowDown', 503, 'server'), 'w'),
    ];

    // Assess
    expect(errors.map((e) => e instanceof PreconditionFailedError)).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(errors.map((e) => (e as Partial<PreconditionFailedError>).s3Code)).toEqual([
      'PreconditionFailed',
      'ConditionalRequestConflict',
      'PreconditionFailed',
      undefined,
      undefined,
    ]);
  });
});

describe('sdkS3SinkClient conditional write failures', () => {
  it('reports If-Match on a deleted key (404 NoSuchKey) as a failed precondition', async () => {
    // Prepare
    const { client } = stubClient((_, input) =>
      input.Bucket === 'gone'
        ? sdkError('NoSuchBucket', 404, 'client')
        : sdkError('NoSuchKey', 404, 'client'),
    );
    const s3 = sdkS3SinkClient(client);
    const replace = { kind: 'replace', etag: '"e"' } as const;

    // Act
    const results = await Promise.allSettled([
      s3.putObject(target, Uint8Array.of(1), replace),
      s3.completeMultipartUpload('b', 'k', 'u1', [], replace),
      s3.putObject({ ...target, bucket: 'gone' }, Uint8Array.of(1), replace),
    ]);

    // Assess
    const reasons = results.map((r) => (r.status === 'rejected' ? r.reason : null));
    expect(reasons[0]).toBeInstanceOf(PreconditionFailedError);
    expect(reasons[1]).toBeInstanceOf(PreconditionFailedError);
    expect(reasons[2]).not.toBeInstanceOf(PreconditionFailedError);
    expect(reasons[2]).toMatchObject({ retriable: false });
  });
});
